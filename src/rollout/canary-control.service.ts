import { Injectable } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { isUuid } from '../infra/http/storable-values';
import { CanaryChangesService } from '../registry/serving/canary-changes.service';
import type { CanaryRecord, RunningCanary } from '../registry/registry.types';
import { CanaryCountsRepository } from './canary-counts.repository';
import { sideNumbers } from './canary-judgement';
import { RolloutNotifier } from './rollout-notifier';
import { CanarySides, sumCanarySides } from './canary-sides';

/** The reason a canary ended by switching the rollout policy off is recorded with (docs/rollout.md). */
const POLICY_OFF_REASON = 'rollout policy switched off';

export type CanaryEndAction = 'promote' | 'roll_back';

/** A running canary's calls and failed calls per side so far; null on a canary that ended. */
export interface LiveSides {
  counted: 'errors';
  canary: { version: number; calls: number; mistakes: number };
  previous: { version: number; calls: number; mistakes: number };
}

export type CanaryView = CanaryRecord & { sides: LiveSides | null };

const HAND_REASONS: Record<CanaryEndAction, string> = { promote: 'promoted by hand', roll_back: 'stopped by hand' };

/**
 * What a person steers of running canaries, beside the nightly's decisions: promote or stop one by hand, end the
 * nightly's canaries when the policy is switched off, and see the live counts of each side. The counts are every
 * failed call per version (the version rollups): the matched mistake a recommendation names is the nightly's to count,
 * and analytics builds on rollout, not the other way round.
 */
@Injectable()
export class CanaryControlService {
  constructor(
    private readonly canaries: CanaryChangesService,
    private readonly counts: CanaryCountsRepository,
    private readonly notifier: RolloutNotifier,
  ) {}

  /** Ends the canary `id` as `action` says, with a decision `by: api` on the counts so far; the canary as it ended. */
  async endByHand(projectId: string, id: string, action: CanaryEndAction): Promise<CanaryView> {
    const canary = isUuid(id) ? await this.canaries.findCanary(projectId, id) : null;
    if (!canary) throw notFound('canary', id);
    if (canary.status === 'running' && (await this.end(projectId, canary, action, HAND_REASONS[action]))) {
      return { ...((await this.canaries.findCanary(projectId, id)) ?? canary), sides: null };
    }
    // a nightly or a new version may have ended it since it was read: say how it ended
    const ended = canary.status === 'running' ? ((await this.canaries.findCanary(projectId, id)) ?? canary) : canary;
    throw canaryNotRunning(id, ended.status);
  }

  /**
   * Promotes every running canary the nightly started: with the policy off the nightly serves its warnings to everyone
   * at once, so that is what they become. Canaries of warnings added by hand asked for a canary themselves: they run on.
   */
  async endAutoCanaries(projectId: string): Promise<Array<{ id: string; tool: string; status: 'promoted' }>> {
    const ended: Array<{ id: string; tool: string; status: 'promoted' }> = [];
    for (const canary of await this.canaries.findRunningAutoCanaries(projectId)) {
      // one a nightly or a person ended meanwhile is no longer this switch's to end
      if (await this.end(projectId, canary, 'promote', POLICY_OFF_REASON))
        ended.push({ id: canary.id, tool: canary.tool, status: 'promoted' });
    }
    return ended;
  }

  /** Each canary with its live sides (running ones), counted for the whole page in one query. */
  async withLiveSides(projectId: string, canaries: readonly CanaryRecord[]): Promise<CanaryView[]> {
    const running = canaries.filter((canary) => canary.status === 'running');
    const counts = await this.counts.countErrorsOfCanaries(projectId, running);
    return canaries.map((canary) => {
      const own = counts.get(canary.id);
      return { ...canary, sides: own ? toLiveSides(sumCanarySides(own, canary), canary) : null };
    });
  }

  /** False when the canary was no longer running. */
  private async end(projectId: string, canary: RunningCanary, action: CanaryEndAction, reason: string): Promise<boolean> {
    const [counts] = (await this.counts.countErrorsOfCanaries(projectId, [canary])).values();
    const sides = sumCanarySides(counts, canary);
    const decision = toApiDecision(action, reason, sides, canary);
    const at = new Date();
    const isDone =
      action === 'promote'
        ? await this.canaries.promoteCanary(projectId, canary, decision, at)
        : await this.canaries.rollBackCanary(projectId, canary, [], decision, at);
    // a person's decision reaches the alert destinations as the nightly's does
    if (isDone) await this.notifier.notifyEnd(projectId, canary, { action, reason, design: canary.design, decision, sides });
    return isDone;
  }
}

function canaryNotRunning(id: string, status: string): ApiError {
  return new ApiError(409, 'canary_not_running', `Canary ${JSON.stringify(id)} is not running: it ended as ${status}`);
}

function toLiveSides(sides: CanarySides, canary: RunningCanary): LiveSides {
  return {
    counted: 'errors',
    canary: { version: canary.canaryVersion, ...sides.canary },
    previous: { version: canary.previousVersion, ...sides.previous },
  };
}

/** The decision record of a canary ended through the API: the nightly's shape, on the counts up to now. */
function toApiDecision(action: CanaryEndAction, reason: string, sides: CanarySides, canary: RunningCanary): Record<string, unknown> {
  return {
    action,
    reason,
    by: 'api',
    counted: 'errors',
    design: canary.design,
    look: canary.looks,
    ...sideNumbers(canary, sides),
    decidedFor: null,
  };
}
