import { Injectable } from '@nestjs/common';
import { CanaryRepository } from './canary.repository';
import { RegistryChangesChannel } from './registry-changes.channel';
import type { CanaryDesign, CanaryRecord, CanaryStatus, RunningCanary, WarningRecord } from '../registry.types';
import { desiredOf } from '../tools/tool-changes.service';
import { CanaryNotRunningError, ToolRepository } from '../tools/tool.repository';
import { planToolChange } from '../tools/tool-versioning';

/** The reason a rolled-back canary's warning is dismissed with (what GET .../warnings shows). */
export const ROLLED_BACK_REASON = 'rolled_back';

/**
 * The end of a canary (docs/rollout.md): promoted, its version is served to every agent; rolled back, its warning is
 * dismissed, so every agent is served the description without it again. Either way every instance drops the tool's
 * cached answers.
 */
@Injectable()
export class CanaryChangesService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly canaries: CanaryRepository,
    private readonly changes: RegistryChangesChannel,
  ) {}

  findRunningCanaries(projectId: string): Promise<RunningCanary[]> {
    return this.canaries.findRunningCanaries(projectId);
  }

  findRunningAutoCanaries(projectId: string): Promise<RunningCanary[]> {
    return this.canaries.findRunningAutoCanaries(projectId);
  }

  findCanary(projectId: string, id: string): Promise<CanaryRecord | null> {
    return this.canaries.findCanary(projectId, id);
  }

  listCanaries(
    projectId: string,
    filter: { tool?: string; status?: CanaryStatus; before?: { startedAt: Date; id: string }; limit: number },
  ): Promise<CanaryRecord[]> {
    return this.canaries.listCanaries(projectId, filter);
  }

  /** False when the canary was no longer running (a newer version superseded it). */
  async promoteCanary(projectId: string, canary: RunningCanary, decision: Record<string, unknown>, at: Date): Promise<boolean> {
    const tool = await this.canaries.finishCanary(projectId, { id: canary.id, status: 'promoted', decision, at });
    if (tool) await this.changes.publish({ projectId, tool });
    return tool !== null;
  }

  /**
   * A look that leaves the canary running: its numbers and design are kept, and the look counted, which for an
   * alternating canary turns every caller to the other version until the next look (every instance drops the tool's
   * cached answers). False when the canary was no longer running or another look was counted first.
   */
  async recordCanaryLook(
    projectId: string,
    canary: RunningCanary,
    look: { design: CanaryDesign; state: Record<string, unknown> },
  ): Promise<boolean> {
    const isRecorded = await this.canaries.recordCanaryLook(projectId, canary.id, canary.looks, look);
    if (isRecorded) await this.changes.publish({ projectId, tool: canary.tool });
    return isRecorded;
  }

  /**
   * Dismisses `warningIds` of the canary's warnings (reason `rolled_back`; all of them when none are named) and records
   * the decision, in one transaction under the tool's lock; the version that makes is served to everyone, with the
   * canary's other warnings. False when the canary was no longer running.
   */
  async rollBackCanary(
    projectId: string,
    canary: RunningCanary,
    warningIds: readonly string[],
    decision: Record<string, unknown>,
    at: Date,
  ): Promise<boolean> {
    const dismissedIds = new Set(
      warningIds.length > 0 ? warningIds : [...canary.warningIds, ...(canary.warningId ? [canary.warningId] : [])],
    );
    try {
      await this.tools.changeTool(projectId, canary.tool, (state) => {
        const canaryEnd = { id: canary.id, status: 'rolled_back' as const, decision, at };
        const isDismissed = (warning: WarningRecord) => dismissedIds.has(warning.id) && warning.status === 'active';
        if (!state || !state.warnings.some(isDismissed)) return { plan: null, result: undefined, canaryEnd };
        const warnings = state.warnings.map((each): WarningRecord =>
          isDismissed(each) ? { ...each, status: 'dismissed', dismissedReason: ROLLED_BACK_REASON, updatedAt: at } : each,
        );
        return { plan: planToolChange(state, { ...desiredOf(state), warnings }), result: undefined, canaryEnd };
      });
    } catch (error) {
      if (error instanceof CanaryNotRunningError) return false;
      throw error;
    }
    await this.changes.publish({ projectId, tool: canary.tool });
    return true;
  }
}
