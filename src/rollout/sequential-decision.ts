// Interim rule (replaced by the sequential rule of docs/rollout-statistics.md): a z-test Bonferroni-adjusted over maxLooks.
import { twoProportionPValue } from '../analytics/effect-statistics';
export interface SideCounts {
  calls: number;
  mistakes: number;
}
export interface SequentialLook {
  canary: SideCounts;
  previous: SideCounts;
  look: number;
  minCalls: number;
  maxLooks: number;
}
export interface SequentialDecision {
  action: 'wait' | 'promote' | 'roll_back';
  rule: 'harm' | 'benefit' | 'enough_calls' | 'deadline' | 'waiting';
  reason: string;
  harmPValue: number | null;
  benefitPValue: number | null;
}
export function decideSequential(look: SequentialLook, alpha = 0.05): SequentialDecision {
  const p = twoProportionPValue(look.canary, look.previous);
  const rc = look.canary.calls ? look.canary.mistakes / look.canary.calls : 0;
  const rp = look.previous.calls ? look.previous.mistakes / look.previous.calls : 0;
  const adj = p === null ? null : Math.min(1, (p / 2) * look.maxLooks);
  const harm = adj !== null && rc > rp ? adj : p === null ? null : 1;
  const benefit = adj !== null && rc < rp ? adj : p === null ? null : 1;
  const base = { harmPValue: harm, benefitPValue: benefit };
  if (harm !== null && harm < alpha) return { action: 'roll_back', rule: 'harm', reason: 'more mistakes with the canary', ...base };
  if (benefit !== null && benefit < alpha && look.canary.calls >= 20)
    return { action: 'promote', rule: 'benefit', reason: 'fewer mistakes', ...base };
  if (look.canary.calls >= look.minCalls && look.previous.calls >= look.minCalls)
    return { action: 'promote', rule: 'enough_calls', reason: 'enough calls, no harm', ...base };
  if (look.look >= look.maxLooks) return { action: 'promote', rule: 'deadline', reason: 'deadline', ...base };
  return { action: 'wait', rule: 'waiting', reason: 'waiting', ...base };
}
