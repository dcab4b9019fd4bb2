import { Module } from '@nestjs/common';
import { DashboardAssets } from './dashboard-assets';
import { DashboardPageController } from './dashboard-page.controller';
import { ErrorGroupQueries } from './error-group.queries';
import { ErrorGroupsController } from './error-groups.controller';
import { GuardStatsQueries } from './guard-stats.queries';
import { GuardStatsService } from './guard-stats.service';
import { EventExportService } from './event-export.service';
import { EventQueries } from './event.queries';
import { EventsController } from './events.controller';
import { ProjectController } from './project.controller';
import { RootPageController } from './root-page.controller';
import { StatsController } from './stats.controller';
import { StatsQueries } from './stats.queries';
import { StatsService } from './stats.service';
import { ToolVersionQueries } from './tool-version.queries';
import { DescriptionCostController } from './description-cost.controller';
import { DescriptionCostQueries } from './description-cost.queries';
import { ToolVersionsController } from './tool-versions.controller';
import { ToolConfusionQueries } from './tool-confusion.queries';
import { ToolConfusionsController } from './tool-confusions.controller';

/** Read-only queries for the REST dashboard (from rollups, never scanning events) and the web page at /dashboard. */
@Module({
  controllers: [
    EventsController,
    StatsController,
    ErrorGroupsController,
    ToolVersionsController,
    ToolConfusionsController,
    DescriptionCostController,
    DashboardPageController,
    RootPageController,
    ProjectController,
  ],
  providers: [
    EventQueries,
    EventExportService,
    StatsQueries,
    StatsService,
    GuardStatsQueries,
    GuardStatsService,
    ErrorGroupQueries,
    ToolVersionQueries,
    ToolConfusionQueries,
    DescriptionCostQueries,
    DashboardAssets,
  ],
  // for the MCP server at /mcp, the other reader at the edge
  exports: [StatsService, ErrorGroupQueries, EventQueries, ToolVersionQueries],
})
export class DashboardModule {}
