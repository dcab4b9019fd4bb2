import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { encodeCursor, readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import type { AuthenticatedProject } from '../tenancy/project.repository';
import {
  DELIVERIES_QUERY_SCHEMA,
  DELIVERIES_RESPONSE,
  INCIDENTS_QUERY_SCHEMA,
  INCIDENTS_RESPONSE,
  readDeliveriesQuery,
  readIncidentsQuery,
} from './alerts.schemas';
import { AlertsService } from './alerts.service';
import { boundedPage } from '../infra/http/page-bytes';

/** What alerting did: incidents (the dashboard lists the open ones) and every delivery attempt. */
@Controller('v1/alerts')
@UseGuards(ApiKeyGuard)
export class AlertIncidentsController {
  constructor(private readonly alerts: AlertsService) {}

  @Get('incidents')
  @ApiRoute({
    summary: 'Incidents, newest first (status=open: what is wrong now)',
    query: INCIDENTS_QUERY_SCHEMA,
    response: INCIDENTS_RESPONSE,
  })
  async incidents(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    return { items: await this.alerts.listIncidents(project.projectId, readIncidentsQuery(rawQuery)) };
  }

  @Get('deliveries')
  @ApiRoute({
    summary: 'Every delivery attempt with its outcome, status code, latency and error, newest first',
    query: DELIVERIES_QUERY_SCHEMA,
    response: DELIVERIES_RESPONSE,
  })
  async deliveries(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = readDeliveriesQuery(rawQuery);
    const after = query.cursor ? readInstantCursor(query.cursor, 'uuid') : undefined;
    const rows = await this.alerts.listDeliveries(project.projectId, {
      destinationId: query.destinationId,
      incidentId: query.incidentId,
      after,
      limit: query.limit + 1,
    });
    return boundedPage(
      rows,
      query.limit,
      (row) => row,
      (last) => encodeCursor([last.createdAt.toISOString(), last.id]),
    );
  }
}
