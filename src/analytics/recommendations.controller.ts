import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import Ajv from 'ajv';
import { ApiError } from '../infra/http/api-error';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import type { ProjectPolicyValues } from './analytics.repository';
import { RECOMMENDATION_KINDS } from './recommendation-rules';
import { RecommendationsService } from './recommendations.service';

const validateListQuery = compileQueryValidator<{ status?: string; tool?: string; cursor?: string; limit: number }>({
  properties: {
    status: { enum: ['proposed', 'applied', 'dismissed'] },
    tool: { type: 'string', minLength: 1, maxLength: 200 },
    cursor: { type: 'string', format: 'uuid' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
});

const validatePolicy = new Ajv({ allErrors: true }).compile<ProjectPolicyValues>({
  type: 'object',
  additionalProperties: false,
  required: ['autoApply', 'minOccurrences', 'minShare', 'autoApplyKinds', 'autoRetire'],
  properties: {
    autoApply: { type: 'boolean' },
    minOccurrences: { type: 'integer', minimum: 1, maximum: 1000000 },
    minShare: { type: 'number', minimum: 0, maximum: 1 },
    autoApplyKinds: { type: 'array', uniqueItems: true, items: { enum: [...RECOMMENDATION_KINDS] } },
    autoRetire: { type: 'boolean' },
  },
});

@Controller('v1')
@UseGuards(ApiKeyGuard)
export class RecommendationsController {
  constructor(private readonly recommendations: RecommendationsService) {}

  /** Recommendations with their evidence, status and, once applied, the measured effect of their warning. */
  @Get('recommendations')
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const rows = await this.recommendations.list(project.projectId, {
      status: query.status,
      tool: query.tool,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    return { items: page, nextCursor: rows.length > query.limit ? page[page.length - 1].id : null };
  }

  @Post('recommendations/:id/apply')
  @HttpCode(200)
  apply(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.recommendations.apply(project.projectId, id);
  }

  @Post('recommendations/:id/dismiss')
  @HttpCode(200)
  dismiss(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.recommendations.dismiss(project.projectId, id);
  }

  @Get('policy')
  getPolicy(@CurrentProject() project: AuthenticatedProject) {
    return this.recommendations.getPolicy(project.projectId);
  }

  @Put('policy')
  setPolicy(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    if (!validatePolicy(body)) {
      const details = (validatePolicy.errors ?? []).map((e) => ({
        path: e.keyword === 'required' ? `/${String(e.params.missingProperty)}` : e.instancePath || '/',
        message: e.message ?? 'is invalid',
      }));
      throw new ApiError(400, 'invalid_policy', 'Invalid policy', { details });
    }
    return this.recommendations.setPolicy(project.projectId, body);
  }
}
