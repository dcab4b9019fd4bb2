import { twoProportionPValue } from '../statistics/effect-statistics';

// When an alternating canary is promoted or rolled back, judged every night on the cumulative counts of each side.
// The nightly looks as often as it likes, so the harm and benefit tests are anytime-valid: an e-process per direction
// (a Beta-mixture likelihood ratio against the best null fit), read against Ville's inequality. docs/rollout-statistics.md
// has the rule in plain words, its proof and the error rates the simulation measured. Pure.

export interface SideCounts {
  calls: number;
  mistakes: number;
}

export interface SequentialLook {
  /** Cumulative since the canary started. */
  canary: SideCounts;
  /** Cumulative: the previous version's calls since the canary started plus its baseline day. */
  previous: SideCounts;
  /** 1 at the first nightly that judges the canary. */
  look: number;
  /** The policy's "enough calls a side" (30..1,000,000). */
  minCalls: number;
  /** At `look >= maxLooks` the rule decides (promote or roll back), it never waits. */
  maxLooks: number;
}

export type SequentialRule = 'harm' | 'benefit' | 'enough_calls' | 'deadline' | 'waiting';

export interface SequentialDecision {
  action: 'wait' | 'promote' | 'roll_back';
  /** The clause that decided. */
  rule: SequentialRule;
  /** One plain sentence a user reads. */
  reason: string;
  /** Always-valid p-value that the canary makes more mistakes; null while a side has no calls. */
  harmPValue: number | null;
  /** Always-valid p-value that the canary makes fewer mistakes; null while a side has no calls. */
  benefitPValue: number | null;
}

export const DEFAULT_SEQUENTIAL_ALPHA = 0.05;
/**
 * One week of nightlies. Odd, so the last look follows a canary day and each side has had the same number of days
 * (4 canary days; 3 previous days plus the baseline), and each weekday has been seen by one side. At 40 calls a day
 * both sides reach the default 100 calls at look 5, so the deadline only ends canaries of quieter tools.
 */
export const DEFAULT_MAX_LOOKS = 7;

// Read once: inside Jest's sandbox every `Math.x` is a slow lookup on the sandbox's global, and the simulation test
// calls this rule about a million times.
const { exp, floor, log, min, LN2, PI } = Math;

/** Jeffreys' Beta(1/2, 1/2) for each side's mistake rate: it rewards "0 mistakes in n calls" more than a uniform prior. */
const PRIOR_SHAPE = 0.5;

type Direction = 'harm' | 'benefit';

export function decideSequential(look: SequentialLook, alpha = DEFAULT_SEQUENTIAL_ALPHA): SequentialDecision {
  const canary = sanitize(look.canary);
  const previous = sanitize(look.previous);
  const hasBothSides = canary.calls > 0 && previous.calls > 0;
  const harmPValue = hasBothSides ? alwaysValidPValue(canary, previous, 'harm') : null;
  const benefitPValue = hasBothSides ? alwaysValidPValue(canary, previous, 'benefit') : null;
  const counts = `canary ${describe(canary)} against previous ${describe(previous)}`;
  const decision = (action: SequentialDecision['action'], rule: SequentialRule, reason: string): SequentialDecision => ({
    action,
    rule,
    reason,
    harmPValue,
    benefitPValue,
  });

  if (harmPValue !== null && harmPValue <= alpha)
    return decision(
      'roll_back',
      'harm',
      `Rolled back: the canary makes more mistakes (${counts}, always-valid ${formatPValue(harmPValue)}).`,
    );
  if (benefitPValue !== null && benefitPValue <= alpha)
    return decision(
      'promote',
      'benefit',
      `Promoted: the canary makes fewer mistakes (${counts}, always-valid ${formatPValue(benefitPValue)}).`,
    );
  const hasEnoughCalls = canary.calls >= look.minCalls && previous.calls >= look.minCalls;
  // Enough calls promotes only when even a single-look test sees no harm; otherwise the canary keeps running so the
  // always-valid harm test can gather more evidence until the deadline. Waiting adds no false rollback.
  if (hasEnoughCalls && !looksWorseAtThisLook(canary, previous, alpha))
    return decision('promote', 'enough_calls', `Promoted: both sides have ${look.minCalls} calls or more and no harm shows (${counts}).`);
  if (look.look >= look.maxLooks) {
    if (canary.calls === 0)
      return decision(
        'promote',
        'deadline',
        `Promoted at the deadline (look ${look.look}): the canary had no calls, so nothing was measured.`,
      );
    return decision('promote', 'deadline', `Promoted at the deadline (look ${look.look}): harm was not shown beyond doubt (${counts}).`);
  }
  if (hasEnoughCalls)
    return decision(
      'wait',
      'waiting',
      `Waiting: the canary looks worse but not yet beyond doubt (${counts}); the deadline is look ${look.maxLooks}.`,
    );
  return decision(
    'wait',
    'waiting',
    `Waiting for ${look.minCalls} calls a side or clear evidence (${counts}); the deadline is look ${look.maxLooks}.`,
  );
}

/**
 * min(1, 1/E) for the e-process E of one direction. For harm (the null: canary rate <= previous rate):
 *
 *   E = [mixture likelihood of both sides, the prior restricted to p_canary > p_previous] / [likelihood maximized over the null]
 *
 * Against any one null pair (p_c, p_p) the mixture likelihood ratio is a nonnegative martingale with mean 1 in the calls,
 * whichever side each call is on and however many calls a day brings; the maximized denominator is at least that
 * pair's likelihood, so E never exceeds the martingale and Ville's inequality bounds P(E ever >= 1/alpha) by alpha
 * (Wasserman, Ramdas & Balakrishnan 2020, section 7). Benefit is the mirror image.
 */
function alwaysValidPValue(canary: SideCounts, previous: SideCounts, direction: Direction): number {
  const [higher, lower] = direction === 'harm' ? [canary, previous] : [previous, canary];
  const logEvidence = logMixture(higher) + logMixture(lower) + logRestrictedPrior(higher, lower) - logNullMaximum(higher, lower);
  return min(1, exp(-logEvidence));
}

/** log of the Beta-Bernoulli marginal likelihood of one side: the mixture of p^x (1-p)^(n-x) over the prior. */
function logMixture(side: SideCounts): number {
  return logBeta(PRIOR_SHAPE + side.mistakes, PRIOR_SHAPE + side.calls - side.mistakes) - logBeta(PRIOR_SHAPE, PRIOR_SHAPE);
}

/**
 * Restricting the prior to "higher's rate > lower's rate" (prior probability 1/2) multiplies the mixture by
 * 2 x P(posterior says so). That probability is replaced by a lower bound (Cantelli's inequality on the difference of
 * the two Beta posteriors: P(D > 0) >= m^2 / (m^2 + v) when its mean m > 0), which keeps E below the martingale.
 */
function logRestrictedPrior(higher: SideCounts, lower: SideCounts): number {
  const [meanHigher, varianceHigher] = posteriorMoments(higher);
  const [meanLower, varianceLower] = posteriorMoments(lower);
  const gap = meanHigher - meanLower;
  if (gap <= 0) return -Infinity;
  return LN2 + 2 * log(gap) - log(gap * gap + varianceHigher + varianceLower);
}

function posteriorMoments(side: SideCounts): [mean: number, variance: number] {
  const total = 2 * PRIOR_SHAPE + side.calls;
  const mean = (PRIOR_SHAPE + side.mistakes) / total;
  return [mean, (mean * (1 - mean)) / (total + 1)];
}

/** log of the largest likelihood with rate(higher) <= rate(lower): the two own rates if they obey it, else one pooled rate. */
function logNullMaximum(higher: SideCounts, lower: SideCounts): number {
  if (higher.mistakes * lower.calls <= lower.mistakes * higher.calls) return logMaximum(higher) + logMaximum(lower);
  return logMaximum({ calls: higher.calls + lower.calls, mistakes: higher.mistakes + lower.mistakes });
}

function logMaximum(side: SideCounts): number {
  const successes = side.calls - side.mistakes;
  const term = (count: number) => (count === 0 ? 0 : count * log(count / side.calls));
  return term(side.mistakes) + term(successes);
}

/** One-sided pooled z-test at this look only: a hint of harm that keeps "enough calls" from promoting. */
function looksWorseAtThisLook(canary: SideCounts, previous: SideCounts, alpha: number): boolean {
  if (canary.mistakes * previous.calls <= previous.mistakes * canary.calls) return false;
  const twoSided = twoProportionPValue(canary, previous);
  return twoSided !== null && twoSided / 2 <= alpha;
}

/** Counts are whole, non-negative, and a side cannot have more mistakes than calls (the likelihood is per call). */
function sanitize(side: SideCounts): SideCounts {
  const whole = (n: number) => (Number.isFinite(n) && n > 0 ? floor(n) : 0);
  const calls = whole(side.calls);
  return { calls, mistakes: min(calls, whole(side.mistakes)) };
}

function describe(side: SideCounts): string {
  return `${side.mistakes}/${side.calls}`;
}

function formatPValue(pValue: number): string {
  return pValue < 0.0001 ? 'p < 0.0001' : `p = ${pValue.toFixed(4)}`;
}

function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x >= 0.5 (Lanczos, g = 7): about 15 significant digits, and no overflow for counts in the billions. */
function logGamma(x: number): number {
  const z = x - 1;
  let series = LANCZOS[0];
  for (let i = 1; i < LANCZOS.length; i++) series += LANCZOS[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * log(2 * PI) + (z + 0.5) * log(t) - t + log(series);
}
