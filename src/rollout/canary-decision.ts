import { EffectEstimate, estimateEffect, Proportion } from '../analytics/effect-statistics';

// When a canary description version is promoted or rolled back: the mistake rates of the calls that were served the
// canary and of those served the previous version, compared with the effect measurement's statistics (Wilson
// intervals, two-proportion z-test, 30 calls a side at least). Pure.

export type CanaryAction = 'wait' | 'promote' | 'roll_back';

export interface CanaryDecision {
  action: CanaryAction;
  reason: string;
  estimate: EffectEstimate;
}

/**
 * Rolls back as soon as the canary is significantly worse; promotes once both sides have `minCalls` calls and it
 * helped or made no significant difference; otherwise waits for more calls.
 */
export function decideCanary(canary: Proportion, previous: Proportion, minCalls: number): CanaryDecision {
  const estimate = estimateEffect(canary, previous);
  if (estimate.verdict === 'worse') return { action: 'roll_back', reason: 'significantly more mistakes with the canary', estimate };
  const hasEnoughCalls = canary.calls >= minCalls && previous.calls >= minCalls;
  if (hasEnoughCalls && estimate.verdict === 'helped') return { action: 'promote', reason: 'significantly fewer mistakes', estimate };
  if (hasEnoughCalls && estimate.verdict === 'no_effect')
    return { action: 'promote', reason: 'no significant harm after enough calls', estimate };
  return { action: 'wait', reason: 'not enough calls yet', estimate };
}
