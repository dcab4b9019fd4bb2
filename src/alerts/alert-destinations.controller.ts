import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import {
  CREATED_DESTINATION_RESPONSE,
  DESTINATION_BODY_SCHEMA,
  DESTINATION_PATCH_SCHEMA,
  DESTINATION_RESPONSE,
  DESTINATIONS_RESPONSE,
  readDestinationBody,
  readDestinationPatch,
  TEST_NOTIFICATION_RESPONSE,
} from './alerts.schemas';
import { AlertsService } from './alerts.service';

@Controller('v1/alerts/destinations')
@UseGuards(ApiKeyGuard)
export class AlertDestinationsController {
  constructor(private readonly alerts: AlertsService) {}

  @Post()
  @HttpCode(201)
  @ApiRoute({
    summary: 'Add a destination (its URL may not lead to a private address); answers the signing secret once',
    body: DESTINATION_BODY_SCHEMA,
    response: CREATED_DESTINATION_RESPONSE,
    status: 201,
  })
  create(@CurrentProject() project: AuthenticatedProject, @Body() body: unknown) {
    return this.alerts.createDestination(project.projectId, readDestinationBody(body));
  }

  @Get()
  @ApiRoute({ summary: "The project's alert destinations, paused ones marked", response: DESTINATIONS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject) {
    return { items: await this.alerts.listDestinations(project.projectId) };
  }

  @Get(':id')
  @ApiRoute({ summary: 'One alert destination', response: DESTINATION_RESPONSE })
  get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.alerts.getDestination(project.projectId, id);
  }

  @Patch(':id')
  @ApiRoute({ summary: 'Rename, re-point, pause or resume a destination', body: DESTINATION_PATCH_SCHEMA, response: DESTINATION_RESPONSE })
  update(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string, @Body() body: unknown) {
    return this.alerts.updateDestination(project.projectId, id, readDestinationPatch(body), new Date());
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete a destination and its delivery log', response: null, status: 204 })
  async remove(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string): Promise<void> {
    await this.alerts.deleteDestination(project.projectId, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiRoute({ summary: 'Send a test notification now (one attempt, recorded in the delivery log)', response: TEST_NOTIFICATION_RESPONSE })
  test(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    return this.alerts.sendTestNotification(project.projectId, id, new Date());
  }
}
