import { Injectable } from '@nestjs/common';
import { RegistryChangesChannel } from './registry-changes.channel';
import type { CanaryRecord, CanaryStatus, RunningCanary, WarningRecord } from './registry.types';
import { desiredOf } from './tool-changes.service';
import { CanaryNotRunningError, ToolRepository } from './tool.repository';
import { planToolChange } from './tool-versioning';

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
    private readonly changes: RegistryChangesChannel,
  ) {}

  findRunningCanaries(projectId: string): Promise<RunningCanary[]> {
    return this.tools.findRunningCanaries(projectId);
  }

  findRunningAutoCanaries(projectId: string): Promise<RunningCanary[]> {
    return this.tools.findRunningAutoCanaries(projectId);
  }

  findCanary(projectId: string, id: string): Promise<CanaryRecord | null> {
    return this.tools.findCanary(projectId, id);
  }

  listCanaries(
    projectId: string,
    filter: { tool?: string; status?: CanaryStatus; before?: { startedAt: Date; id: string }; limit: number },
  ): Promise<CanaryRecord[]> {
    return this.tools.listCanaries(projectId, filter);
  }

  /** False when the canary was no longer running (a newer version superseded it). */
  async promoteCanary(projectId: string, canary: RunningCanary, decision: Record<string, unknown>, at: Date): Promise<boolean> {
    const tool = await this.tools.finishCanary(projectId, { id: canary.id, status: 'promoted', decision, at });
    if (tool) await this.changes.publish({ projectId, tool });
    return tool !== null;
  }

  /**
   * Dismisses the canary's warning (reason `rolled_back`) and records the decision, in one transaction under the
   * tool's lock; the version that makes is served to everyone. False when the canary was no longer running.
   */
  async rollBackCanary(projectId: string, canary: RunningCanary, decision: Record<string, unknown>, at: Date): Promise<boolean> {
    try {
      await this.tools.changeTool(projectId, canary.tool, (state) => {
        const canaryEnd = { id: canary.id, status: 'rolled_back' as const, decision, at };
        const warning = state?.warnings.find((each) => each.id === canary.warningId);
        if (!state || !warning || warning.status !== 'active') return { plan: null, result: undefined, canaryEnd };
        const dismissed: WarningRecord = { ...warning, status: 'dismissed', dismissedReason: ROLLED_BACK_REASON, updatedAt: at };
        const warnings = state.warnings.map((each) => (each.id === warning.id ? dismissed : each));
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
