/**
 * A warning's effect broken down by model and by framework: the same two-proportion comparison as the overall one, on
 * the calls of each model (or framework) alone, so a warning that helps one model and hurts another shows it. Only
 * values with at least MIN_CALLS_PER_SIDE calls on each side are judged; the overall verdict never changes. Pure.
 */
import { DailyVersionCount, EffectEstimate, EffectVerdict, estimateEffect, MIN_CALLS_PER_SIDE, Proportion } from './effect-statistics';

export const BREAKDOWN_DIMENSIONS = ['model', 'framework'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

/** Values listed per dimension at most, those with the most calls first: a bound on what a record and a page carry. */
export const MAX_BREAKDOWN_VALUES = 10;

/** The calls and mistakes per version and day of one model (or framework). */
export interface ValueCounts {
  dimension: BreakdownDimension;
  value: string;
  calls: DailyVersionCount[];
  mistakes: DailyVersionCount[];
}

/** One value's comparison: what the overall estimate says, on its calls alone. */
export interface ValueEffect {
  value: string;
  withWarning: EffectEstimate['withWarning'];
  withoutWarning: EffectEstimate['withoutWarning'];
  relativeChange: number | null;
  pValue: number | null;
  verdict: EffectVerdict;
}

export interface EffectBreakdown {
  /** The calls each side of a value needs for it to be listed. */
  minCallsPerSide: number;
  model: ValueEffect[];
  framework: ValueEffect[];
  /** Values left out per dimension: too few calls on a side, or beyond MAX_BREAKDOWN_VALUES. */
  omitted: Record<BreakdownDimension, number>;
  /** True when, in one dimension, one listed value was `helped` and another `worse`: the overall verdict hides it. */
  isDivided: boolean;
}

/**
 * Judges each value on the two sides `split` makes of its counts (for an applied warning: splitByWarning with its
 * exposure; for a canary: its two versions).
 */
export function breakDownEffect(
  counts: readonly ValueCounts[],
  split: (value: ValueCounts) => { withWarning: Proportion; withoutWarning: Proportion },
): EffectBreakdown {
  const breakdown: EffectBreakdown = {
    minCallsPerSide: MIN_CALLS_PER_SIDE,
    model: [],
    framework: [],
    omitted: { model: 0, framework: 0 },
    isDivided: false,
  };
  for (const dimension of BREAKDOWN_DIMENSIONS) {
    const judged = counts
      .filter((each) => each.dimension === dimension)
      .map((each) => {
        const sides = split(each);
        return { value: each.value, estimate: estimateEffect(sides.withWarning, sides.withoutWarning) };
      });
    const listed = judged
      .filter(({ estimate }) => estimate.withWarning.calls >= MIN_CALLS_PER_SIDE && estimate.withoutWarning.calls >= MIN_CALLS_PER_SIDE)
      .sort((a, b) => callsOf(b.estimate) - callsOf(a.estimate) || (a.value < b.value ? -1 : 1))
      .slice(0, MAX_BREAKDOWN_VALUES);
    breakdown[dimension] = listed.map(({ value, estimate }) => ({ value, ...estimate }));
    breakdown.omitted[dimension] = judged.length - listed.length;
  }
  breakdown.isDivided = BREAKDOWN_DIMENSIONS.some((dimension) => {
    const verdicts = new Set(breakdown[dimension].map((each) => each.verdict));
    return verdicts.has('helped') && verdicts.has('worse');
  });
  return breakdown;
}

const callsOf = (estimate: EffectEstimate) => estimate.withWarning.calls + estimate.withoutWarning.calls;
