import { compileQueryValidator, invalidQuery } from '../infra/http/query-validator';
import { DATE_TIME, NULLABLE_NUMBER } from '../infra/http/openapi/response.schemas';
import { resolveRange, StatsRange } from './stats-range';

// The query and answer of the confusion routes (docs/tool-confusion.md); the OpenAPI document is built from these.

/** Confusions are counted per UTC day by the nightly: day bounds, at most 90 days at once. */
const MAX_CONFUSION_RANGE_DAYS = 90;
export const MAX_CONFUSION_PAIRS = 100;

export const CONFUSIONS_QUERY_SCHEMA = {
  properties: {
    from: { type: 'string', minLength: 1, maxLength: 40, description: 'YYYY-MM-DD or ISO date-time (UTC); default: 7 days before `to`' },
    to: { type: 'string', minLength: 1, maxLength: 40, description: 'YYYY-MM-DD or ISO date-time (UTC), exclusive; default: now' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_CONFUSION_PAIRS, default: 20, description: 'pairs, most confused sessions first' },
  },
};

const validateConfusions = compileQueryValidator<{ from?: string; to?: string; limit: number }>(CONFUSIONS_QUERY_SCHEMA);

export function readConfusionsQuery(raw: unknown, now: Date): { range: StatsRange; limit: number } {
  const query = validateConfusions(raw);
  const resolved = resolveRange({ from: query.from, to: query.to, bucket: 'day' }, now);
  if ('errors' in resolved) throw invalidQuery(resolved.errors);
  if (resolved.range.to.getTime() - resolved.range.from.getTime() > MAX_CONFUSION_RANGE_DAYS * 86_400_000) {
    throw invalidQuery([{ path: '/query/from', message: `must be at most ${MAX_CONFUSION_RANGE_DAYS} days before to` }]);
  }
  return { range: resolved.range, limit: query.limit };
}

const closedObject = (properties: Record<string, object>) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties }) as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

const VERSION_COUNTS = closedObject({
  version: { type: 'integer', minimum: 0, description: 'description version of `tool` the sessions had loaded; 0: unknown' },
  confusions: COUNT,
  confusedSessions: COUNT,
  sessions: COUNT,
});

export const CONFUSED_PAIR = closedObject({
  tool: { type: 'string', description: 'the tool called first, whose answer was an error, empty or discarded' },
  confusedWith: { type: 'string', description: 'the tool called next with overlapping arguments, which succeeded' },
  confusions: { ...COUNT, description: 'calls of `tool` taken for `confusedWith`' },
  confusedSessions: { ...COUNT, description: 'sessions with at least one such confusion' },
  sessions: { ...COUNT, description: 'sessions that called either tool' },
  confusionRate: { ...NULLABLE_NUMBER, description: 'confusedSessions / sessions; null without sessions' },
  firstDay: DATE_TIME,
  lastDay: DATE_TIME,
  exampleSessionIds: { type: 'array', maxItems: 5, items: { type: 'string' } },
  versions: { type: 'array', items: VERSION_COUNTS },
});

export const CONFUSIONS_RESPONSE = closedObject({
  from: DATE_TIME,
  to: DATE_TIME,
  items: { type: 'array', maxItems: MAX_CONFUSION_PAIRS, items: CONFUSED_PAIR },
});
