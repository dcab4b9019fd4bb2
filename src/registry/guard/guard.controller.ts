import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiError } from '../../infra/http/api-error';
import { ApiRoute } from '../../infra/http/openapi/api-route.decorator';
import { ajvFor, toFieldErrors } from '../../infra/validation/ajv-factory';
import { ApiKeyGuard } from '../../tenancy/api-key.guard';
import { CurrentProject } from '../../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../../tenancy/project.repository';
import { GUARD_POLICY_PATCH_SCHEMA, GUARD_POLICY_SCHEMA, GuardPolicy } from './guard.schemas';
import { GuardService } from './guard.service';

const validatePolicy = ajvFor('body').compile<Partial<GuardPolicy>>(GUARD_POLICY_PATCH_SCHEMA);

@Controller('v1/guard')
@UseGuards(ApiKeyGuard)
export class GuardController {
  constructor(private readonly guard: GuardService) {}

  @Get('policy')
  @ApiRoute({
    summary: "What the SDKs' guard does with invalid arguments: off, report, correct (default) or strict",
    response: GUARD_POLICY_SCHEMA,
  })
  getPolicy(@CurrentProject() project: AuthenticatedProject) {
    return this.guard.getPolicy(project.projectId);
  }

  @Put('policy')
  @ApiRoute({
    summary: "Change the guard policy (a partial update, as every policy route); served in every tool's guard section at once",
    body: GUARD_POLICY_PATCH_SCHEMA,
    response: GUARD_POLICY_SCHEMA,
  })
  setPolicy(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    if (!validatePolicy(body)) {
      throw new ApiError(400, 'invalid_policy', 'Invalid guard policy', { details: toFieldErrors(validatePolicy.errors, '') });
    }
    return this.guard.setPolicy(project.projectId, body);
  }
}
