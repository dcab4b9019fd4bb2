import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { quoted } from '../alerts/alert-conditions';
import { AlertNotifier } from '../alerts/alert-notifier.service';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import type { CanaryDesign, RunningCanary } from '../registry/registry.types';
import type { CanarySides } from './canary-sides';

/** How a canary ended, for its notification: by a nightly's look or by a person (promote, stop, policy off). */
export interface CanaryEnding {
  action: 'promote' | 'roll_back';
  reason: string;
  design: CanaryDesign;
  decision: Record<string, unknown>;
  /** The sides the one-line summary quotes. */
  sides: CanarySides;
}

/**
 * Tells the project's alert destinations that a canary ended (docs/rollout.md, docs/alerts.md): a `rollout.promoted`
 * or `rollout.rolled_back` notification, queued once per canary and destination, whoever decided. A notification that
 * cannot be queued is logged; the decision stands (it is on the version history either way).
 */
@Injectable()
export class RolloutNotifier {
  private readonly logger: Logger;

  constructor(
    private readonly notifier: AlertNotifier,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'RolloutNotifier' });
  }

  async notifyEnd(projectId: string, canary: RunningCanary, ending: CanaryEnding): Promise<void> {
    const isPromoted = ending.action === 'promote';
    const status = isPromoted ? 'promoted' : 'rolled_back';
    try {
      await this.notifier.notify(projectId, `rollout:${canary.id}:${status}`, 'rollout', null, {
        type: isPromoted ? 'rollout.promoted' : 'rollout.rolled_back',
        projectId,
        summary: summarize(canary, ending),
        rollout: {
          canaryId: canary.id,
          tool: canary.tool,
          warningId: canary.warningId,
          warningIds: canary.warningIds,
          design: ending.design,
          previousVersion: canary.previousVersion,
          canaryVersion: canary.canaryVersion,
          share: canary.share,
          status,
          decision: ending.decision,
        },
      });
    } catch (error) {
      this.logger.error({ projectId, canaryId: canary.id, err: (error as Error).message }, 'could not queue the rollout notification');
    }
  }
}

function summarize(canary: RunningCanary, ending: CanaryEnding): string {
  const rate = (side: { calls: number; mistakes: number }) =>
    `${side.calls === 0 ? 0 : Math.round((side.mistakes / side.calls) * 1000) / 10}% (${side.mistakes} of ${side.calls} calls)`;
  const verb = ending.action === 'promote' ? 'promoted' : 'rolled back';
  return (
    `Canary version ${canary.canaryVersion} of tool ${quoted(canary.tool)} ${verb} (${ending.reason}): mistakes ${rate(ending.sides.canary)} against ` +
    `${rate(ending.sides.previous)} with version ${canary.previousVersion}`
  );
}
