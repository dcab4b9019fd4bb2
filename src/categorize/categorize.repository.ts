import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';
import { SqlPoolService } from '../infra/prisma/sql-pool.service';
import {
  ArgumentRangeDelta,
  BatchAggregates,
  DimensionRollupDelta,
  ErrorGroupDelta,
  HourlyErrorRollupDelta,
  HourlyRollupDelta,
  MistakeRollupDelta,
  UnknownTemplateDelta,
  VersionRollupDelta,
} from './batch-aggregates';
import { StoredEventRow } from './stored-event';
import { jsonWithin, MAX_STORED_ARGUMENTS_BYTES } from './stored-json';
import { unknownTemplateIdFor } from './unknown-template-id';

// Rows come in column form (see column-text.ts), so no key is cut here: two keys equal after a cut would make one
// INSERT ... ON CONFLICT DO UPDATE propose a row twice. Int counters saturate at 2^31 - 1 instead of overflowing:
// a full counter must not make every later batch of its tool fail.

// Hot path: events go in by COPY, after their ids were claimed in one statement; groups and rollups in one multi-row
// statement per table, each column as one array and unnested, so a statement has the same few parameters however many
// rows a batch holds (Postgres allows 65,535). All in one transaction per group of queued batches (see
// CategorizeService).

interface StoredEventId {
  id: string;
}

/**
 * Claims the ids the project has not stored yet and returns those it claimed: only their events are then copied in.
 *
 * events is partitioned by day on received_at, and a partitioned table's unique key must hold the partition key, so
 * events' own key (project_id, id, received_at) cannot see an id re-sent on a later day. The idempotency key lives in
 * event_ids (project_id, id), unpartitioned. The claim and the copy run in the caller's transaction, so a claim never
 * outlives a failed copy; a concurrent claim of the same id waits for the first transaction and then counts as a
 * duplicate. Retention deletes an event before its claim (src/retention), so an id is never free while its event is
 * still stored, and an event is never copied twice.
 */
function claimEventIds(projectId: string, rows: readonly StoredEventRow[]): Prisma.Sql {
  return Prisma.sql`
INSERT INTO event_ids (project_id, id, received_at)
SELECT ${projectId}::uuid, e ->> 0, (e ->> 1)::timestamptz
FROM json_array_elements(${JSON.stringify(rows.map((row) => [row.id, isoText(row.receivedAt)]))}::json) AS e
ON CONFLICT (project_id, id) DO NOTHING
RETURNING id`;
}

/**
 * The columns the events' COPY fills, in order, with each one's text in COPY's text format (issue 18: COPY cost
 * Postgres 25-29 µs of CPU per bench event where INSERT ... SELECT from one jsonb document cost 40-44, parsing the
 * document and inserting row by row with ON CONFLICT). NULL is `\N`; text (copyText) and JSON written out by
 * JSON.stringify (copyJson) are escaped. Text is sent well-formed: a lone surrogate is U+FFFD, as node-postgres sent
 * it. A float outside JSON (infinite, NaN) is written as float8 reads it ('Infinity', 'NaN').
 */
const EVENT_COLUMNS: ReadonlyArray<[name: string, text: (row: StoredEventRow) => string]> = [
  ['id', (row) => copyText(row.id)],
  ['tool', (row) => copyText(row.tool)],
  ['status', (row) => copyText(row.status)],
  ['arguments', (row) => copyJson(row.arguments, MAX_STORED_ARGUMENTS_BYTES)],
  ['result', (row) => copyJson(row.result)],
  ['error_type', (row) => copyText(row.errorType)],
  ['error_message', (row) => copyText(row.errorMessage)],
  ['error_stack', (row) => copyText(row.errorStack)],
  ['duration_ms', (row) => copyNumber(row.durationMs)],
  ['occurred_at', (row) => row.occurredAtText],
  ['received_at', (row) => isoText(row.receivedAt)],
  ['agent', (row) => copyText(row.agent)],
  ['model', (row) => copyText(row.model)],
  ['framework', (row) => copyText(row.framework)],
  ['session_id', (row) => copyText(row.sessionId)],
  ['trace_id', (row) => copyText(row.traceId)],
  ['run_id', (row) => copyText(row.runId)],
  ['tool_call_id', (row) => copyText(row.toolCallId)],
  ['description_version', (row) => copyNumber(row.descriptionVersion)],
  ['prompt', (row) => copyText(row.prompt)],
  ['metadata', (row) => copyJson(row.metadata)],
  ['category', (row) => copyText(row.diagnosis?.category ?? null)],
  ['subtype', (row) => copyText(row.diagnosis?.subtype ?? null)],
  ['argument_path', (row) => copyText(row.diagnosis?.argumentPath ?? null)],
  ['fingerprint', (row) => copyText(row.diagnosis?.fingerprint ?? null)],
  ['error_group_id', (row) => copyText(row.diagnosis?.errorGroupId ?? null)],
  ['evidence', (row) => copyText(row.diagnosis?.evidence ?? null)],
  ['wrong_argument', (row) => copyText(row.diagnosis?.wrongArgument ?? null)],
  ['intended_argument', (row) => copyText(row.diagnosis?.intendedArgument ?? null)],
  ['offending_value', (row) => copyNumber(row.diagnosis?.offendingValue ?? null)],
  ['array_for_scalar', (row) => copyBoolean(row.diagnosis?.arrayForScalar ?? false)],
  ['correction', (row) => copyCorrection(row.correction)],
  ['prevented', (row) => copyBoolean(row.prevented)],
  ['result_rule', (row) => copyText(row.resultRule)],
];

const COPY_EVENTS = `COPY events (project_id, ${EVENT_COLUMNS.map(([name]) => name).join(', ')}) FROM STDIN`;

/** One event as a line of COPY's text format; `project` is the project id as COPY text. */
function copyLine(project: string, row: StoredEventRow): string {
  let line = project;
  for (const [, text] of EVENT_COLUMNS) line += `\t${text(row)}`;
  return `${line}\n`;
}

/**
 * Events per piece of a COPY built at once; measured here, building one statement of 2,000 rows of ~2 KB blocked the
 * event loop for 50-130 ms (issue 18).
 */
const COPY_CHUNK_ROWS = 250;

/** The events' lines, COPY_CHUNK_ROWS at a time, each built only when the COPY stream asks for more. */
function* copyChunks(projectId: string, rows: readonly StoredEventRow[]): Generator<string> {
  const project = copyText(projectId);
  for (let start = 0; start < rows.length; start += COPY_CHUNK_ROWS) {
    let chunk = '';
    for (let index = start; index < Math.min(rows.length, start + COPY_CHUNK_ROWS); index++) chunk += copyLine(project, rows[index]);
    yield chunk;
  }
}

const COPY_NULL = '\\N';
// In COPY's text format a backslash starts an escape, and tab, newline and carriage return end a column or a row
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Text as one column of COPY's text format: escaped, and well-formed (a lone surrogate as U+FFFD). */
function copyText(text: string | null): string {
  if (text === null) return COPY_NULL;
  const wellFormed = text.isWellFormed() ? text : text.toWellFormed();
  return COPY_SPECIAL.test(wellFormed) ? wellFormed.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : wellFormed;
}

/**
 * A JSON value (arguments, result, metadata, correction) as one jsonb column; JSON null is SQL NULL, as before. With
 * `maxBytes`, a longer value is stored as a marked preview.
 */
function copyJson(value: unknown, maxBytes?: number): string {
  if (value === null || value === undefined) return COPY_NULL;
  const json = maxBytes === undefined ? JSON.stringify(value) : jsonWithin(JSON.stringify(value), maxBytes);
  // JSON.stringify escapes every control character, so a backslash is the only character COPY would read specially
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

/** A guard's correction holds two sets of arguments: each is bounded as stored arguments are. */
function copyCorrection(correction: StoredEventRow['correction']): string {
  if (correction === null) return COPY_NULL;
  const bounded = (value: unknown): unknown => {
    const json = JSON.stringify(value) ?? 'null';
    const within = jsonWithin(json, MAX_STORED_ARGUMENTS_BYTES);
    return within === json ? value : JSON.parse(within);
  };
  return copyJson({ original: bounded(correction.original), corrected: bounded(correction.corrected), kinds: correction.kinds });
}

const copyNumber = (value: number | null) => (value === null ? COPY_NULL : String(value));

const copyBoolean = (value: boolean) => (value ? 't' : 'f');

// The rows of a batch share one receivedAt, formatted once.
let lastIso: { date: Date; text: string } | null = null;
function isoText(date: Date): string {
  if (lastIso?.date !== date) lastIso = { date, text: date.toISOString() };
  return lastIso.text;
}

function upsertErrorGroups(projectId: string, groups: readonly ErrorGroupDelta[]): Prisma.Sql | null {
  if (groups.length === 0) return null;
  const column = <T>(pick: (group: ErrorGroupDelta) => T) => groups.map(pick);
  return Prisma.sql`
INSERT INTO error_groups AS g (id, project_id, fingerprint, tool, category, subtype, argument_path, message_template,
  count, first_seen, last_seen, sample_event_ids, intended_argument, array_for_scalar_count, min_offending_value,
  max_offending_value)
SELECT u.id, ${projectId}::uuid, u.fingerprint, u.tool, u.category, u.subtype, u.argument_path, u.message_template,
  u.count, u.first_seen, u.last_seen, ARRAY(SELECT jsonb_array_elements_text(u.samples)), u.intended, u.array_count,
  u.min_value, u.max_value
FROM unnest(
  ${column((g) => g.id)}::uuid[],
  ${column((g) => g.fingerprint)}::text[],
  ${column((g) => g.tool)}::text[],
  ${column((g) => g.category)}::text[],
  ${column((g) => g.subtype)}::text[],
  ${column((g) => g.argumentPath)}::text[],
  ${column((g) => g.messageTemplate)}::text[],
  ${column((g) => g.count)}::bigint[],
  ${column((g) => g.firstSeen.toISOString())}::timestamptz[],
  ${column((g) => g.lastSeen.toISOString())}::timestamptz[],
  ${column((g) => JSON.stringify(g.sampleEventIds))}::jsonb[],
  ${column((g) => g.intendedArgument)}::text[],
  ${column((g) => g.arrayForScalarCount)}::bigint[],
  ${column((g) => g.minOffendingValue)}::float8[],
  ${column((g) => g.maxOffendingValue)}::float8[]
) AS u(id, fingerprint, tool, category, subtype, argument_path, message_template, count, first_seen, last_seen, samples,
  intended, array_count, min_value, max_value)
ON CONFLICT (project_id, fingerprint) DO UPDATE SET
  count = g.count + excluded.count,
  first_seen = LEAST(g.first_seen, excluded.first_seen),
  last_seen = GREATEST(g.last_seen, excluded.last_seen),
  sample_event_ids = (COALESCE(g.sample_event_ids, '{}') || excluded.sample_event_ids)[1:5],
  intended_argument = COALESCE(g.intended_argument, excluded.intended_argument),
  array_for_scalar_count = g.array_for_scalar_count + excluded.array_for_scalar_count,
  min_offending_value = LEAST(g.min_offending_value, excluded.min_offending_value),
  max_offending_value = GREATEST(g.max_offending_value, excluded.max_offending_value),
  -- a group a human resolved that occurs again has regressed (Sentry's lifecycle)
  status = CASE WHEN g.status = 'resolved' THEN 'regressed' ELSE g.status END`;
}

function upsertHourlyRollups(projectId: string, rollups: readonly HourlyRollupDelta[]): Prisma.Sql | null {
  if (rollups.length === 0) return null;
  const column = <T>(pick: (rollup: HourlyRollupDelta) => T) => rollups.map(pick);
  return Prisma.sql`
INSERT INTO hourly_rollups AS r (project_id, tool, hour, calls, errors, latency_count, latency_sum_ms, latency_buckets)
SELECT ${projectId}::uuid, u.tool, u.hour, u.calls, u.errors, u.latency_count, u.latency_sum_ms,
  ARRAY(SELECT (jsonb_array_elements_text(u.buckets))::int)
FROM unnest(
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.hour.toISOString())}::timestamptz[],
  ${column((r) => r.calls)}::int[],
  ${column((r) => r.errors)}::int[],
  ${column((r) => r.latencyCount)}::int[],
  ${column((r) => r.latencySumMs)}::float8[],
  ${column((r) => JSON.stringify(r.latencyBuckets))}::jsonb[]
) AS u(tool, hour, calls, errors, latency_count, latency_sum_ms, buckets)
ON CONFLICT (project_id, tool, hour) DO UPDATE SET
  calls = LEAST(r.calls::bigint + excluded.calls, 2147483647),
  errors = LEAST(r.errors::bigint + excluded.errors, 2147483647),
  latency_count = LEAST(r.latency_count::bigint + excluded.latency_count, 2147483647),
  latency_sum_ms = r.latency_sum_ms + excluded.latency_sum_ms,
  latency_buckets = ARRAY(
    SELECT LEAST(COALESCE(b.old, 0)::bigint + COALESCE(b.new, 0), 2147483647)
    FROM unnest(r.latency_buckets, excluded.latency_buckets) WITH ORDINALITY AS b(old, new, n) ORDER BY b.n)`;
}

function upsertHourlyErrorRollups(projectId: string, rollups: readonly HourlyErrorRollupDelta[]): Prisma.Sql | null {
  if (rollups.length === 0) return null;
  const column = <T>(pick: (rollup: HourlyErrorRollupDelta) => T) => rollups.map(pick);
  return Prisma.sql`
INSERT INTO hourly_error_rollups AS r (project_id, tool, hour, category, subtype, count)
SELECT ${projectId}::uuid, u.tool, u.hour, u.category, u.subtype, u.count
FROM unnest(
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.hour.toISOString())}::timestamptz[],
  ${column((r) => r.category)}::text[],
  ${column((r) => r.subtype)}::text[],
  ${column((r) => r.count)}::int[]
) AS u(tool, hour, category, subtype, count)
ON CONFLICT (project_id, tool, hour, category, subtype) DO UPDATE SET count = LEAST(r.count::bigint + excluded.count, 2147483647)`;
}

function upsertArgumentRanges(projectId: string, ranges: readonly ArgumentRangeDelta[]): Prisma.Sql | null {
  if (ranges.length === 0) return null;
  const column = <T>(pick: (range: ArgumentRangeDelta) => T) => ranges.map(pick);
  return Prisma.sql`
INSERT INTO argument_value_ranges AS r (project_id, tool, argument_path, success_count, min_value, max_value)
SELECT ${projectId}::uuid, u.tool, u.argument_path, u.success_count, u.min_value, u.max_value
FROM unnest(
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.argumentPath)}::text[],
  ${column((r) => r.successCount)}::bigint[],
  ${column((r) => r.minValue)}::float8[],
  ${column((r) => r.maxValue)}::float8[]
) AS u(tool, argument_path, success_count, min_value, max_value)
ON CONFLICT (project_id, tool, argument_path) DO UPDATE SET
  success_count = r.success_count + excluded.success_count,
  min_value = LEAST(r.min_value, excluded.min_value),
  max_value = GREATEST(r.max_value, excluded.max_value)`;
}

function upsertVersionRollups(projectId: string, rollups: readonly VersionRollupDelta[]): Prisma.Sql | null {
  if (rollups.length === 0) return null;
  const column = <T>(pick: (rollup: VersionRollupDelta) => T) => rollups.map(pick);
  return Prisma.sql`
INSERT INTO daily_version_rollups AS r (project_id, tool, day, description_version, calls, errors, corrected, prevented)
SELECT ${projectId}::uuid, u.tool, u.day, u.version, u.calls, u.errors, u.corrected, u.prevented
FROM unnest(
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.day)}::date[],
  ${column((r) => r.descriptionVersion)}::int[],
  ${column((r) => r.calls)}::int[],
  ${column((r) => r.errors)}::int[],
  ${column((r) => r.corrected)}::int[],
  ${column((r) => r.prevented)}::int[]
) AS u(tool, day, version, calls, errors, corrected, prevented)
ON CONFLICT (project_id, tool, day, description_version) DO UPDATE SET
  calls = LEAST(r.calls::bigint + excluded.calls, 2147483647),
  errors = LEAST(r.errors::bigint + excluded.errors, 2147483647),
  corrected = LEAST(r.corrected::bigint + excluded.corrected, 2147483647),
  prevented = LEAST(r.prevented::bigint + excluded.prevented, 2147483647)`;
}

function upsertMistakeRollups(projectId: string, rollups: readonly MistakeRollupDelta[]): Prisma.Sql | null {
  if (rollups.length === 0) return null;
  const column = <T>(pick: (rollup: MistakeRollupDelta) => T) => rollups.map(pick);
  return Prisma.sql`
INSERT INTO daily_mistake_rollups AS r (project_id, tool, day, description_version, category, subtype, argument_path, count, prevented)
SELECT ${projectId}::uuid, u.tool, u.day, u.version, u.category, u.subtype, u.argument_path, u.count, u.prevented
FROM unnest(
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.day)}::date[],
  ${column((r) => r.descriptionVersion)}::int[],
  ${column((r) => r.category)}::text[],
  ${column((r) => r.subtype)}::text[],
  ${column((r) => r.argumentPath)}::text[],
  ${column((r) => r.count)}::int[],
  ${column((r) => r.prevented)}::int[]
) AS u(tool, day, version, category, subtype, argument_path, count, prevented)
ON CONFLICT (project_id, tool, day, description_version, category, subtype, argument_path) DO UPDATE SET
  count = LEAST(r.count::bigint + excluded.count, 2147483647),
  prevented = LEAST(r.prevented::bigint + excluded.prevented, 2147483647)`;
}

/** Per-category counts add key by key; counters saturate like the others. */
function upsertDimensionRollups(projectId: string, rollups: readonly DimensionRollupDelta[]): Prisma.Sql | null {
  if (rollups.length === 0) return null;
  const column = <T>(pick: (rollup: DimensionRollupDelta) => T) => rollups.map(pick);
  return Prisma.sql`
INSERT INTO hourly_dimension_rollups AS r (project_id, dimension, value, tool, hour, calls, errors, error_categories)
SELECT ${projectId}::uuid, u.*
FROM unnest(
  ${column((r) => r.dimension)}::text[],
  ${column((r) => r.value)}::text[],
  ${column((r) => r.tool)}::text[],
  ${column((r) => r.hour.toISOString())}::timestamptz[],
  ${column((r) => r.calls)}::int[],
  ${column((r) => r.errors)}::int[],
  ${column((r) => JSON.stringify(r.errorCategories))}::jsonb[]
) AS u(dimension, value, tool, hour, calls, errors, error_categories)
ON CONFLICT (project_id, dimension, hour, value, tool) DO UPDATE SET
  calls = LEAST(r.calls::bigint + excluded.calls, 2147483647),
  errors = LEAST(r.errors::bigint + excluded.errors, 2147483647),
  error_categories = (
    SELECT COALESCE(jsonb_object_agg(k, LEAST(COALESCE((r.error_categories ->> k)::bigint, 0) + COALESCE((excluded.error_categories ->> k)::bigint, 0), 2147483647)), '{}')
    FROM (SELECT jsonb_object_keys(r.error_categories) UNION SELECT jsonb_object_keys(excluded.error_categories)) AS keys(k))`;
}

/** Templates a project's unknown lane holds at most: past it, new templates are not recorded (known ones still count). */
export const MAX_UNKNOWN_TEMPLATES_PER_PROJECT = 10_000;

function upsertUnknownTemplates(projectId: string, templates: readonly UnknownTemplateDelta[]): Prisma.Sql | null {
  if (templates.length === 0) return null;
  const column = <T>(pick: (template: UnknownTemplateDelta) => T) => templates.map(pick);
  return Prisma.sql`
INSERT INTO unknown_templates AS t (project_id, id, template, count, first_seen, last_seen, sample_event_ids, example_tool,
  example_error_type, example_message)
SELECT ${projectId}::uuid, u.id, u.template, u.count, u.first_seen, u.last_seen, ARRAY(SELECT jsonb_array_elements_text(u.samples)),
  u.tool, u.error_type, u.message
FROM unnest(
  ${column((t) => unknownTemplateIdFor(projectId, t.template))}::uuid[],
  ${column((t) => t.template)}::text[],
  ${column((t) => t.count)}::bigint[],
  ${column((t) => t.firstSeen.toISOString())}::timestamptz[],
  ${column((t) => t.lastSeen.toISOString())}::timestamptz[],
  ${column((t) => JSON.stringify(t.sampleEventIds))}::jsonb[],
  ${column((t) => t.exampleTool)}::text[],
  ${column((t) => t.exampleErrorType)}::text[],
  ${column((t) => t.exampleMessage)}::text[]
) AS u(id, template, count, first_seen, last_seen, samples, tool, error_type, message)
WHERE (SELECT count(*) FROM unknown_templates WHERE project_id = ${projectId}::uuid) < ${MAX_UNKNOWN_TEMPLATES_PER_PROJECT}
  OR EXISTS (SELECT 1 FROM unknown_templates k WHERE k.project_id = ${projectId}::uuid AND k.id = u.id)
ON CONFLICT (project_id, id) DO UPDATE SET
  count = t.count + excluded.count,
  first_seen = LEAST(t.first_seen, excluded.first_seen),
  last_seen = GREATEST(t.last_seen, excluded.last_seen),
  sample_event_ids = (COALESCE(t.sample_event_ids, '{}') || excluded.sample_event_ids)[1:5]`;
}

/**
 * The group and rollup rows are hot (every batch of the hour touches the same ones) and stay locked until COMMIT,
 * so concurrent batches queue behind each other from the first upsert on. Sending all upserts as one statement
 * (data-modifying CTEs) makes that locked window one round trip instead of six.
 */
function inOneStatement(upserts: readonly Prisma.Sql[]): Prisma.Sql {
  const steps = upserts.map((upsert, index) => Prisma.sql`${Prisma.raw(`upsert${index}`)} AS (${upsert})`);
  return Prisma.sql`WITH ${Prisma.join(steps, ',\n')}\nSELECT 1`;
}

@Injectable()
export class CategorizeRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sqlPool: SqlPoolService,
  ) {}

  /**
   * Inserts the events that are not stored yet and folds only those into groups and rollups, atomically: a retried
   * or duplicated batch changes nothing twice. Returns how many events were new.
   */
  async writeBatch(
    projectId: string,
    rows: readonly StoredEventRow[],
    aggregate: (inserted: readonly StoredEventRow[]) => BatchAggregates,
  ): Promise<number> {
    const [inserted] = await this.writeGroup([{ projectId, rows }], aggregate);
    return inserted.size;
  }

  /**
   * writeBatch for the events of many queued batches (of one or more projects) in one transaction: every event is
   * inserted first, then each project's groups and rollups are upserted once with the sum of all its new events, so a
   * hot row is locked once per group instead of once per batch. A part's rows must have distinct ids. Returns, per
   * part, the ids of the events it inserted.
   */
  async writeGroup(
    parts: ReadonlyArray<{ projectId: string; rows: readonly StoredEventRow[] }>,
    aggregate: (inserted: readonly StoredEventRow[]) => BatchAggregates,
  ): Promise<Set<string>[]> {
    const insertedIds = parts.map(() => new Set<string>());
    // projects in one order, so two groups holding the same projects lock their rows in the same order
    const order = parts.map((_, index) => index).sort((a, b) => (parts[a].projectId < parts[b].projectId ? -1 : 1));
    const writing = order.filter((index) => parts[index].rows.length > 0);
    if (writing.length === 0) return insertedIds;
    await this.sqlPool.transaction(async (tx) => {
      const upserts: Prisma.Sql[] = [];
      for (const index of writing) {
        const { projectId, rows } = parts[index];
        const claimed = insertedIds[index];
        for (const { id } of await tx.query<StoredEventId>(claimEventIds(projectId, rows))) claimed.add(id);
        if (claimed.size === 0) continue;
        const fresh = claimed.size === rows.length ? rows : rows.filter((row) => claimed.has(row.id));
        await tx.copyIn(COPY_EVENTS, copyChunks(projectId, fresh));
        const aggregates = aggregate(fresh);
        upserts.push(
          ...[
            upsertErrorGroups(projectId, aggregates.groups),
            upsertHourlyRollups(projectId, aggregates.hourly),
            upsertHourlyErrorRollups(projectId, aggregates.hourlyErrors),
            upsertArgumentRanges(projectId, aggregates.argumentRanges),
            upsertVersionRollups(projectId, aggregates.versions),
            upsertMistakeRollups(projectId, aggregates.mistakes),
            upsertDimensionRollups(projectId, aggregates.dimensions),
            upsertUnknownTemplates(projectId, aggregates.unknownTemplates),
          ].filter((upsert): upsert is Prisma.Sql => upsert !== null),
        );
      }
      if (upserts.length > 0) await tx.execute(inOneStatement(upserts));
    });
    return insertedIds;
  }

  /** Which of these event ids (in column form) the project has stored: their claims, one index probe each. */
  async findStoredEventIds(projectId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.$queryRaw<StoredEventId[]>`
      SELECT id FROM event_ids WHERE project_id = ${projectId}::uuid AND id = ANY(${ids}::text[])`;
    return new Set(rows.map((row) => row.id));
  }
}
