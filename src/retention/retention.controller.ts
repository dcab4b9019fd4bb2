import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { ROLLUP_RETENTION_DAYS } from './partition-plan';
import { RETENTION_BODY_SCHEMA, RETENTION_RESPONSE, RetentionSettings } from './retention.schemas';
import { RetentionService } from './retention.service';

const validateBody = ajvFor('body').compile<{ rawEventRetentionDays: number }>(RETENTION_BODY_SCHEMA);

@Controller('v1/retention')
@UseGuards(ApiKeyGuard)
export class RetentionController {
  constructor(private readonly retention: RetentionService) {}

  @Get()
  @ApiRoute({ summary: "How long the project's raw events and its rollups are kept", response: RETENTION_RESPONSE })
  async get(@CurrentProject() project: AuthenticatedProject): Promise<RetentionSettings> {
    const days = await this.retention.getRawEventRetentionDays(project.projectId);
    if (days === null) throw notFound('project', project.projectName);
    return { rawEventRetentionDays: days, rollupRetentionDays: ROLLUP_RETENTION_DAYS };
  }

  @Put()
  @ApiRoute({
    summary: "Set how many days the project's raw events are kept (1 to 3650); applied by the next maintenance run",
    body: RETENTION_BODY_SCHEMA,
    response: RETENTION_RESPONSE,
  })
  async set(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown): Promise<RetentionSettings> {
    if (!validateBody(body)) {
      throw new ApiError(400, 'invalid_retention', 'Invalid retention', { details: toFieldErrors(validateBody.errors, '') });
    }
    if (!(await this.retention.setRawEventRetentionDays(project.projectId, body.rawEventRetentionDays))) {
      throw notFound('project', project.projectName);
    }
    return { rawEventRetentionDays: body.rawEventRetentionDays, rollupRetentionDays: ROLLUP_RETENTION_DAYS };
  }
}
