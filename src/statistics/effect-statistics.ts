/**
 * Did a warning make its mistake rarer? Two proportions: the mistake rate among calls that saw the warning and among
 * calls that did not. Wilson intervals per side and a two-proportion z-test between them. Pure: numbers in, verdict out.
 */

export type EffectVerdict = 'helped' | 'no_effect' | 'worse' | 'not_enough_data';

export interface Proportion {
  calls: number;
  mistakes: number;
}

export interface EffectEstimate {
  withWarning: Proportion & { rate: number | null; ci95: [number, number] | null };
  withoutWarning: Proportion & { rate: number | null; ci95: [number, number] | null };
  /** (rate with - rate without) / rate without; negative means fewer mistakes. */
  relativeChange: number | null;
  pValue: number | null;
  verdict: EffectVerdict;
}

const Z_95 = 1.959963984540054;
/** Fewer calls than this on either side tell nothing reliable about a rate. */
export const MIN_CALLS_PER_SIDE = 30;
export const SIGNIFICANCE = 0.05;

export function wilsonInterval(successes: number, trials: number, z = Z_95): [number, number] | null {
  if (trials <= 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return [Math.max(0, centre - margin), Math.min(1, centre + margin)];
}

/** Two-sided p-value of the pooled two-proportion z-test. */
export function twoProportionPValue(a: Proportion, b: Proportion): number | null {
  if (a.calls <= 0 || b.calls <= 0) return null;
  const pooled = (a.mistakes + b.mistakes) / (a.calls + b.calls);
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / a.calls + 1 / b.calls));
  if (standardError === 0) return 1;
  const z = (a.mistakes / a.calls - b.mistakes / b.calls) / standardError;
  return 2 * (1 - standardNormalCdf(Math.abs(z)));
}

export function estimateEffect(withWarning: Proportion, withoutWarning: Proportion): EffectEstimate {
  const rateWith = withWarning.calls > 0 ? withWarning.mistakes / withWarning.calls : null;
  const rateWithout = withoutWarning.calls > 0 ? withoutWarning.mistakes / withoutWarning.calls : null;
  const relativeChange = rateWith !== null && rateWithout ? (rateWith - rateWithout) / rateWithout : null;
  const pValue = twoProportionPValue(withWarning, withoutWarning);
  let verdict: EffectVerdict = 'not_enough_data';
  if (withWarning.calls >= MIN_CALLS_PER_SIDE && withoutWarning.calls >= MIN_CALLS_PER_SIDE && pValue !== null) {
    if (pValue >= SIGNIFICANCE) verdict = 'no_effect';
    else verdict = rateWith! < rateWithout! ? 'helped' : 'worse';
  }
  return {
    withWarning: { ...withWarning, rate: rateWith, ci95: wilsonInterval(withWarning.mistakes, withWarning.calls) },
    withoutWarning: { ...withoutWarning, rate: rateWithout, ci95: wilsonInterval(withoutWarning.mistakes, withoutWarning.calls) },
    relativeChange,
    pValue,
    verdict,
  };
}

/** Abramowitz-Stegun 7.1.26 approximation of erf; absolute error below 1.5e-7, plenty for a verdict at 0.05. */
function standardNormalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export interface DailyVersionCount {
  day: Date;
  /** 0 when the calls did not report which description version they saw. */
  version: number;
  count: number;
}

export interface WarningExposure {
  /** The first description version that carried the warning. */
  appliedVersion: number | null;
  appliedAt: Date;
}

/**
 * Splits calls and mistakes into "saw the warning" and "did not". Calls that report their description version are
 * compared by version; when none do, the comparison falls back to before/after the day the warning was applied
 * (that day itself is left out: it mixes both).
 */
export function splitByWarning(
  calls: readonly DailyVersionCount[],
  mistakes: readonly DailyVersionCount[],
  exposure: WarningExposure,
): { withWarning: Proportion; withoutWarning: Proportion; method: 'version' | 'before_after' } {
  const versioned = (rows: readonly DailyVersionCount[]) => rows.filter((r) => r.version > 0);
  const hasVersions = exposure.appliedVersion !== null && versioned(calls).some((r) => r.version >= exposure.appliedVersion!);
  if (hasVersions) {
    const sees = (r: DailyVersionCount) => r.version >= exposure.appliedVersion!;
    const total = (rows: readonly DailyVersionCount[], side: boolean) =>
      versioned(rows)
        .filter((r) => sees(r) === side)
        .reduce((n, r) => n + r.count, 0);
    return {
      withWarning: { calls: total(calls, true), mistakes: total(mistakes, true) },
      withoutWarning: { calls: total(calls, false), mistakes: total(mistakes, false) },
      method: 'version',
    };
  }
  const appliedDay = Date.UTC(exposure.appliedAt.getUTCFullYear(), exposure.appliedAt.getUTCMonth(), exposure.appliedAt.getUTCDate());
  const side = (rows: readonly DailyVersionCount[], after: boolean) =>
    rows
      .filter((r) => r.version === 0 && (after ? r.day.getTime() > appliedDay : r.day.getTime() < appliedDay))
      .reduce((n, r) => n + r.count, 0);
  return {
    withWarning: { calls: side(calls, true), mistakes: side(mistakes, true) },
    withoutWarning: { calls: side(calls, false), mistakes: side(mistakes, false) },
    method: 'before_after',
  };
}

/** What the SDK guard did on one side of a warning's comparison (docs/guard.md). */
export interface GuardSide {
  /** Matching mistakes that ran the tool: the mistakes minus those the guard refused. */
  reachedToolCount: number;
  /** Matching mistakes the guard refused before the tool ran (counted in `mistakes` too: the model still made them). */
  preventedCount: number;
  /** The tool's calls the guard ran with corrected arguments (not in `mistakes`: a corrected call succeeds). */
  correctedCount: number;
}

/**
 * Splits the guard's prevented and corrected counts the way `splitByWarning` split the mistakes into `split` (the same
 * method, decided by the calls), so each side says both how often the model still made the mistake and how much of it the
 * guard caught. Without a guard both counts are 0 and `reachedToolCount` is the side's mistakes.
 */
export function splitGuardOutcomes(
  calls: readonly DailyVersionCount[],
  split: { withWarning: Proportion; withoutWarning: Proportion },
  guard: { prevented: readonly DailyVersionCount[]; corrected: readonly DailyVersionCount[] },
  exposure: WarningExposure,
): { withWarning: GuardSide; withoutWarning: GuardSide } {
  const prevented = splitByWarning(calls, guard.prevented, exposure);
  const corrected = splitByWarning(calls, guard.corrected, exposure);
  const sideOf = (side: 'withWarning' | 'withoutWarning'): GuardSide => ({
    reachedToolCount: Math.max(0, split[side].mistakes - prevented[side].mistakes),
    preventedCount: prevented[side].mistakes,
    correctedCount: corrected[side].mistakes,
  });
  return { withWarning: sideOf('withWarning'), withoutWarning: sideOf('withoutWarning') };
}
