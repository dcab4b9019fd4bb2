import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { encodeCursor, readCursor } from '../infra/http/cursor';
import { boundedPage } from '../infra/http/page-bytes';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { DESCRIPTION_COST_RESPONSE } from './dashboard-responses.schemas';
import { DescriptionCostQueries } from './description-cost.queries';

const DESCRIPTION_COST_QUERY_SCHEMA = {
  properties: {
    cursor: { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
};
const validateQuery = compileQueryValidator<{ cursor?: string; limit: number }>(DESCRIPTION_COST_QUERY_SCHEMA);

/** A cursor of this route is the last tool name answered (tools.name is a varchar(200)). */
const toolNameCursor = (value: unknown) => (typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined);

@Controller('v1/description-cost')
@UseGuards(ApiKeyGuard)
export class DescriptionCostController {
  constructor(private readonly costs: DescriptionCostQueries) {}

  @Get()
  @ApiRoute({
    summary:
      "What descriptions cost in o200k_base tokens: each active tool's current version and the project's sums, with the tokens warnings add",
    query: DESCRIPTION_COST_QUERY_SCHEMA,
    response: DESCRIPTION_COST_RESPONSE,
  })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateQuery(rawQuery);
    const after = query.cursor === undefined ? undefined : readCursor(query.cursor, toolNameCursor);
    const [rows, totals] = await Promise.all([
      this.costs.listToolCosts(project.projectId, after, query.limit + 1),
      this.costs.sumProjectCost(project.projectId),
    ]);
    return {
      project: { ...totals, encoding: 'o200k_base' },
      ...boundedPage(
        rows,
        query.limit,
        (row) => row,
        (last) => encodeCursor(last.tool),
      ),
    };
  }
}
