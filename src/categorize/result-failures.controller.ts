import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiError } from '../infra/http/api-error';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { RESULT_FAILURE_POLICY_PATCH_SCHEMA, RESULT_FAILURE_POLICY_SCHEMA, ResultFailurePolicy } from './result-failures.schemas';
import { ResultFailuresService } from './result-failures.service';

const validatePolicy = ajvFor('body').compile<Partial<ResultFailurePolicy>>(RESULT_FAILURE_POLICY_PATCH_SCHEMA);

@Controller('v1/result-failures')
@UseGuards(ApiKeyGuard)
export class ResultFailuresController {
  constructor(private readonly resultFailures: ResultFailuresService) {}

  @Get('policy')
  @ApiRoute({
    summary: "Which rules that read a reported success's result as a failure are turned off (default: none)",
    response: RESULT_FAILURE_POLICY_SCHEMA,
  })
  getPolicy(@CurrentProject() project: AuthenticatedProject) {
    return this.resultFailures.getPolicy(project.projectId);
  }

  @Put('policy')
  @ApiRoute({
    summary:
      'Turn result-failure rules off or on again (a partial update, as every policy route); applies to events categorized from then on',
    body: RESULT_FAILURE_POLICY_PATCH_SCHEMA,
    response: RESULT_FAILURE_POLICY_SCHEMA,
  })
  setPolicy(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    if (!validatePolicy(body)) {
      throw new ApiError(400, 'invalid_policy', 'Invalid result-failure policy', { details: toFieldErrors(validatePolicy.errors, '') });
    }
    return this.resultFailures.setPolicy(project.projectId, body);
  }
}
