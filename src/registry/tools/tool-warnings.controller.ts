import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { notFound } from '../../infra/http/api-error';
import { ApiRoute } from '../../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../../tenancy/api-key.guard';
import { CurrentProject } from '../../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../../tenancy/project.repository';
import { WARNING_CHANGE_RESPONSE, WARNINGS_RESPONSE } from '../registry-responses.schemas';
import { DISMISS_BODY_SCHEMA, readDismissBody, readWarningBody, requireToolName, WARNING_BODY_SCHEMA } from '../registry.schemas';
import { ToolChangesService, WarningChangeResult } from './tool-changes.service';
import { isUuid } from '../../infra/http/storable-values';

/** Warnings by hand: add, dismiss, reinstate. Each change to the active set is a new description version. */
@Controller('v1/tools/:name/warnings')
@UseGuards(ApiKeyGuard)
export class ToolWarningsController {
  constructor(private readonly toolChanges: ToolChangesService) {}

  @Get()
  @ApiRoute({ summary: "A tool's warnings, active and dismissed", response: WARNINGS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string) {
    requireToolName(name);
    return { warnings: await this.toolChanges.listWarnings(project.projectId, name) };
  }

  @Post()
  @HttpCode(201)
  @ApiRoute({
    summary: 'Add a warning by hand (a new description version)',
    body: WARNING_BODY_SCHEMA,
    response: WARNING_CHANGE_RESPONSE,
    status: 201,
  })
  add(@CurrentProject() project: AuthenticatedProject, @Param('name') name: string, @Body() body: unknown): Promise<WarningChangeResult> {
    requireToolName(name);
    return this.toolChanges.addManualWarning(project.projectId, name, readWarningBody(body));
  }

  @Post(':id/dismiss')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Dismiss a warning (a new description version without it)',
    body: DISMISS_BODY_SCHEMA,
    response: WARNING_CHANGE_RESPONSE,
  })
  dismiss(
    @CurrentProject() project: AuthenticatedProject,
    @Param('name') name: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<WarningChangeResult> {
    requireToolName(name);
    const { reason } = readDismissBody(body);
    return this.toolChanges.setWarningStatus(project.projectId, name, requireWarningId(id), 'dismissed', reason);
  }

  @Post(':id/reinstate')
  @HttpCode(200)
  @ApiRoute({ summary: 'Reinstate a dismissed warning', response: WARNING_CHANGE_RESPONSE })
  reinstate(
    @CurrentProject() project: AuthenticatedProject,
    @Param('name') name: string,
    @Param('id') id: string,
  ): Promise<WarningChangeResult> {
    requireToolName(name);
    return this.toolChanges.setWarningStatus(project.projectId, name, requireWarningId(id), 'active', null);
  }
}

function requireWarningId(id: string): string {
  if (!isUuid(id)) throw notFound('warning', id);
  return id.toLowerCase();
}
