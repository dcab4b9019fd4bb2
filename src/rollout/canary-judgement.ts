import type { EffectBreakdown } from '../statistics/effect-breakdown';
import { estimateEffect } from '../statistics/effect-statistics';
import type { CanaryDesign, RunningCanary } from '../registry/registry.types';
import { servedPhaseOf } from '../registry/serving/canary-assignment';
import type { CanarySides } from './canary-sides';
import { decideSequential, SequentialDecision } from './sequential-decision';

// One nightly look at a running canary (docs/rollout.md): each of its warnings judged by the sequential rule on its own
// mistake, then one action for the canary: roll back the warnings shown harmful, promote when every warning is decided,
// else wait for the next look. A split canary one side of which gets no calls switches to alternating. Pure.

export interface WarningCounts {
  /** null for a canary without a warning (none is left to judge but the tool's failures). */
  warningId: string | null;
  counted: 'matched_mistakes' | 'errors';
  sides: CanarySides;
  /** The same comparison per model and per framework, reported beside the decision (never deciding it); null without. */
  breakdown?: EffectBreakdown | null;
}

export interface CanaryLook {
  action: 'wait' | 'promote' | 'roll_back';
  reason: string;
  /** The design from now on (a split canary that cannot get both sides turns alternating). */
  design: CanaryDesign;
  rolledBackWarningIds: string[];
  /** What the canary's row keeps while it runs: this look's numbers and what it waits for. */
  state: Record<string, unknown>;
  /** The decision recorded when the canary ends. */
  decision: Record<string, unknown>;
  /** The first warning's sides, for one-line summaries. */
  headline: CanarySides;
}

export function judgeCanary(canary: RunningCanary, warnings: readonly WarningCounts[], day: Date): CanaryLook {
  const look = canary.looks + 1;
  const judged = warnings.map((warning) => ({
    ...warning,
    verdict: decideSequential({ ...warning.sides, look, minCalls: canary.minCalls, maxLooks: canary.maxLooks }),
  }));
  const harmful = judged.filter((each) => each.verdict.action === 'roll_back');
  const waiting = judged.filter((each) => each.verdict.action === 'wait');
  const headline = judged[0].sides;
  const design = nextDesign(canary, headline);
  const action = harmful.length > 0 ? 'roll_back' : waiting.length > 0 ? 'wait' : 'promote';
  // each warning's reason is a sentence of its own; several are told apart by their order in `warnings`
  const reasonOf = (each: readonly { verdict: SequentialDecision }[]) => [...new Set(each.map((one) => one.verdict.reason))].join(' ');
  const reason = action === 'roll_back' ? reasonOf(harmful) : action === 'promote' ? reasonOf(judged) : waiting[0].verdict.reason;
  const perWarning = judged.map((each) => ({
    warningId: each.warningId,
    counted: each.counted,
    action: each.verdict.action,
    rule: each.verdict.rule,
    reason: each.verdict.reason,
    canary: { version: canary.canaryVersion, ...each.sides.canary },
    previous: { version: canary.previousVersion, ...each.sides.previous },
    harmPValue: each.verdict.harmPValue,
    benefitPValue: each.verdict.benefitPValue,
    breakdown: each.breakdown ?? null,
  }));
  const nextPhase = design === 'alternating' ? nextPhaseOf(canary, design, headline) : 'split';
  const state = {
    look,
    maxLooks: canary.maxLooks,
    lookedFor: day.toISOString().slice(0, 10),
    design,
    ...(design !== canary.design ? { designSwitched: `from ${canary.design}: ${switchReason(headline)}` } : {}),
    servedUntilNextLook: nextPhase,
    waitingFor: action === 'wait' ? waiting[0].verdict.reason : null,
    exposure: exposureOf(canary, headline),
    warnings: perWarning,
  };
  return {
    action,
    reason,
    design,
    rolledBackWarningIds: harmful.flatMap((each) => (each.warningId ? [each.warningId] : [])),
    state,
    decision: decisionRecord(canary, judged[0], { action, reason, design, look, day, perWarning }),
    headline,
  };
}

/** A split canary whose one side got no call while the other did cannot be compared: every caller alternates instead. */
function nextDesign(canary: RunningCanary, sides: CanarySides): CanaryDesign {
  if (canary.design !== 'split') return canary.design;
  const isOneSided = (sides.canary.calls === 0) !== (sides.previous.calls === 0);
  return isOneSided ? 'alternating' : 'split';
}

/**
 * The version an alternating canary serves everyone until its next look: the other one than since the last look; a
 * split canary that just turned alternating serves first the side that got no call.
 */
function nextPhaseOf(canary: RunningCanary, design: CanaryDesign, sides: CanarySides): 'canary' | 'previous' {
  if (canary.design !== design) return sides.canary.calls === 0 ? 'canary' : 'previous';
  return servedPhaseOf(canary) === 'canary' ? 'previous' : 'canary';
}

function switchReason(sides: CanarySides): string {
  return sides.canary.calls === 0 ? 'no caller was served the canary version' : 'no caller was served the previous version';
}

/**
 * Whether the callers took the version they were served: after a phase that served the canary version to everyone,
 * no call reporting it means the clients did not fetch their descriptions again (SDK refresh, a gateway's poll).
 */
function exposureOf(canary: RunningCanary, sides: CanarySides): string | null {
  if (canary.design !== 'alternating' || servedPhaseOf(canary) !== 'canary' || sides.canary.calls > 0) return null;
  return `no call reported version ${canary.canaryVersion} while it was served to every caller: clients must fetch descriptions again (the SDKs' refresh, the gateway's poll) to be counted`;
}

function decisionRecord(
  canary: RunningCanary,
  first: WarningCounts,
  outcome: { action: string; reason: string; design: CanaryDesign; look: number; day: Date; perWarning: unknown[] },
): Record<string, unknown> {
  return {
    action: outcome.action,
    reason: outcome.reason,
    counted: first.counted,
    design: outcome.design,
    look: outcome.look,
    ...sideNumbers(canary, first.sides),
    breakdown: first.breakdown ?? null,
    warnings: outcome.perWarning,
    decidedFor: outcome.day.toISOString().slice(0, 10),
  };
}

/**
 * The numbers every decision record shows of its two sides (the nightly's and a person's alike): calls, mistakes,
 * rate and 95% interval per side, the relative change, and the fixed-sample p-value and verdict, for reading.
 */
export function sideNumbers(canary: Pick<RunningCanary, 'canaryVersion' | 'previousVersion'>, sides: CanarySides) {
  const estimate = estimateEffect(sides.canary, sides.previous);
  const side = (version: number, estimated: typeof estimate.withWarning) => ({
    version,
    calls: estimated.calls,
    mistakes: estimated.mistakes,
    rate: estimated.rate,
    ci95: estimated.ci95,
  });
  return {
    canary: side(canary.canaryVersion, estimate.withWarning),
    previous: side(canary.previousVersion, estimate.withoutWarning),
    relativeChange: estimate.relativeChange,
    pValue: estimate.pValue,
    verdict: estimate.verdict,
  };
}
