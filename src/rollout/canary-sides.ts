import { breakDownEffect, EffectBreakdown, ValueCounts } from '../statistics/effect-breakdown';
import type { DailyVersionCount, Proportion } from '../statistics/effect-statistics';

// The two sides a canary is judged on: calls that reported the canary version and calls that reported the previous
// one, from the UTC day before the canary started (its baseline: the day whose mistakes made the warning, when only the
// previous version was served) to the end of the judged day. Pure.

export interface CanarySides {
  canary: Proportion;
  previous: Proportion;
}

const DAY_MS = 86_400_000;

/** The first day counted: the UTC day before the one the canary started on. */
export function firstCountedDay(startedAt: Date): Date {
  return new Date(Date.UTC(startedAt.getUTCFullYear(), startedAt.getUTCMonth(), startedAt.getUTCDate()) - DAY_MS);
}

export function sumCanarySides(
  counts: { calls: readonly DailyVersionCount[]; mistakes: readonly DailyVersionCount[] },
  canary: { canaryVersion: number; previousVersion: number; startedAt: Date },
): CanarySides {
  const fromDay = firstCountedDay(canary.startedAt).getTime();
  const total = (rows: readonly DailyVersionCount[], version: number) =>
    rows.filter((row) => row.version === version && row.day.getTime() >= fromDay).reduce((n, row) => n + row.count, 0);
  return {
    canary: { calls: total(counts.calls, canary.canaryVersion), mistakes: total(counts.mistakes, canary.canaryVersion) },
    previous: { calls: total(counts.calls, canary.previousVersion), mistakes: total(counts.mistakes, canary.previousVersion) },
  };
}

/**
 * The canary version against the previous one per model and per framework, on the days and versions the decision
 * counts; null without counts.
 */
export function breakDownCanary(
  canary: { canaryVersion: number; previousVersion: number; startedAt: Date },
  counts: readonly ValueCounts[] | null,
): EffectBreakdown | null {
  if (!counts) return null;
  return breakDownEffect(counts, (value) => {
    const sides = sumCanarySides(value, canary);
    return { withWarning: sides.canary, withoutWarning: sides.previous };
  });
}
