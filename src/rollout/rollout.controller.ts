import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { encodeCursor, readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import type { CanaryStatus } from '../registry/registry.types';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import type { RolloutPolicy } from '../registry/serving/rollout-policy.repository';
import type { CanaryView } from './canary-control.service';
import {
  CANARIES_QUERY_SCHEMA,
  CANARIES_RESPONSE,
  CANARY_VIEW,
  ROLLOUT_POLICY_CHANGE_RESPONSE,
  ROLLOUT_POLICY_PATCH_SCHEMA,
  ROLLOUT_POLICY_SCHEMA,
} from './rollout.schemas';
import { RolloutService } from './rollout.service';
import { boundedPage } from '../infra/http/page-bytes';

const validatePolicy = ajvFor('body').compile<Partial<RolloutPolicy>>(ROLLOUT_POLICY_PATCH_SCHEMA);
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
  @ApiRoute({
    summary: "Change any fields of the guarded rollout policy; switching it off promotes the nightly's running canaries",
    body: ROLLOUT_POLICY_PATCH_SCHEMA,
    response: ROLLOUT_POLICY_CHANGE_RESPONSE,
  })
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

  @Post('canaries/:id/promote')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Promote a running canary by hand: its version is served to everyone; 409 canary_not_running once it ended',
    response: CANARY_VIEW,
  })
  async promote(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return toCanaryView(await this.rollout.endCanary(project.projectId, id, 'promote'));
  }

  @Post('canaries/:id/stop')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Stop a running canary by hand: rolled back, its warning dismissed, the previous description served to everyone',
    response: CANARY_VIEW,
  })
  async stop(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return toCanaryView(await this.rollout.endCanary(project.projectId, id, 'roll_back'));
  }
}

function toCanaryView(canary: CanaryView) {
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
    sides: canary.sides,
    expectedDecision: canary.status === 'running' ? expectedDecisionOf(canary) : null,
  };
}

/** When a running canary is decided at the latest: the nightly look of its deadline (sooner on clear evidence). */
function expectedDecisionOf(canary: CanaryView): { atLatestLook: number; nightlyRunsLeft: number; text: string } {
  const left = Math.max(1, canary.maxLooks - canary.looks);
  return {
    atLatestLook: canary.maxLooks,
    nightlyRunsLeft: left,
    text: `at the latest at look ${canary.maxLooks}, in ${left} more nightly run${left === 1 ? '' : 's'}; sooner when the evidence is clear or both sides have ${canary.minCalls} calls`,
  };
}
