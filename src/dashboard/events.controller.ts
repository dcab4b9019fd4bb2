import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { notFound } from '../infra/http/api-error';
import { encodeCursor } from '../infra/http/cursor';
import { boundedPage } from '../infra/http/page-bytes';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { EXPORT_LINE_RESPONSE, STORED_EVENT_RESPONSE, STORED_EVENTS_RESPONSE } from './dashboard-responses.schemas';
import { EventExportService } from './event-export.service';
import { EventQueries, EventRecord } from './event.queries';
import { EXPORT_EVENTS_QUERY_SCHEMA, LIST_EVENTS_QUERY_SCHEMA, readExportQuery, readListEventsQuery } from './events.schemas';

const JSON_LINES = 'application/x-ndjson';

@Controller('v1/events')
@UseGuards(ApiKeyGuard)
export class EventsController {
  constructor(
    private readonly events: EventQueries,
    private readonly exporter: EventExportService,
  ) {}

  @Get()
  @ApiRoute({
    summary: 'Stored events with their diagnosis, newest first (the dashboard explorer)',
    query: LIST_EVENTS_QUERY_SCHEMA,
    response: STORED_EVENTS_RESPONSE,
  })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = readListEventsQuery(rawQuery);
    const rows = await this.events.listEvents(project.projectId, { ...query, limit: query.limit + 1 });
    return boundedPage(rows, query.limit, toEventView, (last) => encodeCursor([last.occurredAt.toISOString(), last.id]));
  }

  @Get('export')
  @ApiRoute({
    summary: 'Matching events as JSON lines (tool, schema version, arguments, error, diagnosis, known fix), streamed as a download',
    query: EXPORT_EVENTS_QUERY_SCHEMA,
    response: EXPORT_LINE_RESPONSE,
    linesContentType: JSON_LINES,
  })
  export(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown, @Res() reply: FastifyReply) {
    const filter = readExportQuery(rawQuery, new Date());
    reply
      .status(200)
      .header('content-type', `${JSON_LINES}; charset=utf-8`)
      .header('content-disposition', `attachment; filename="${exportFileName(filter)}"`)
      .header('cache-control', 'private, no-store')
      .send(Readable.from(this.exporter.exportLines(project.projectId, filter)));
  }

  @Get(':id')
  @ApiRoute({ summary: 'One stored event with its diagnosis', response: STORED_EVENT_RESPONSE })
  async get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    const event = id.length <= 128 ? await this.events.findEvent(project.projectId, id) : null;
    if (!event) throw notFound('event', id);
    return toEventView(event);
  }
}

/** toolcoach-<tool>-<status>-<from>-<to>.jsonl, with anything but letters, digits, dot, dash and underscore as _. */
function exportFileName(filter: { tool?: string; status?: string; from: Date; to: Date }): string {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const name = `toolcoach-${filter.tool ?? 'all-tools'}-${filter.status ?? 'all'}-${day(filter.from)}-${day(filter.to)}`;
  return `${name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200)}.jsonl`;
}

export function toEventView(event: EventRecord) {
  const { errorType, errorMessage, errorStack, ...rest } = event;
  return {
    ...rest,
    error: errorMessage === null ? null : { type: errorType, message: errorMessage, stack: errorStack },
  };
}
