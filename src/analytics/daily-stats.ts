import { percentileFromBuckets } from '../diagnosis';

/** One tool's day, summed from its hourly rollups, plus the 7 days before it. */
export interface ToolDayTotals {
  tool: string;
  calls: number;
  errors: number;
  latencyCount: number;
  latencyBuckets: number[];
  errorsByCategory: Array<{ category: string; subtype: string; count: number }>;
  prev7Calls: number;
  prev7Errors: number;
}

export interface DailyToolStatRow {
  tool: string;
  calls: number;
  successes: number;
  errors: number;
  successRate: number | null;
  errorsByCategory: Record<string, number>;
  errorsBySubtype: Record<string, number>;
  latencyCount: number;
  latencyBuckets: number[];
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  prev7Calls: number;
  prev7SuccessRate: number | null;
  successRateChange: number | null;
}

/** Rates, percentiles and the change against the previous 7 days. Pure. */
export function computeDailyToolStat(totals: ToolDayTotals): DailyToolStatRow {
  const successes = totals.calls - totals.errors;
  const successRate = totals.calls > 0 ? successes / totals.calls : null;
  const prev7SuccessRate = totals.prev7Calls > 0 ? (totals.prev7Calls - totals.prev7Errors) / totals.prev7Calls : null;
  const errorsByCategory: Record<string, number> = {};
  const errorsBySubtype: Record<string, number> = {};
  for (const { category, subtype, count } of totals.errorsByCategory) {
    errorsByCategory[category] = (errorsByCategory[category] ?? 0) + count;
    if (subtype) errorsBySubtype[`${category}/${subtype}`] = (errorsBySubtype[`${category}/${subtype}`] ?? 0) + count;
  }
  const hasLatency = totals.latencyCount > 0;
  return {
    tool: totals.tool,
    calls: totals.calls,
    successes,
    errors: totals.errors,
    successRate,
    errorsByCategory,
    errorsBySubtype,
    latencyCount: totals.latencyCount,
    latencyBuckets: totals.latencyBuckets,
    latencyP50Ms: hasLatency ? percentileFromBuckets(totals.latencyBuckets, 50) : null,
    latencyP95Ms: hasLatency ? percentileFromBuckets(totals.latencyBuckets, 95) : null,
    prev7Calls: totals.prev7Calls,
    prev7SuccessRate,
    successRateChange: successRate !== null && prev7SuccessRate !== null ? successRate - prev7SuccessRate : null,
  };
}
