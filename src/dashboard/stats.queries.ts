import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { LATENCY_BUCKET_COUNT } from '../diagnosis';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import { StatsRange, uncoveredIntervals } from './stats-range';
import { UsageRow } from './stats-series';

export type Dimension = 'agent' | 'model';

/** The calls of one agent or one model (hourly_dimension_rollups' dimension and value). */
export interface DimensionFilter {
  dimension: Dimension;
  value: string;
}

/** Calls, errors and errors per category of one agent or model over a range; name null for calls that did not say. */
export interface DimensionUsageRow {
  name: string | null;
  calls: number;
  errors: number;
  errorsByCategory: Record<string, number>;
}

/**
 * Reads the rollups the worker and the nightly job maintain; never the events table. Cost grows with tools x buckets:
 * daily_tool_stats by its (project_id, day) index (or its (project_id, tool, day) key for one tool), hourly_rollups and
 * hourly_error_rollups by (project_id, hour) (or their (project_id, tool, hour, ...) keys for one tool),
 * hourly_dimension_rollups by its (project_id, dimension, hour, ...) key. On the read replica when there is one.
 */
@Injectable()
export class StatsQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /**
   * Usage per tool and day (bucket=day) or hour (bucket=hour) in the range. Day buckets come from daily_tool_stats for
   * the days the nightly job computed after they ended; other days (today, days not run yet, a day run before it was
   * over) are summed from the hourly rollups.
   */
  async findUsage(projectId: string, range: StatsRange, tool?: string, only?: DimensionFilter): Promise<UsageRow[]> {
    if (only) return this.findDimensionUsage(projectId, range, only, tool);
    if (range.bucket === 'hour') return this.findHourlyUsage(projectId, [range], 'hour', tool);
    const rows = await this.db.read((prisma) =>
      prisma.$queryRaw<Array<{ rows: string | null }>>(selectCompleteDays(projectId, range, tool)),
    );
    const complete = JSON.parse(rows[0]?.rows ?? '[]') as CompleteDayRow[];
    const covered = new Set<number>();
    const usage: UsageRow[] = [];
    for (const [dayTool, dayMs, calls, errors, latencyBuckets, errorsByCategory] of complete) {
      covered.add(dayMs);
      usage.push({ tool: dayTool, start: new Date(dayMs), calls, errors, latencyBuckets: latencyBuckets ?? [], errorsByCategory });
    }
    const gaps = uncoveredIntervals(range, covered);
    return gaps.length > 0 ? usage.concat(await this.findHourlyUsage(projectId, gaps, 'day', tool)) : usage;
  }

  /**
   * Sums hourly rollups per tool and hour or day in SQL: a month of a busy project is tens of thousands of hourly rows,
   * and folding them here (latency histograms element by element) keeps what crosses the wire to tools x buckets.
   */
  private async findHourlyUsage(
    projectId: string,
    intervals: ReadonlyArray<{ from: Date; to: Date }>,
    unit: 'hour' | 'day',
    tool?: string,
  ): Promise<UsageRow[]> {
    const window: RollupWindow = {
      projectId,
      tool: tool ?? null,
      froms: intervals.map((i) => i.from.toISOString()),
      tos: intervals.map((i) => i.to.toISOString()),
      unit,
    };
    const [usage, errors] = await Promise.all([
      this.db.read((prisma) => prisma.$queryRaw<HourlyUsageRow[]>(selectHourlyUsage(window))),
      this.db.read((prisma) => prisma.$queryRaw<HourlyErrorsRow[]>(selectHourlyErrors(window))),
    ]);
    const byKey = new Map<string, UsageRow & { errorsByCategory: Record<string, number> }>();
    for (const row of usage) {
      byKey.set(`${row.tool}\u0000${row.start.getTime()}`, {
        tool: row.tool,
        start: row.start,
        calls: row.calls,
        errors: row.errors,
        latencyBuckets: row.latency_buckets ?? [],
        errorsByCategory: {},
      });
    }
    for (const e of errors) {
      const row = byKey.get(`${e.tool}\u0000${e.start.getTime()}`);
      if (row) row.errorsByCategory[e.category] = (row.errorsByCategory[e.category] ?? 0) + e.count;
    }
    return [...byKey.values()];
  }

  /**
   * Usage of one agent or model per tool and bucket, from hourly_dimension_rollups (the only rollup kept by agent and
   * model, for 400 days like the others). It holds no latency histogram, so these rows give no percentiles.
   */
  private async findDimensionUsage(projectId: string, range: StatsRange, only: DimensionFilter, tool?: string): Promise<UsageRow[]> {
    const slice = Prisma.sql`${dimensionSlice(projectId, only.dimension, range, tool)} AND r.value = ${only.value}::text`;
    const [usage, errors] = await Promise.all([
      this.db.read((prisma) =>
        prisma.$queryRaw<Array<{ tool: string; start: Date; calls: number; errors: number }>>(Prisma.sql`
SELECT tool, date_trunc(${range.bucket}, hour, 'UTC') AS start, sum(calls)::int AS calls, sum(errors)::int AS errors
FROM hourly_dimension_rollups r WHERE ${slice} GROUP BY 1, 2`),
      ),
      this.db.read((prisma) =>
        prisma.$queryRaw<HourlyErrorsRow[]>(Prisma.sql`
SELECT r.tool, date_trunc(${range.bucket}, r.hour, 'UTC') AS start, c.key AS category, sum(c.value::int)::int AS count
FROM hourly_dimension_rollups r, jsonb_each_text(r.error_categories) c WHERE ${slice} GROUP BY 1, 2, 3`),
      ),
    ]);
    const byKey = new Map<string, UsageRow & { errorsByCategory: Record<string, number> }>();
    for (const row of usage) byKey.set(`${row.tool}\u0000${row.start.getTime()}`, { ...row, latencyBuckets: [], errorsByCategory: {} });
    for (const e of errors) {
      const row = byKey.get(`${e.tool}\u0000${e.start.getTime()}`);
      if (row) row.errorsByCategory[e.category] = e.count;
    }
    return [...byKey.values()];
  }

  /** Every agent (or model) with calls in the range, summed over hours and tools: as many rows as agents (or models). */
  async findDimensionBreakdown(projectId: string, dimension: Dimension, range: StatsRange, tool?: string): Promise<DimensionUsageRow[]> {
    const slice = dimensionSlice(projectId, dimension, range, tool);
    const [usage, errors] = await Promise.all([
      this.db.read((prisma) =>
        prisma.$queryRaw<Array<{ value: string; calls: number; errors: number }>>(Prisma.sql`
SELECT value, sum(calls)::int AS calls, sum(errors)::int AS errors FROM hourly_dimension_rollups r WHERE ${slice} GROUP BY 1`),
      ),
      this.db.read((prisma) =>
        prisma.$queryRaw<Array<{ value: string; category: string; count: number }>>(Prisma.sql`
SELECT r.value, c.key AS category, sum(c.value::int)::int AS count
FROM hourly_dimension_rollups r, jsonb_each_text(r.error_categories) c WHERE ${slice} GROUP BY 1, 2`),
      ),
    ]);
    const byValue = new Map(
      usage.map((row) => [
        row.value,
        { name: row.value === '' ? null : row.value, calls: row.calls, errors: row.errors, errorsByCategory: {} as Record<string, number> },
      ]),
    );
    for (const e of errors) {
      const row = byValue.get(e.value);
      if (row) row.errorsByCategory[e.category] = e.count;
    }
    return [...byValue.values()];
  }
}

/** One dimension's rows (table alias r) of a project in the range, by the (project_id, dimension, hour, ...) primary key. */
function dimensionSlice(projectId: string, dimension: Dimension, range: { from: Date; to: Date }, tool?: string): Prisma.Sql {
  const onlyTool = tool === undefined ? Prisma.empty : Prisma.sql`AND r.tool = ${tool}::text`;
  return Prisma.sql`r.project_id = ${projectId}::uuid AND r.dimension = ${dimension}::text
  AND r.hour >= ${range.from}::timestamptz AND r.hour < ${range.to}::timestamptz ${onlyTool}`;
}

/** A daily_tool_stats row as selectCompleteDays writes it: tool, day (ms since the epoch), calls, errors, histogram, mix. */
type CompleteDayRow = [
  tool: string,
  dayMs: number,
  calls: number,
  errors: number,
  latencyBuckets: number[] | null,
  errorsByCategory: Record<string, number>,
];

/**
 * The range's daily_tool_stats rows of the days the nightly job computed after they ended, as one JSON document: a
 * month of 30 tools is 900 rows, and reading them as Prisma rows (an int[] and a jsonb column each) cost the API
 * ~10 ms of CPU per read, ~2 ms as one JSON.parse. The overview reads two ranges: it was most of its time (issue 18).
 * The range is day-aligned (stats-range.ts), so its bounds are whole UTC days.
 */
function selectCompleteDays(projectId: string, range: { from: Date; to: Date }, tool?: string): Prisma.Sql {
  const onlyTool = tool === undefined ? Prisma.empty : Prisma.sql`AND tool = ${tool}::text`;
  return Prisma.sql`
SELECT json_agg(json_build_array(tool, (extract(epoch FROM day) * 1000)::bigint, calls, errors, latency_buckets, errors_by_category))::text AS rows
FROM daily_tool_stats
WHERE project_id = ${projectId}::uuid ${onlyTool}
  AND day >= ${isoDay(range.from)}::date AND day < ${isoDay(range.to)}::date
  AND computed_at >= (day + 1)::timestamp AT TIME ZONE 'UTC'`;
}

const isoDay = (instant: Date) => instant.toISOString().slice(0, 10);

/** Which rollup rows to sum, and into which buckets. */
interface RollupWindow {
  projectId: string;
  tool: string | null;
  /** Interval bounds as ISO instants, pairwise: [froms[i], tos[i]). */
  froms: string[];
  tos: string[];
  unit: 'hour' | 'day';
}

/** The window's rows of an hourly rollup table; the min/max bounds let Postgres use the (project_id, hour) index. */
function inWindow({ projectId, tool, froms, tos }: RollupWindow): Prisma.Sql {
  const onlyTool = tool === null ? Prisma.empty : Prisma.sql`AND tool = ${tool}::text`;
  return Prisma.sql`
  project_id = ${projectId}::uuid ${onlyTool}
  AND hour >= (SELECT min(f) FROM unnest(${froms}::timestamptz[]) f) AND hour < (SELECT max(t) FROM unnest(${tos}::timestamptz[]) t)
  AND EXISTS (SELECT 1 FROM unnest(${froms}::timestamptz[], ${tos}::timestamptz[]) i(f, t) WHERE hour >= i.f AND hour < i.t)`;
}

interface HourlyUsageRow {
  tool: string;
  start: Date;
  calls: number;
  errors: number;
  latency_buckets: number[] | null;
}

/**
 * Sums each histogram position with its own aggregate: the histogram has a fixed layout (latency-buckets.ts), so no
 * row is unnested. Unnesting a month's hourly histograms into one row per bucket and sorting them took 0.6-1 s for a
 * project of 16 tools (227,000 rows spilled to disk), most of the dashboard's overview (issue 18's dashboard run).
 * A bucket is null when none of its rows has a histogram, as before.
 */
const SUMMED_LATENCY_BUCKETS = Prisma.raw(
  `CASE WHEN count(latency_buckets) = 0 THEN NULL ELSE ARRAY[${Array.from(
    { length: LATENCY_BUCKET_COUNT },
    (_, index) => `COALESCE(sum(latency_buckets[${index + 1}]), 0)::int`,
  ).join(', ')}] END`,
);

function selectHourlyUsage(window: RollupWindow): Prisma.Sql {
  return Prisma.sql`
SELECT tool, date_trunc(${window.unit}, hour, 'UTC') AS start, sum(calls)::int AS calls, sum(errors)::int AS errors,
  ${SUMMED_LATENCY_BUCKETS} AS latency_buckets
FROM hourly_rollups WHERE ${inWindow(window)}
GROUP BY 1, 2`;
}

interface HourlyErrorsRow {
  tool: string;
  start: Date;
  category: string;
  count: number;
}

function selectHourlyErrors(window: RollupWindow): Prisma.Sql {
  return Prisma.sql`
SELECT tool, date_trunc(${window.unit}, hour, 'UTC') AS start, category, sum(count)::int AS count
FROM hourly_error_rollups WHERE ${inWindow(window)}
GROUP BY 1, 2, 3`;
}
