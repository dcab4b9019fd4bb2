import { Injectable } from '@nestjs/common';
import type { ValueCounts } from '../statistics/effect-breakdown';
import type { DailyVersionCount } from '../statistics/effect-statistics';
import { CanaryChangesService } from '../registry/serving/canary-changes.service';
import type { RunningCanary } from '../registry/registry.types';
import { CanaryCountsRepository } from './canary-counts.repository';
import { judgeCanary, WarningCounts } from './canary-judgement';
import { breakDownCanary, sumCanarySides } from './canary-sides';
import { RolloutNotifier } from './rollout-notifier';

const DAY_MS = 86_400_000;

export interface VersionCounts {
  calls: DailyVersionCount[];
  mistakes: DailyVersionCount[];
  /** The same counts per model and per framework, for the breakdown reported beside the decision; null without. */
  breakdown?: ValueCounts[] | null;
}

/** Every diagnosed mistake of the canary's tool per model and per framework, version and day (for a warning without a match). */
export type ErrorBreakdownCounter = (canary: RunningCanary) => Promise<ValueCounts[] | null>;

/**
 * The calls and one of the canary's warnings' own mistakes per version and day up to the end of the judged day, when a
 * recommendation says which mistake the warning is about; null for a warning without one (every failure counts).
 */
export type MatchedMistakeCounter = (canary: RunningCanary, warningId: string) => Promise<VersionCounts | null>;

export interface DecidedCanary {
  canary: RunningCanary;
  action: 'promote' | 'roll_back';
  /** The warnings dismissed (all of them, or the harmful ones of a canary that tested several). */
  rolledBackWarningIds: string[];
  decision: Record<string, unknown>;
}

export interface CanaryNight {
  decided: DecidedCanary[];
  /** Tools whose canary still runs: until it is decided, the nightly changes nothing else in their description. */
  runningTools: Set<string>;
}

/**
 * The nightly's canary step (docs/rollout.md): each running canary of the project is looked at on the calls up to the
 * end of `day`, each of its warnings on its own mistake, then promoted, rolled back (the harmful warnings) or left
 * running for another look, which, for an alternating canary, serves the other version until the next one. Each
 * decision is recorded with its numbers and notified through the project's alert destinations (a `rollout` event).
 */
@Injectable()
export class CanaryDecisionService {
  constructor(
    private readonly canaries: CanaryChangesService,
    private readonly counts: CanaryCountsRepository,
    private readonly notifier: RolloutNotifier,
  ) {}

  async decideCanaries(
    projectId: string,
    day: Date,
    countMatched: MatchedMistakeCounter,
    countErrorBreakdown: ErrorBreakdownCounter = async () => null,
  ): Promise<CanaryNight> {
    const until = new Date(day.getTime() + DAY_MS);
    // a backfilled day is decided as of its end, like the warnings the nightly applies
    const at = new Date(Math.min(Date.now(), until.getTime()));
    const night: CanaryNight = { decided: [], runningTools: new Set() };
    for (const canary of await this.canaries.findRunningCanaries(projectId)) {
      const counters = { countMatched, countErrorBreakdown };
      const decided = canary.startedAt < until ? await this.lookAt(projectId, canary, day, until, at, counters) : null;
      if (decided) night.decided.push(decided);
      else night.runningTools.add(canary.tool);
    }
    return night;
  }

  /** The decision carried out, or null when the canary keeps running (or a newer version superseded it meanwhile). */
  private async lookAt(
    projectId: string,
    canary: RunningCanary,
    day: Date,
    until: Date,
    at: Date,
    counters: { countMatched: MatchedMistakeCounter; countErrorBreakdown: ErrorBreakdownCounter },
  ): Promise<DecidedCanary | null> {
    const look = judgeCanary(canary, await this.countWarnings(projectId, canary, until, counters), day);
    if (look.action === 'wait') {
      await this.canaries.recordCanaryLook(projectId, canary, { design: look.design, state: look.state });
      return null;
    }
    const action = look.action;
    const isDone =
      action === 'promote'
        ? await this.canaries.promoteCanary(projectId, canary, look.decision, at)
        : await this.canaries.rollBackCanary(projectId, canary, look.rolledBackWarningIds, look.decision, at);
    if (!isDone) return null;
    await this.notifier.notifyEnd(projectId, canary, { ...look, action, sides: look.headline });
    return { canary, action, rolledBackWarningIds: look.rolledBackWarningIds, decision: look.decision };
  }

  /** Each warning's sides: its own mistakes when the nightly can match them, else every failure of the tool. */
  private async countWarnings(
    projectId: string,
    canary: RunningCanary,
    until: Date,
    { countMatched, countErrorBreakdown }: { countMatched: MatchedMistakeCounter; countErrorBreakdown: ErrorBreakdownCounter },
  ): Promise<WarningCounts[]> {
    const warningIds = canary.warningIds.length > 0 ? canary.warningIds : canary.warningId ? [canary.warningId] : [];
    let errors: VersionCounts | null = null;
    const countErrors = async () => (errors ??= (await this.counts.countErrorsOfCanaries(projectId, [canary], until)).get(canary.id)!);
    let errorBreakdown: ValueCounts[] | null | undefined;
    const countErrorValues = async () =>
      errorBreakdown === undefined ? (errorBreakdown = await countErrorBreakdown(canary)) : errorBreakdown;
    const counted: WarningCounts[] = [];
    for (const warningId of warningIds) {
      const matched = await countMatched(canary, warningId);
      counted.push({
        warningId,
        counted: matched ? 'matched_mistakes' : 'errors',
        sides: sumCanarySides(matched ?? (await countErrors()), canary),
        breakdown: breakDownCanary(canary, matched ? (matched.breakdown ?? null) : await countErrorValues()),
      });
    }
    if (counted.length === 0) {
      const breakdown = breakDownCanary(canary, await countErrorValues());
      counted.push({ warningId: null, counted: 'errors', sides: sumCanarySides(await countErrors(), canary), breakdown });
    }
    return counted;
  }
}
