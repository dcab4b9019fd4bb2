import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import {
  ArgumentRangeDelta,
  ErrorGroupDelta,
  HourlyErrorRollupDelta,
  HourlyRollupDelta,
  MistakeRollupDelta,
  VersionRollupDelta,
} from './batch-aggregates';
import { StoredEventRow } from './stored-event';

type Transaction = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];

/** One upsert statement ($1 is the project id) and its parameters from $2 on. */
type Upsert = [sql: string, params: unknown[]];

export interface BatchAggregates {
  groups: ErrorGroupDelta[];
  hourly: HourlyRollupDelta[];
  hourlyErrors: HourlyErrorRollupDelta[];
  argumentRanges: ArgumentRangeDelta[];
  versions: VersionRollupDelta[];
  mistakes: MistakeRollupDelta[];
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

// Rows come in column form (see column-text.ts), so no key is cut here: two keys equal after a cut would make one
// INSERT ... ON CONFLICT DO UPDATE propose a row twice. Int counters saturate at 2^31 - 1 instead of overflowing:
// a full counter must not make every later batch of its tool fail.

// Hot path: one multi-row statement per table (unnest of column arrays), all in one transaction per batch.
const INSERT_EVENTS = `
INSERT INTO events (project_id, id, tool, status, arguments, result, error_type, error_message, error_stack,
  duration_ms, occurred_at, received_at, agent, model, framework, session_id, trace_id, run_id, tool_call_id,
  description_version, prompt, metadata, category, subtype, argument_path, fingerprint, error_group_id, evidence,
  wrong_argument, intended_argument, offending_value, array_for_scalar)
SELECT $1::uuid, u.* FROM unnest(
  $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[], $7::text[], $8::text[], $9::text[],
  $10::float8[], $11::timestamptz[], $12::timestamptz[], $13::text[], $14::text[], $15::text[], $16::text[],
  $17::text[], $18::text[], $19::text[], $20::int[], $21::text[], $22::jsonb[], $23::text[], $24::text[],
  $25::text[], $26::text[], $27::uuid[], $28::text[], $29::text[], $30::text[], $31::float8[], $32::boolean[]
) AS u
ON CONFLICT (project_id, id) DO NOTHING
RETURNING id`;

const UPSERT_ERROR_GROUPS = `
INSERT INTO error_groups AS g (id, project_id, fingerprint, tool, category, subtype, argument_path, message_template,
  count, first_seen, last_seen, sample_event_ids, intended_argument, array_for_scalar_count, min_offending_value,
  max_offending_value)
SELECT u.id, $1::uuid, u.fingerprint, u.tool, u.category, u.subtype, u.argument_path, u.message_template, u.count,
  u.first_seen, u.last_seen, ARRAY(SELECT jsonb_array_elements_text(u.samples)), u.intended, u.array_count, u.min_value,
  u.max_value
FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[],
  $10::timestamptz[], $11::timestamptz[], $12::jsonb[], $13::text[], $14::bigint[], $15::float8[], $16::float8[])
  AS u(id, fingerprint, tool, category, subtype, argument_path, message_template, count, first_seen, last_seen, samples,
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

const UPSERT_HOURLY_ROLLUPS = `
INSERT INTO hourly_rollups AS r (project_id, tool, hour, calls, errors, latency_count, latency_sum_ms, latency_buckets)
SELECT $1::uuid, u.tool, u.hour, u.calls, u.errors, u.latency_count, u.latency_sum_ms,
  ARRAY(SELECT (jsonb_array_elements_text(u.buckets))::int)
FROM unnest($2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::float8[], $8::jsonb[])
  AS u(tool, hour, calls, errors, latency_count, latency_sum_ms, buckets)
ON CONFLICT (project_id, tool, hour) DO UPDATE SET
  calls = LEAST(r.calls::bigint + excluded.calls, 2147483647),
  errors = LEAST(r.errors::bigint + excluded.errors, 2147483647),
  latency_count = LEAST(r.latency_count::bigint + excluded.latency_count, 2147483647),
  latency_sum_ms = r.latency_sum_ms + excluded.latency_sum_ms,
  latency_buckets = ARRAY(
    SELECT LEAST(COALESCE(b.old, 0)::bigint + COALESCE(b.new, 0), 2147483647)
    FROM unnest(r.latency_buckets, excluded.latency_buckets) WITH ORDINALITY AS b(old, new, n) ORDER BY b.n)`;

const UPSERT_HOURLY_ERROR_ROLLUPS = `
INSERT INTO hourly_error_rollups AS r (project_id, tool, hour, category, subtype, count)
SELECT $1::uuid, u.tool, u.hour, u.category, u.subtype, u.count
FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::int[]) AS u(tool, hour, category, subtype, count)
ON CONFLICT (project_id, tool, hour, category, subtype) DO UPDATE SET count = LEAST(r.count::bigint + excluded.count, 2147483647)`;

const UPSERT_ARGUMENT_RANGES = `
INSERT INTO argument_value_ranges AS r (project_id, tool, argument_path, success_count, min_value, max_value)
SELECT $1::uuid, u.tool, u.argument_path, u.success_count, u.min_value, u.max_value
FROM unnest($2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[])
  AS u(tool, argument_path, success_count, min_value, max_value)
ON CONFLICT (project_id, tool, argument_path) DO UPDATE SET
  success_count = r.success_count + excluded.success_count,
  min_value = LEAST(r.min_value, excluded.min_value),
  max_value = GREATEST(r.max_value, excluded.max_value)`;

const UPSERT_VERSION_ROLLUPS = `
INSERT INTO daily_version_rollups AS r (project_id, tool, day, description_version, calls, errors)
SELECT $1::uuid, u.tool, u.day, u.version, u.calls, u.errors
FROM unnest($2::text[], $3::date[], $4::int[], $5::int[], $6::int[]) AS u(tool, day, version, calls, errors)
ON CONFLICT (project_id, tool, day, description_version) DO UPDATE SET
  calls = LEAST(r.calls::bigint + excluded.calls, 2147483647),
  errors = LEAST(r.errors::bigint + excluded.errors, 2147483647)`;

const UPSERT_MISTAKE_ROLLUPS = `
INSERT INTO daily_mistake_rollups AS r (project_id, tool, day, description_version, category, subtype, argument_path, count)
SELECT $1::uuid, u.tool, u.day, u.version, u.category, u.subtype, u.argument_path, u.count
FROM unnest($2::text[], $3::date[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[])
  AS u(tool, day, version, category, subtype, argument_path, count)
ON CONFLICT (project_id, tool, day, description_version, category, subtype, argument_path) DO UPDATE SET
  count = LEAST(r.count::bigint + excluded.count, 2147483647)`;

@Injectable()
export class CategorizeRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Inserts the events that are not stored yet and folds only those into groups and rollups, atomically: a retried
   * or duplicated batch changes nothing twice. Returns how many events were new.
   */
  async writeBatch(
    projectId: string,
    rows: readonly StoredEventRow[],
    aggregate: (inserted: StoredEventRow[]) => BatchAggregates,
  ): Promise<number> {
    if (rows.length === 0) return 0;
    return this.prisma.$transaction(
      async (tx) => {
        const insertedIds = await this.insertEvents(tx, projectId, rows);
        if (insertedIds.size === 0) return 0;
        const inserted = rows.filter((row) => insertedIds.has(row.id));
        const aggregates = aggregate(inserted);
        await this.upsertAggregates(tx, projectId, [
          this.upsertErrorGroupsStatement(aggregates.groups),
          this.upsertHourlyRollupsStatement(aggregates.hourly),
          this.upsertHourlyErrorRollupsStatement(aggregates.hourlyErrors),
          this.upsertArgumentRangesStatement(aggregates.argumentRanges),
          this.upsertVersionRollupsStatement(aggregates.versions),
          this.upsertMistakeRollupsStatement(aggregates.mistakes),
        ]);
        return inserted.length;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  /** Which of these event ids (in column form) the project has stored. */
  async findStoredEventIds(projectId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string }>>(
      'SELECT id FROM events WHERE project_id = $1::uuid AND id = ANY($2::text[])',
      projectId,
      ids,
    );
    return new Set(rows.map((row) => row.id));
  }

  private async insertEvents(tx: Transaction, projectId: string, rows: readonly StoredEventRow[]): Promise<Set<string>> {
    const column = <T>(pick: (row: StoredEventRow) => T) => rows.map(pick);
    const inserted = await tx.$queryRawUnsafe<Array<{ id: string }>>(
      INSERT_EVENTS,
      projectId,
      column((r) => r.id),
      column((r) => r.tool),
      column((r) => r.status),
      column((r) => json(r.arguments)),
      column((r) => json(r.result)),
      column((r) => r.errorType),
      column((r) => r.errorMessage),
      column((r) => r.errorStack),
      column((r) => r.durationMs),
      column((r) => r.occurredAt.toISOString()),
      column((r) => r.receivedAt.toISOString()),
      column((r) => r.agent),
      column((r) => r.model),
      column((r) => r.framework),
      column((r) => r.sessionId),
      column((r) => r.traceId),
      column((r) => r.runId),
      column((r) => r.toolCallId),
      column((r) => r.descriptionVersion),
      column((r) => r.prompt),
      column((r) => json(r.metadata)),
      column((r) => r.diagnosis?.category ?? null),
      column((r) => r.diagnosis?.subtype ?? null),
      column((r) => r.diagnosis?.argumentPath ?? null),
      column((r) => r.diagnosis?.fingerprint ?? null),
      column((r) => r.diagnosis?.errorGroupId ?? null),
      column((r) => r.diagnosis?.evidence ?? null),
      column((r) => r.diagnosis?.wrongArgument ?? null),
      column((r) => r.diagnosis?.intendedArgument ?? null),
      column((r) => r.diagnosis?.offendingValue ?? null),
      column((r) => r.diagnosis?.arrayForScalar ?? false),
    );
    return new Set(inserted.map((row) => row.id));
  }

  /**
   * The group and rollup rows are hot (every batch of the hour touches the same ones) and stay locked until COMMIT,
   * so concurrent batches queue behind each other from the first upsert on. Sending all upserts as one statement
   * (data-modifying CTEs) makes that locked window one round trip instead of six.
   */
  private async upsertAggregates(tx: Transaction, projectId: string, upserts: ReadonlyArray<Upsert | null>) {
    const present = upserts.filter((upsert): upsert is Upsert => upsert !== null);
    if (present.length === 0) return;
    const params: unknown[] = [projectId];
    const statements = present.map(([sql, values], index) => {
      const offset = params.length - 1;
      params.push(...values);
      const renumbered = sql.replace(/\$(\d+)/g, (_, n: string) => (n === '1' ? '$1' : `$${Number(n) + offset}`));
      return `upsert${index} AS (${renumbered})`;
    });
    await tx.$executeRawUnsafe(`WITH ${statements.join(',\n')}\nSELECT 1`, ...params);
  }

  private upsertErrorGroupsStatement(groups: readonly ErrorGroupDelta[]): Upsert | null {
    if (groups.length === 0) return null;
    return [
      UPSERT_ERROR_GROUPS,
      [
        groups.map((g) => g.id),
        groups.map((g) => g.fingerprint),
        groups.map((g) => g.tool),
        groups.map((g) => g.category),
        groups.map((g) => g.subtype),
        groups.map((g) => g.argumentPath),
        groups.map((g) => g.messageTemplate),
        groups.map((g) => g.count),
        groups.map((g) => g.firstSeen.toISOString()),
        groups.map((g) => g.lastSeen.toISOString()),
        groups.map((g) => JSON.stringify(g.sampleEventIds)),
        groups.map((g) => g.intendedArgument),
        groups.map((g) => g.arrayForScalarCount),
        groups.map((g) => g.minOffendingValue),
        groups.map((g) => g.maxOffendingValue),
      ],
    ];
  }

  private upsertArgumentRangesStatement(ranges: readonly ArgumentRangeDelta[]): Upsert | null {
    if (ranges.length === 0) return null;
    return [
      UPSERT_ARGUMENT_RANGES,
      [
        ranges.map((r) => r.tool),
        ranges.map((r) => r.argumentPath),
        ranges.map((r) => r.successCount),
        ranges.map((r) => r.minValue),
        ranges.map((r) => r.maxValue),
      ],
    ];
  }

  private upsertVersionRollupsStatement(rollups: readonly VersionRollupDelta[]): Upsert | null {
    if (rollups.length === 0) return null;
    return [
      UPSERT_VERSION_ROLLUPS,
      [
        rollups.map((r) => r.tool),
        rollups.map((r) => r.day),
        rollups.map((r) => r.descriptionVersion),
        rollups.map((r) => r.calls),
        rollups.map((r) => r.errors),
      ],
    ];
  }

  private upsertMistakeRollupsStatement(rollups: readonly MistakeRollupDelta[]): Upsert | null {
    if (rollups.length === 0) return null;
    return [
      UPSERT_MISTAKE_ROLLUPS,
      [
        rollups.map((r) => r.tool),
        rollups.map((r) => r.day),
        rollups.map((r) => r.descriptionVersion),
        rollups.map((r) => r.category),
        rollups.map((r) => r.subtype),
        rollups.map((r) => r.argumentPath),
        rollups.map((r) => r.count),
      ],
    ];
  }

  private upsertHourlyRollupsStatement(rollups: readonly HourlyRollupDelta[]): Upsert | null {
    if (rollups.length === 0) return null;
    return [
      UPSERT_HOURLY_ROLLUPS,
      [
        rollups.map((r) => r.tool),
        rollups.map((r) => r.hour.toISOString()),
        rollups.map((r) => r.calls),
        rollups.map((r) => r.errors),
        rollups.map((r) => r.latencyCount),
        rollups.map((r) => r.latencySumMs),
        rollups.map((r) => JSON.stringify(r.latencyBuckets)),
      ],
    ];
  }

  private upsertHourlyErrorRollupsStatement(rollups: readonly HourlyErrorRollupDelta[]): Upsert | null {
    if (rollups.length === 0) return null;
    return [
      UPSERT_HOURLY_ERROR_ROLLUPS,
      [
        rollups.map((r) => r.tool),
        rollups.map((r) => r.hour.toISOString()),
        rollups.map((r) => r.category),
        rollups.map((r) => r.subtype),
        rollups.map((r) => r.count),
      ],
    ];
  }
}
