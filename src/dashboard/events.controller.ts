import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { CATEGORIES } from '../diagnosis';
import { notFound } from '../infra/http/api-error';
import { encodeCursor, readInstantCursor } from '../infra/http/cursor';
import { ApiRoute } from '../infra/http/openapi/api-route.decorator';
import { compileQueryValidator, invalidQuery } from '../infra/http/query-validator';
import { INSTANT_RANGE_TEXT, isStorableInstant } from '../infra/http/storable-values';
import { ApiKeyGuard } from '../tenancy/api-key.guard';
import { CurrentProject } from '../tenancy/current-project.decorator';
import { AuthenticatedProject } from '../tenancy/project.repository';
import { STORED_EVENT_RESPONSE, STORED_EVENTS_RESPONSE } from './dashboard-responses.schemas';
import { EventQueries, EventRecord } from './event.queries';

interface ListEventsQuery {
  tool?: string;
  status?: 'success' | 'error';
  category?: string;
  agent?: string;
  model?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

const LIST_QUERY_SCHEMA = {
  properties: {
    tool: { type: 'string', minLength: 1, maxLength: 200 },
    status: { enum: ['success', 'error'] },
    category: { enum: [...CATEGORIES] },
    agent: { type: 'string', minLength: 1, maxLength: 200 },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    cursor: { type: 'string', minLength: 1, maxLength: 400 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
};
const validateListQuery = compileQueryValidator<ListEventsQuery>(LIST_QUERY_SCHEMA);

@Controller('v1/events')
@UseGuards(ApiKeyGuard)
export class EventsController {
  constructor(private readonly events: EventQueries) {}

  @Get()
  @ApiRoute({ summary: 'Stored events with their diagnosis, newest first', query: LIST_QUERY_SCHEMA, response: STORED_EVENTS_RESPONSE })
  async list(@CurrentProject() project: AuthenticatedProject, @Query() rawQuery: unknown) {
    const query = validateListQuery(rawQuery);
    const outside = (['from', 'to'] as const).filter((name) => query[name] !== undefined && !isStorableInstant(new Date(query[name]!)));
    if (outside.length > 0) {
      throw invalidQuery(outside.map((name) => ({ path: `/query/${name}`, message: `must be ${INSTANT_RANGE_TEXT}` })));
    }
    const cursor = query.cursor ? readInstantCursor(query.cursor) : undefined;
    const rows = await this.events.listEvents(project.projectId, {
      tool: query.tool,
      status: query.status,
      category: query.category,
      agent: query.agent,
      model: query.model,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      after: cursor && { occurredAt: cursor.at, id: cursor.id },
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > query.limit && last ? encodeCursor([last.occurredAt.toISOString(), last.id]) : null;
    return { items: page.map(toEventView), nextCursor };
  }

  @Get(':id')
  @ApiRoute({ summary: 'One stored event with its diagnosis', response: STORED_EVENT_RESPONSE })
  async get(@CurrentProject() project: AuthenticatedProject, @Param('id') id: string) {
    const event = id.length <= 128 ? await this.events.findEvent(project.projectId, id) : null;
    if (!event) throw notFound('event', id);
    return toEventView(event);
  }
}

export function toEventView(event: EventRecord) {
  const { errorType, errorMessage, errorStack, ...rest } = event;
  return {
    ...rest,
    error: errorMessage === null ? null : { type: errorType, message: errorMessage, stack: errorStack },
  };
}
