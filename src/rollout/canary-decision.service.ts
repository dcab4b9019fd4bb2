import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { quoted } from '../alerts/alert-conditions';
import { AlertNotifier } from '../alerts/alert-notifier.service';
import type { DailyVersionCount, EffectEstimate } from '../analytics/effect-statistics';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { CanaryChangesService } from '../registry/canary-changes.service';
import type { RunningCanary } from '../registry/registry.types';
import { CanaryCountsRepository } from './canary-counts.repository';
import { CanaryDecision, decideCanary } from './canary-decision';
import { sumCanarySides } from './canary-sides';

const DAY_MS = 86_400_000;

export interface VersionCounts {
  calls: DailyVersionCount[];
  mistakes: DailyVersionCount[];
}

/**
 * The calls and the canary warning's own mistakes per version and day up to the end of the judged day, when a
 * recommendation says which mistake the warning is about; null for a warning without one (every failure counts).
 */
export type MatchedMistakeCounter = (canary: RunningCanary) => Promise<VersionCounts | null>;

export interface DecidedCanary {
  canary: RunningCanary;
  action: 'promote' | 'roll_back';
  decision: Record<string, unknown>;
}

export interface CanaryNight {
  decided: DecidedCanary[];
  /** Tools whose canary still runs: until it is decided, the nightly changes nothing else in their description. */
  runningTools: Set<string>;
}

/**
 * The nightly's canary step (docs/rollout.md): each running canary of the project is judged on the calls up to the end
 * of `day`, then promoted, rolled back or left running; each decision is recorded with its numbers and notified
 * through the project's alert destinations (a `rollout` event).
 */
@Injectable()
export class CanaryDecisionService {
  private readonly logger: Logger;

  constructor(
    private readonly canaries: CanaryChangesService,
    private readonly counts: CanaryCountsRepository,
    private readonly notifier: AlertNotifier,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'CanaryDecisionService' });
  }

  async decideCanaries(projectId: string, day: Date, countMatched: MatchedMistakeCounter): Promise<CanaryNight> {
    const until = new Date(day.getTime() + DAY_MS);
    // a backfilled day is decided as of its end, like the warnings the nightly applies
    const at = new Date(Math.min(Date.now(), until.getTime()));
    const night: CanaryNight = { decided: [], runningTools: new Set() };
    for (const canary of await this.canaries.findRunningCanaries(projectId)) {
      const decided = canary.startedAt < until ? await this.decideCanary(projectId, canary, day, until, at, countMatched) : null;
      if (decided) night.decided.push(decided);
      else night.runningTools.add(canary.tool);
    }
    return night;
  }

  /** The decision carried out, or null when the canary keeps running (or a newer version superseded it meanwhile). */
  private async decideCanary(
    projectId: string,
    canary: RunningCanary,
    day: Date,
    until: Date,
    at: Date,
    countMatched: MatchedMistakeCounter,
  ): Promise<DecidedCanary | null> {
    const matched = await countMatched(canary);
    const counts =
      matched ??
      (await this.counts.countErrorsByVersion(
        projectId,
        canary.tool,
        [canary.canaryVersion, canary.previousVersion],
        startOfDay(canary.startedAt),
        until,
      ));
    const sides = sumCanarySides(counts, canary);
    const outcome = decideCanary(sides.canary, sides.previous, canary.minCalls);
    if (outcome.action === 'wait') return null;
    const decision = toDecisionRecord(outcome, canary, matched ? 'matched_mistakes' : 'errors', day);
    const isDone =
      outcome.action === 'promote'
        ? await this.canaries.promoteCanary(projectId, canary, decision, at)
        : await this.canaries.rollBackCanary(projectId, canary, decision, at);
    if (!isDone) return null;
    await this.notify(projectId, canary, outcome, decision);
    return { canary, action: outcome.action, decision };
  }

  /** A notification that cannot be queued is logged; the decision stands (it is on the version history either way). */
  private async notify(projectId: string, canary: RunningCanary, outcome: CanaryDecision, decision: Record<string, unknown>) {
    const isPromoted = outcome.action === 'promote';
    const status = isPromoted ? 'promoted' : 'rolled_back';
    try {
      await this.notifier.notify(projectId, `rollout:${canary.id}:${status}`, 'rollout', null, {
        type: isPromoted ? 'rollout.promoted' : 'rollout.rolled_back',
        projectId,
        summary: summarize(canary, outcome),
        rollout: {
          canaryId: canary.id,
          tool: canary.tool,
          warningId: canary.warningId,
          previousVersion: canary.previousVersion,
          canaryVersion: canary.canaryVersion,
          share: canary.share,
          status,
          decision,
        },
      });
    } catch (error) {
      this.logger.error({ projectId, canaryId: canary.id, err: (error as Error).message }, 'could not queue the rollout notification');
    }
  }
}

function toDecisionRecord(
  outcome: CanaryDecision,
  canary: RunningCanary,
  counted: 'matched_mistakes' | 'errors',
  day: Date,
): Record<string, unknown> {
  const side = (version: number, estimated: EffectEstimate['withWarning']) => ({
    version,
    calls: estimated.calls,
    mistakes: estimated.mistakes,
    rate: estimated.rate,
    ci95: estimated.ci95,
  });
  const { estimate } = outcome;
  return {
    action: outcome.action,
    reason: outcome.reason,
    counted,
    canary: side(canary.canaryVersion, estimate.withWarning),
    previous: side(canary.previousVersion, estimate.withoutWarning),
    relativeChange: estimate.relativeChange,
    pValue: estimate.pValue,
    verdict: estimate.verdict,
    decidedFor: day.toISOString().slice(0, 10),
  };
}

function summarize(canary: RunningCanary, outcome: CanaryDecision): string {
  const { withWarning: ours, withoutWarning: theirs, pValue } = outcome.estimate;
  const rate = (side: typeof ours) => `${Math.round((side.rate ?? 0) * 1000) / 10}% (${side.mistakes} of ${side.calls} calls)`;
  const verb = outcome.action === 'promote' ? 'promoted' : 'rolled back';
  return (
    `Canary version ${canary.canaryVersion} of tool ${quoted(canary.tool)} ${verb}: mistakes ${rate(ours)} against ` +
    `${rate(theirs)} with version ${canary.previousVersion}, p = ${pValue === null ? 'n/a' : pValue.toPrecision(2)}`
  );
}

function startOfDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}
