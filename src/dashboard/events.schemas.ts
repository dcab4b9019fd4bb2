import { CATEGORIES } from '../diagnosis';
import { FieldError } from '../infra/http/api-error';
import { readInstantCursor } from '../infra/http/cursor';
import { compileQueryValidator, invalidQuery } from '../infra/http/query-validator';
import { INSTANT_RANGE_TEXT, isStorableInstant } from '../infra/http/storable-values';
import type { EventFilter } from './event.queries';

// Query schemas of GET /v1/events and GET /v1/events/export; the OpenAPI document is built from these same objects.

const MAX_EXPORT_RANGE_DAYS = 31;
const DEFAULT_EXPORT_RANGE_DAYS = 7;
const DAY_MS = 86_400_000;
/** Rows of one export at most: with the 31-day range cap, what bounds the work one request can ask for. */
export const MAX_EXPORT_ROWS = 100_000;

const EVENT_FILTER_PROPERTIES = {
  tool: { type: 'string', minLength: 1, maxLength: 200 },
  status: { enum: ['success', 'error'] },
  category: { enum: [...CATEGORIES] },
  agent: { type: 'string', minLength: 1, maxLength: 200 },
  model: { type: 'string', minLength: 1, maxLength: 200 },
  session: { type: 'string', minLength: 1, maxLength: 200, description: 'the sessionId the events reported' },
  errorGroup: { type: 'string', format: 'uuid', description: 'only the events of this error group' },
  from: { type: 'string', format: 'date-time', description: 'occurredAt at or after (the time the call reported)' },
  to: { type: 'string', format: 'date-time', description: 'occurredAt before' },
  receivedFrom: {
    type: 'string',
    format: 'date-time',
    description: 'received at or after: events are partitioned by the day they were received, so this reads only those days',
  },
  receivedTo: { type: 'string', format: 'date-time', description: 'received before' },
} as const;

export const LIST_EVENTS_QUERY_SCHEMA = {
  properties: {
    ...EVENT_FILTER_PROPERTIES,
    cursor: { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
};

export const EXPORT_EVENTS_QUERY_SCHEMA = {
  properties: {
    ...EVENT_FILTER_PROPERTIES,
    from: { ...EVENT_FILTER_PROPERTIES.from, description: `occurredAt at or after; default: ${DEFAULT_EXPORT_RANGE_DAYS} days before to` },
    to: { ...EVENT_FILTER_PROPERTIES.to, description: `occurredAt before, at most ${MAX_EXPORT_RANGE_DAYS} days after from; default: now` },
    limit: { type: 'integer', minimum: 1, maximum: MAX_EXPORT_ROWS, default: 10_000, description: 'rows at most, newest first' },
  },
};

type FilterQuery = { [K in keyof typeof EVENT_FILTER_PROPERTIES]?: string };

const validateList = compileQueryValidator<FilterQuery & { cursor?: string; limit: number }>(LIST_EVENTS_QUERY_SCHEMA);
const validateExport = compileQueryValidator<FilterQuery & { limit: number }>(EXPORT_EVENTS_QUERY_SCHEMA);

export function readListEventsQuery(raw: unknown): EventFilter {
  const query = validateList(raw);
  const filter = filterOf(query);
  const cursor = query.cursor ? readInstantCursor(query.cursor, 'text') : undefined;
  return { ...filter, after: cursor && { occurredAt: cursor.at, id: cursor.id }, limit: query.limit };
}

/** As the list's filter, with the occurredAt range required to be at most 31 days (default: the last 7 days). */
export function readExportQuery(raw: unknown, now: Date): EventFilter & { from: Date; to: Date } {
  const query = validateExport(raw);
  const filter = filterOf(query);
  const to = filter.to ?? now;
  const from = filter.from ?? new Date(to.getTime() - DEFAULT_EXPORT_RANGE_DAYS * DAY_MS);
  if (to.getTime() - from.getTime() > MAX_EXPORT_RANGE_DAYS * DAY_MS) {
    throw invalidQuery([{ path: '/query/from', message: `must be at most ${MAX_EXPORT_RANGE_DAYS} days before to` }]);
  }
  if (from.getTime() >= to.getTime()) throw invalidQuery([{ path: '/query/from', message: 'must be before to' }]);
  return { ...filter, from, to, limit: query.limit };
}

/** The filters both routes share; every bad instant or inverted range is reported at once. */
function filterOf(query: FilterQuery): Omit<EventFilter, 'limit'> {
  const errors: FieldError[] = [];
  const instant = (name: 'from' | 'to' | 'receivedFrom' | 'receivedTo') => {
    const text = query[name];
    if (text === undefined) return undefined;
    const date = new Date(text);
    if (isStorableInstant(date)) return date;
    errors.push({ path: `/query/${name}`, message: `must be ${INSTANT_RANGE_TEXT}` });
    return undefined;
  };
  const [from, to, receivedFrom, receivedTo] = [instant('from'), instant('to'), instant('receivedFrom'), instant('receivedTo')];
  if (from && to && from.getTime() >= to.getTime()) errors.push({ path: '/query/from', message: 'must be before to' });
  if (receivedFrom && receivedTo && receivedFrom.getTime() >= receivedTo.getTime()) {
    errors.push({ path: '/query/receivedFrom', message: 'must be before receivedTo' });
  }
  if (errors.length > 0) throw invalidQuery(errors);
  return {
    tool: query.tool,
    status: query.status,
    category: query.category,
    agent: query.agent,
    model: query.model,
    sessionId: query.session,
    errorGroupId: query.errorGroup?.toLowerCase(),
    from,
    to,
    receivedFrom,
    receivedTo,
  };
}
