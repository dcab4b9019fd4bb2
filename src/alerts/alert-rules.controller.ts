import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import { readRuleBody, RULE_BODY_SCHEMA, RULE_PATCH_SCHEMA, RULE_RESPONSE, RULES_RESPONSE } from './alerts.schemas';
import { AlertsService } from './alerts.service';

@Controller('v1/alerts/rules')
@UseGuards(ApiKeyGuard)
export class AlertRulesController {
  constructor(private readonly alerts: AlertsService) {}

  @Post()
  @HttpCode(201)
  @ApiRoute({
    summary: 'Create an alert rule (it covers every tool unless it names some)',
    body: RULE_BODY_SCHEMA,
    response: RULE_RESPONSE,
    status: 201,
  })
  create(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    return this.alerts.createRule(project.projectId, readRuleBody(body));
  }

  @Get()
  @ApiRoute({ summary: "The project's alert rules", response: RULES_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject) {
    return { items: await this.alerts.listRules(project.projectId) };
  }

  @Get(':id')
  @ApiRoute({ summary: 'One alert rule', response: RULE_RESPONSE })
  get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.alerts.getRule(project.projectId, id);
  }

  @Patch(':id')
  @ApiRoute({
    summary: 'Change an alert rule (disabling it resolves its open incidents silently)',
    body: RULE_PATCH_SCHEMA,
    response: RULE_RESPONSE,
  })
  update(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Body() body: unknown) {
    return this.alerts.updateRule(project.projectId, id, body, new Date());
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete an alert rule and its incidents', response: null, status: 204 })
  async remove(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string): Promise<void> {
    await this.alerts.deleteRule(project.projectId, id);
  }
}
