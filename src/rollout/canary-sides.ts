import type { DailyVersionCount, Proportion } from '../analytics/effect-statistics';

// The two sides a canary is judged on: calls that reported the canary version and calls that reported the previous
// one, from the UTC day the canary started. Pure.

export interface CanarySides {
  canary: Proportion;
  previous: Proportion;
}

export function sumCanarySides(
  counts: { calls: readonly DailyVersionCount[]; mistakes: readonly DailyVersionCount[] },
  canary: { canaryVersion: number; previousVersion: number; startedAt: Date },
): CanarySides {
  // the start day counts whole: its earlier calls of the previous version saw what the previous side sees
  const fromDay = Date.UTC(canary.startedAt.getUTCFullYear(), canary.startedAt.getUTCMonth(), canary.startedAt.getUTCDate());
  const total = (rows: readonly DailyVersionCount[], version: number) =>
    rows.filter((row) => row.version === version && row.day.getTime() >= fromDay).reduce((n, row) => n + row.count, 0);
  return {
    canary: { calls: total(counts.calls, canary.canaryVersion), mistakes: total(counts.mistakes, canary.canaryVersion) },
    previous: { calls: total(counts.calls, canary.previousVersion), mistakes: total(counts.mistakes, canary.previousVersion) },
  };
}
