import { CATEGORIES } from '../diagnosis';
import { ApiError, FieldError } from '../infra/http/api-error';
import { cursorPositiveInteger, cursorProblem, decodeInstantCursor, readCursor } from '../infra/http/cursor';
import { compileQueryValidator, invalidQuery } from '../infra/http/query-validator';
import { INSTANT_RANGE_TEXT, isStorableInstant } from '../infra/http/storable-values';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { GROUP_STATUSES, SETTABLE_GROUP_STATUSES } from './error-group-view';
import { DimensionFilter } from './stats.queries';
import { Bucket, parseInstant, resolveRange, StatsRange } from './stats-range';
import { TOOL_SORTS, ToolSort } from './stats-series';

// Query and body schemas of the dashboard routes; the OpenAPI document is built from these same objects.

const RANGE_PROPERTIES = {
  from: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO date-time or YYYY-MM-DD (UTC); default: 7 days before `to`' },
  to: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO date-time or YYYY-MM-DD (UTC), exclusive; default: now' },
} as const;
/** One of the two at a time: the rollups by agent and by model (hourly_dimension_rollups) are kept apart. */
const AGENT_MODEL_PROPERTIES = {
  agent: { type: 'string', minLength: 1, maxLength: 200, description: 'only calls of this agent (not with model)' },
  model: { type: 'string', minLength: 1, maxLength: 200, description: 'only calls of this model (not with agent)' },
} as const;
const PAGE_PROPERTIES = {
  cursor: { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous page' },
  limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
} as const;
const BUCKET = { enum: ['hour', 'day'], default: 'day', description: 'hour: at most 31 days; day: at most 400 days' } as const;

export const OVERVIEW_QUERY_SCHEMA = { properties: { ...RANGE_PROPERTIES, bucket: BUCKET, ...AGENT_MODEL_PROPERTIES } };
export const TOOLS_QUERY_SCHEMA = {
  properties: {
    ...RANGE_PROPERTIES,
    sort: {
      enum: [...TOOL_SORTS],
      default: 'name',
      description: 'name ascending, success_rate ascending (worst first), others descending',
    },
    ...PAGE_PROPERTIES,
    ...AGENT_MODEL_PROPERTIES,
  },
};
export const TOOL_STATS_QUERY_SCHEMA = { properties: { ...RANGE_PROPERTIES, bucket: BUCKET, ...AGENT_MODEL_PROPERTIES } };
/** The guard's counts are read from events, so their range is held to 31 days. */
export const GUARD_STATS_QUERY_SCHEMA = { properties: { ...RANGE_PROPERTIES } };
const MAX_GUARD_STATS_DAYS = 31;
export const ERROR_GROUPS_QUERY_SCHEMA = {
  properties: {
    status: { enum: [...GROUP_STATUSES] },
    category: { enum: [...CATEGORIES] },
    ...RANGE_PROPERTIES,
    ...PAGE_PROPERTIES,
  },
};
export const ERROR_GROUP_QUERY_SCHEMA = {
  properties: {
    agent: { ...AGENT_MODEL_PROPERTIES.agent, description: 'only samples from this agent' },
    model: { ...AGENT_MODEL_PROPERTIES.model, description: 'only samples from this model' },
  },
};
export const DIMENSION_STATS_QUERY_SCHEMA = {
  properties: {
    ...RANGE_PROPERTIES,
    tool: { type: 'string', minLength: 1, maxLength: 200, description: 'only calls of this tool' },
    ...PAGE_PROPERTIES,
  },
};
export const VERSIONS_QUERY_SCHEMA = { properties: { ...PAGE_PROPERTIES } };
export const ERROR_GROUP_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { enum: [...SETTABLE_GROUP_STATUSES] } },
} as const;

export interface FilteredRange {
  range: StatsRange;
  /** Only the calls of this agent or model; all calls when absent. */
  only?: DimensionFilter;
}

interface RangeQuery {
  from?: string;
  to?: string;
  bucket?: Bucket;
  agent?: string;
  model?: string;
}

const validateOverview = compileQueryValidator<RangeQuery>(OVERVIEW_QUERY_SCHEMA);
const validateTools = compileQueryValidator<RangeQuery & { sort: ToolSort; cursor?: string; limit: number }>(TOOLS_QUERY_SCHEMA);
const validateToolStats = compileQueryValidator<RangeQuery>(TOOL_STATS_QUERY_SCHEMA);
const validateGuardStats = compileQueryValidator<RangeQuery>(GUARD_STATS_QUERY_SCHEMA);
const validateErrorGroups = compileQueryValidator<{
  status?: string;
  category?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}>(ERROR_GROUPS_QUERY_SCHEMA);
const validateErrorGroup = compileQueryValidator<{ agent?: string; model?: string }>(ERROR_GROUP_QUERY_SCHEMA);
const validateDimensionStats = compileQueryValidator<{ from?: string; to?: string; tool?: string; cursor?: string; limit: number }>(
  DIMENSION_STATS_QUERY_SCHEMA,
);
const validateVersions = compileQueryValidator<{ cursor?: string; limit: number }>(VERSIONS_QUERY_SCHEMA);
const validatePatch = ajvFor('body').compile<{ status: string }>(ERROR_GROUP_PATCH_SCHEMA);

/** The agent or model the figures are narrowed to; rollups are kept by one or the other, so not both at once. */
function dimensionFilterOf(query: RangeQuery): DimensionFilter | undefined {
  if (query.agent !== undefined && query.model !== undefined) {
    throw invalidQuery([{ path: '/query/model', message: 'filter by agent or by model, not both at once' }]);
  }
  if (query.agent !== undefined) return { dimension: 'agent', value: query.agent };
  if (query.model !== undefined) return { dimension: 'model', value: query.model };
  return undefined;
}

function rangeOf(query: RangeQuery, now: Date, bucket: Bucket): StatsRange {
  const resolved = resolveRange({ from: query.from, to: query.to, bucket }, now);
  if ('errors' in resolved) throw invalidQuery(resolved.errors);
  return resolved.range;
}

export function readOverviewQuery(raw: unknown, now: Date): FilteredRange {
  const query = validateOverview(raw);
  const only = dimensionFilterOf(query);
  return { range: rangeOf(query, now, query.bucket ?? 'day'), only };
}

export function readToolsQuery(raw: unknown, now: Date): FilteredRange & { sort: ToolSort; offset: number; limit: number } {
  const query = validateTools(raw);
  const only = dimensionFilterOf(query);
  const range = rangeOf(query, now, 'day');
  const offset = query.cursor ? decodeOffsetCursor(query.cursor, query.sort) : 0;
  return { range, only, sort: query.sort, limit: query.limit, offset };
}

export function readToolStatsQuery(raw: unknown, now: Date): FilteredRange {
  const query = validateToolStats(raw);
  const only = dimensionFilterOf(query);
  return { range: rangeOf(query, now, query.bucket ?? 'day'), only };
}

/** GET /v1/tools/:name/guard-stats: day buckets, at most 31 days. */
export function readGuardStatsQuery(raw: unknown, now: Date): StatsRange {
  const range = rangeOf(validateGuardStats(raw), now, 'day');
  if (range.to.getTime() - range.from.getTime() > MAX_GUARD_STATS_DAYS * 86_400_000) {
    throw invalidQuery([{ path: '/query/from', message: `must be at most ${MAX_GUARD_STATS_DAYS} days before to` }]);
  }
  return range;
}

/** GET /v1/stats/agents and /v1/stats/models: one page of agents (or models), most calls first. */
export function readDimensionStatsQuery(raw: unknown, now: Date): { range: StatsRange; tool?: string; offset: number; limit: number } {
  const query = validateDimensionStats(raw);
  const range = rangeOf(query, now, 'day');
  const offset = query.cursor ? decodeOffsetCursor(query.cursor, 'calls') : 0;
  return { range, tool: query.tool, offset, limit: query.limit };
}

export function readErrorGroupsQuery(raw: unknown) {
  const query = validateErrorGroups(raw);
  const errors: FieldError[] = [];
  const from = query.from === undefined ? undefined : parseRangeInstant(query.from, '/query/from', errors);
  const to = query.to === undefined ? undefined : parseRangeInstant(query.to, '/query/to', errors);
  const cursor = query.cursor ? decodeInstantCursor(query.cursor, 'uuid') : undefined;
  if (query.cursor && !cursor) errors.push(cursorProblem());
  if (errors.length > 0) throw invalidQuery(errors);
  const after = cursor && { lastSeen: cursor.at, id: cursor.id };
  return { status: query.status, category: query.category, from, to, after, limit: query.limit };
}

export function readErrorGroupQuery(raw: unknown): { agent?: string; model?: string } {
  return validateErrorGroup(raw);
}

export function readVersionsQuery(raw: unknown): { beforeVersion?: number; limit: number } {
  const query = validateVersions(raw);
  if (query.cursor === undefined) return { limit: query.limit };
  const beforeVersion = readCursor(query.cursor, cursorPositiveInteger);
  return { beforeVersion, limit: query.limit };
}

export function readErrorGroupPatch(body: unknown): { status: string } {
  if (validatePatch(body)) return body;
  const details = toFieldErrors(validatePatch.errors, '');
  throw new ApiError(400, 'invalid_body', `Invalid field ${details[0].path || 'body'}`, { details });
}

function parseRangeInstant(value: string, path: string, errors: FieldError[]): Date | undefined {
  const date = parseInstant(value);
  if (!date) errors.push({ path, message: 'must be an ISO date-time or YYYY-MM-DD' });
  else if (!isStorableInstant(date)) errors.push({ path, message: `must be ${INSTANT_RANGE_TEXT}` });
  return date && isStorableInstant(date) ? date : undefined;
}

function decodeOffsetCursor(cursor: string, sort: string): number {
  return readCursor(
    cursor,
    (value) => (Array.isArray(value) && value.length === 2 && value[0] === sort ? cursorPositiveInteger(value[1]) : undefined),
    'is not a cursor this API issued for this sort',
  );
}
