import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { ToolConfusionQueries } from './tool-confusion.queries';
import { CONFUSIONS_QUERY_SCHEMA, CONFUSIONS_RESPONSE, readConfusionsQuery } from './tool-confusions.schemas';
import { requireToolName } from './tool-name';

/** The tools sessions confused for one another (docs/tool-confusion.md): the project's pairs, and one tool's. */
@Controller('v1')
@UseGuards(ApiKeyGuard)
export class ToolConfusionsController {
  constructor(private readonly confusions: ToolConfusionQueries) {}

  @Get('confusions')
  @ApiRoute({
    summary: 'Pairs of tools the sessions confused (a call of one answered by an error or nothing, then the other with the same values)',
    query: CONFUSIONS_QUERY_SCHEMA,
    response: CONFUSIONS_RESPONSE,
  })
  async listProjectPairs(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const { range, limit } = readConfusionsQuery(rawQuery, new Date());
    return { from: range.from, to: range.to, items: await this.confusions.listPairs(project.projectId, range, limit) };
  }

  @Get('tools/:name/confusions')
  @ApiRoute({
    summary: 'The confused pairs a tool is on either side of, per description version of the tool called first',
    query: CONFUSIONS_QUERY_SCHEMA,
    response: CONFUSIONS_RESPONSE,
  })
  async listToolPairs(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Query() rawQuery: unknown) {
    const { range, limit } = readConfusionsQuery(rawQuery, new Date());
    const items = await this.confusions.listPairs(project.projectId, range, limit, requireToolName(name));
    return { from: range.from, to: range.to, items };
  }
}
