import { Module } from '@nestjs/common';
import { AnalyticsCoreModule } from '../analytics/analytics.module';
import { DashboardModule } from '../dashboard/dashboard.module';
import { RegistryModule } from '../registry/registry.module';
import { RegistryApiModule } from '../registry/registry-api.module';
import { RolloutCoreModule } from '../rollout/rollout.module';
import { DocsResources } from './docs-resources';
import { McpController } from './mcp.controller';
import { McpReadTools } from './mcp-read-tools';
import { McpService } from './mcp.service';
import { McpToolbox } from './mcp-toolbox';
import { McpWriteTools } from './mcp-write-tools';

/** api role: the MCP server at /mcp, an adapter over the services behind the REST routes (docs/mcp-server.md). */
@Module({
  imports: [DashboardModule, RegistryModule, RegistryApiModule, RolloutCoreModule, AnalyticsCoreModule],
  controllers: [McpController],
  providers: [McpReadTools, McpWriteTools, McpToolbox, DocsResources, McpService],
})
export class McpModule {}
