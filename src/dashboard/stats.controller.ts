import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import {
  DIMENSION_STATS_QUERY_SCHEMA,
  GUARD_STATS_QUERY_SCHEMA,
  readGuardStatsQuery,
  readDimensionStatsQuery,
  readOverviewQuery,
  readToolsQuery,
  readToolStatsQuery,
  OVERVIEW_QUERY_SCHEMA,
  TOOL_STATS_QUERY_SCHEMA,
  TOOLS_QUERY_SCHEMA,
} from './dashboard.schemas';
import {
  DIMENSION_STATS_RESPONSE,
  GUARD_STATS_RESPONSE,
  OVERVIEW_RESPONSE,
  TOOL_STATS_RESPONSE,
  TOOLS_STATS_RESPONSE,
} from './dashboard-responses.schemas';
import { GuardStatsService } from './guard-stats.service';
import { requireToolName } from './tool-name';
import { StatsService } from './stats.service';

@Controller('v1')
@UseGuards(ApiKeyGuard)
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly guardStats: GuardStatsService,
  ) {}

  @Get('stats/overview')
  @ApiRoute({
    summary: 'Calls, success rate, top failing tools and error groups, trend vs the previous period, success rate over time',
    query: OVERVIEW_QUERY_SCHEMA,
    response: OVERVIEW_RESPONSE,
  })
  overview(@CurrentProject() project: AuthenticatedProject, @Query() query: unknown) {
    return this.stats.overview(project.projectId, readOverviewQuery(query, new Date()));
  }

  @Get('stats/tools')
  @ApiRoute({
    summary: 'One row per tool: calls, success rate, p50/p95 latency, errors by category',
    query: TOOLS_QUERY_SCHEMA,
    response: TOOLS_STATS_RESPONSE,
  })
  tools(@CurrentProject() project: AuthenticatedProject, @Query() query: unknown) {
    return this.stats.tools(project.projectId, readToolsQuery(query, new Date()));
  }

  @Get('stats/agents')
  @ApiRoute({
    summary: 'One row per agent: calls, errors, success rate and errors by category, most calls first',
    query: DIMENSION_STATS_QUERY_SCHEMA,
    response: DIMENSION_STATS_RESPONSE,
  })
  agents(@CurrentProject() project: AuthenticatedProject, @Query() query: unknown) {
    return this.stats.byDimension(project.projectId, 'agent', readDimensionStatsQuery(query, new Date()));
  }

  @Get('stats/models')
  @ApiRoute({
    summary: 'One row per model: calls, errors, success rate and errors by category, most calls first',
    query: DIMENSION_STATS_QUERY_SCHEMA,
    response: DIMENSION_STATS_RESPONSE,
  })
  models(@CurrentProject() project: AuthenticatedProject, @Query() query: unknown) {
    return this.stats.byDimension(project.projectId, 'model', readDimensionStatsQuery(query, new Date()));
  }

  @Get('tools/:name/stats')
  @ApiRoute({
    summary: 'Time series of one tool: calls, errors by category, success rate',
    query: TOOL_STATS_QUERY_SCHEMA,
    response: TOOL_STATS_RESPONSE,
  })
  toolStats(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() query: unknown) {
    return this.stats.toolStats(project.projectId, requireToolName(name), readToolStatsQuery(query, new Date()));
  }

  @Get('tools/:name/guard-stats')
  @ApiRoute({
    summary: "What the SDKs' guard did to one tool's calls per day: corrections by kind, prevented calls (at most 31 days)",
    query: GUARD_STATS_QUERY_SCHEMA,
    response: GUARD_STATS_RESPONSE,
  })
  toolGuardStats(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() query: unknown) {
    return this.guardStats.guardStats(project.projectId, requireToolName(name), readGuardStatsQuery(query, new Date()));
  }
}
