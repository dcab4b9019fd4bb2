import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';

const PROJECT_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
} as const;

/** Which project the key belongs to, so the dashboard can say whose numbers it shows. */
@Controller('v1')
@UseGuards(ApiKeyGuard)
export class ProjectController {
  @Get('project')
  @ApiRoute({ summary: "The API key's project: id and name", response: PROJECT_RESPONSE })
  current(@CurrentProject() project: AuthenticatedProject) {
    return { id: project.projectId, name: project.projectName };
  }
}
