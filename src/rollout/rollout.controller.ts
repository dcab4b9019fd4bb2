import { Body, Controller, Get, Put, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { encodeCursor, readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import type { CanaryRecord, CanaryStatus } from '../registry/registry.types';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import type { RolloutPolicy } from './rollout-policy.repository';
import { CANARIES_QUERY_SCHEMA, CANARIES_RESPONSE, ROLLOUT_POLICY_SCHEMA } from './rollout.schemas';
import { RolloutService } from './rollout.service';
import { boundedPage } from '../infra/http/page-bytes';

const validatePolicy = ajvFor('body').compile<RolloutPolicy>(ROLLOUT_POLICY_SCHEMA);
const validateCanariesQuery = compileQueryValidator<{ tool?: string; status?: CanaryStatus; cursor?: string; limit: number }>(
  CANARIES_QUERY_SCHEMA,
);

@Controller('v1/rollout')
@UseGuards(ApiKeyGuard)
export class RolloutController {
  constructor(private readonly rollout: RolloutService) {}

  @Get('policy')
  @ApiRoute({
    summary: 'The guarded rollout policy: canaries for automatic warnings, their share and minimum calls',
    response: ROLLOUT_POLICY_SCHEMA,
  })
  getPolicy(@CurrentProject() project: AuthenticatedProject) {
    return this.rollout.getPolicy(project.projectId);
  }

  @Put('policy')
  @ApiRoute({ summary: 'Set the guarded rollout policy', body: ROLLOUT_POLICY_SCHEMA, response: ROLLOUT_POLICY_SCHEMA })
  setPolicy(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    if (!validatePolicy(body)) {
      throw new ApiError(400, 'invalid_policy', 'Invalid rollout policy', { details: toFieldErrors(validatePolicy.errors, '') });
    }
    return this.rollout.setPolicy(project.projectId, body);
  }

  /** Canaries newest first, each with its decision and the numbers it was made on. */
  @Get('canaries')
  @ApiRoute({
    summary: 'Canary description versions, newest first, with their decisions and numbers',
    query: CANARIES_QUERY_SCHEMA,
    response: CANARIES_RESPONSE,
  })
  async listCanaries(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateCanariesQuery(rawQuery);
    const cursor = query.cursor ? readInstantCursor(query.cursor, 'uuid') : undefined;
    const rows = await this.rollout.listCanaries(project.projectId, {
      tool: query.tool,
      status: query.status,
      before: cursor && { startedAt: cursor.at, id: cursor.id },
      limit: query.limit + 1,
    });
    return boundedPage(rows, query.limit, toCanaryView, (last) => encodeCursor([last.startedAt.toISOString(), last.id]));
  }
}

function toCanaryView(canary: CanaryRecord) {
  return {
    id: canary.id,
    tool: canary.tool,
    warningId: canary.warningId,
    warningIds: canary.warningIds,
    design: canary.design,
    looks: canary.looks,
    maxLooks: canary.maxLooks,
    state: canary.state,
    previousVersion: canary.previousVersion,
    canaryVersion: canary.canaryVersion,
    share: canary.share,
    minCalls: canary.minCalls,
    status: canary.status,
    decision: canary.decision,
    startedAt: canary.startedAt,
    decidedAt: canary.decidedAt,
  };
}
