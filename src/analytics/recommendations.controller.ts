import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import type { ProjectPolicyValues } from './recommendation.repository';
import {
  POLICY_PATCH_SCHEMA,
  POLICY_SCHEMA,
  RECOMMENDATION_RESPONSE,
  RECOMMENDATIONS_QUERY_SCHEMA,
  RECOMMENDATIONS_RESPONSE,
} from './analytics.schemas';
import { RecommendationsService } from './recommendations.service';
import { boundedPage } from '../infra/http/page-bytes';

const validateListQuery = compileQueryValidator<{ status?: string; tool?: string; cursor?: string; limit: number }>(
  RECOMMENDATIONS_QUERY_SCHEMA,
);

const validatePolicy = ajvFor('body').compile<Partial<ProjectPolicyValues>>(POLICY_PATCH_SCHEMA);

@Controller('v1')
@UseGuards(ApiKeyGuard)
export class RecommendationsController {
  constructor(private readonly recommendations: RecommendationsService) {}

  /** Recommendations with their evidence, status and, once applied, the measured effect of their warning. */
  @Get('recommendations')
  @ApiRoute({
    summary: 'What the nightly job learned, with the measured effect of applied warnings and what proposed ones wait for',
    query: RECOMMENDATIONS_QUERY_SCHEMA,
    response: RECOMMENDATIONS_RESPONSE,
  })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const rows = await this.recommendations.list(project.projectId, {
      status: query.status,
      tool: query.tool,
      after: query.cursor,
      limit: query.limit + 1,
    });
    return boundedPage(
      rows,
      query.limit,
      (row) => row,
      (last) => last.id,
    );
  }

  @Post('recommendations/:id/apply')
  @HttpCode(200)
  @ApiRoute({ summary: 'Apply a recommendation as a warning (a new description version)', response: RECOMMENDATION_RESPONSE })
  apply(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.recommendations.apply(project.projectId, id);
  }

  @Post('recommendations/:id/approve')
  @HttpCode(200)
  @ApiRoute({
    summary:
      'Approve a recommendation that waits for review (review mode): it is applied the way the nightly applies it, as a canary ' +
      'while the rollout policy is on (or at the next nightly while its tool has a canary running); 409 not_awaiting_approval otherwise',
    response: RECOMMENDATION_RESPONSE,
  })
  approve(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.recommendations.approve(project.projectId, id);
  }

  @Post('recommendations/:id/dismiss')
  @HttpCode(200)
  @ApiRoute({ summary: 'Dismiss a recommendation (an applied warning is retired)', response: RECOMMENDATION_RESPONSE })
  dismiss(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.recommendations.dismiss(project.projectId, id);
  }

  @Get('policy')
  @ApiRoute({ summary: 'The auto-apply policy', response: POLICY_SCHEMA })
  getPolicy(@CurrentProject() project: AuthenticatedProject) {
    return this.recommendations.getPolicy(project.projectId);
  }

  @Put('policy')
  @ApiRoute({
    summary: 'Change any fields of the auto-apply policy; answers the whole policy',
    body: POLICY_PATCH_SCHEMA,
    response: POLICY_SCHEMA,
  })
  setPolicy(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    if (!validatePolicy(body)) {
      throw new ApiError(400, 'invalid_policy', 'Invalid policy', { details: toFieldErrors(validatePolicy.errors, '') });
    }
    return this.recommendations.setPolicy(project.projectId, body);
  }
}
