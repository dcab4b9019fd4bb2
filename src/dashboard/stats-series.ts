import { percentileFromBuckets } from '../diagnosis';
import { bucketStarts, floorTo, StatsRange } from './stats-range';

/** Calls of one tool in one hour (hourly rollups) or one day (daily_tool_stats): the unit every stat is summed from. */
export interface UsageRow {
  tool: string;
  start: Date;
  calls: number;
  errors: number;
  latencyBuckets: readonly number[];
  errorsByCategory: Readonly<Record<string, number>>;
}

export interface UsageTotals {
  calls: number;
  errors: number;
  /** successes / calls; null without calls. */
  successRate: number | null;
  errorsByCategory: Record<string, number>;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export interface SeriesPoint {
  start: string;
  calls: number;
  errors: number;
  successRate: number | null;
  errorsByCategory: Record<string, number>;
}

export interface ToolStatsRow extends UsageTotals {
  tool: string;
}

export const TOOL_SORTS = ['name', 'calls', 'errors', 'success_rate', 'p50', 'p95'] as const;
export type ToolSort = (typeof TOOL_SORTS)[number];

interface Accumulator {
  calls: number;
  errors: number;
  latencyBuckets: number[];
  errorsByCategory: Record<string, number>;
}

const emptyAccumulator = (): Accumulator => ({ calls: 0, errors: 0, latencyBuckets: [], errorsByCategory: {} });

function add(into: Accumulator, row: UsageRow): void {
  into.calls += row.calls;
  into.errors += row.errors;
  // plain loops: a month's overview adds ~900 rows three times over (totals, per tool, per day)
  const buckets = row.latencyBuckets;
  for (let i = 0; i < buckets.length; i++) into.latencyBuckets[i] = (into.latencyBuckets[i] ?? 0) + buckets[i];
  for (const category in row.errorsByCategory) {
    if (!Object.hasOwn(row.errorsByCategory, category)) continue;
    into.errorsByCategory[category] = (into.errorsByCategory[category] ?? 0) + row.errorsByCategory[category];
  }
}

export function successRateOf(calls: number, errors: number): number | null {
  return calls > 0 ? (calls - errors) / calls : null;
}

function toTotals(acc: Accumulator): UsageTotals {
  return {
    calls: acc.calls,
    errors: acc.errors,
    successRate: successRateOf(acc.calls, acc.errors),
    errorsByCategory: acc.errorsByCategory,
    latencyP50Ms: percentileFromBuckets(acc.latencyBuckets, 50),
    latencyP95Ms: percentileFromBuckets(acc.latencyBuckets, 95),
  };
}

/** Sums rows into totals; latency percentiles come from the summed histograms, never from averaged percentiles. */
export function sumUsage(rows: readonly UsageRow[]): UsageTotals {
  const acc = emptyAccumulator();
  for (const row of rows) add(acc, row);
  return toTotals(acc);
}

/** One row per tool, in no particular order. */
export function sumUsageByTool(rows: readonly UsageRow[]): ToolStatsRow[] {
  const byTool = new Map<string, Accumulator>();
  for (const row of rows) {
    let acc = byTool.get(row.tool);
    if (!acc) byTool.set(row.tool, (acc = emptyAccumulator()));
    add(acc, row);
  }
  return [...byTool].map(([tool, acc]) => ({ tool, ...toTotals(acc) }));
}

/** One point per bucket of the range, oldest first, zero-filled where there were no calls. */
export function toSeries(rows: readonly UsageRow[], range: StatsRange): SeriesPoint[] {
  const byStart = new Map(bucketStarts(range).map((start) => [start.getTime(), emptyAccumulator()]));
  for (const row of rows) {
    const acc = byStart.get(floorTo(row.start, range.bucket).getTime());
    if (acc) add(acc, row);
  }
  return [...byStart].map(([start, acc]) => ({
    start: new Date(start).toISOString(),
    calls: acc.calls,
    errors: acc.errors,
    successRate: successRateOf(acc.calls, acc.errors),
    errorsByCategory: acc.errorsByCategory,
  }));
}

/**
 * Orders tool rows: by name ascending, by success rate ascending (worst first), by every other figure descending;
 * ties and missing values (no calls, no latency) last, then by name, so the order is total and cursors are stable.
 */
export function sortToolRows(rows: readonly ToolStatsRow[], sort: ToolSort): ToolStatsRow[] {
  const value = sortValue(sort);
  const direction = sort === 'success_rate' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (sort !== 'name') {
      const x = value(a);
      const y = value(b);
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return direction * (x - y);
      }
    }
    return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
  });
}

function sortValue(sort: ToolSort): (row: ToolStatsRow) => number | null {
  switch (sort) {
    case 'calls':
      return (row) => row.calls;
    case 'errors':
      return (row) => row.errors;
    case 'success_rate':
      return (row) => row.successRate;
    case 'p50':
      return (row) => row.latencyP50Ms;
    case 'p95':
      return (row) => row.latencyP95Ms;
    case 'name':
      return () => null;
  }
}

/** The change from `previous` to `current`: relative for calls, in points (absolute) for the success rate. */
export function trendOf(current: UsageTotals, previous: UsageTotals) {
  return {
    callsChange: previous.calls > 0 ? (current.calls - previous.calls) / previous.calls : null,
    errorsChange: previous.errors > 0 ? (current.errors - previous.errors) / previous.errors : null,
    successRateChange: current.successRate !== null && previous.successRate !== null ? current.successRate - previous.successRate : null,
  };
}
