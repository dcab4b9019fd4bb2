import { Injectable } from '@nestjs/common';
import { CanaryChangesService } from '../registry/serving/canary-changes.service';
import type { CanaryRecord, CanarySettings, CanaryStatus, RunningCanary } from '../registry/registry.types';
import { CanaryControlService, CanaryEndAction, CanaryView } from './canary-control.service';
import { RolloutPolicy, RolloutPolicyRepository } from '../registry/serving/rollout-policy.repository';

export interface RolloutPolicyChange extends RolloutPolicy {
  endedCanaries: Array<{ id: string; tool: string; status: 'promoted' }>;
}

/** What people and the nightly ask of guarded rollout: the policy, the canaries, the settings of a new one. */
@Injectable()
export class RolloutService {
  constructor(
    private readonly policies: RolloutPolicyRepository,
    private readonly canaries: CanaryChangesService,
    private readonly control: CanaryControlService,
  ) {}

  getPolicy(projectId: string): Promise<RolloutPolicy> {
    return this.policies.findPolicy(projectId);
  }

  /**
   * Changes the fields `patch` has ({} changes nothing). Setting `enabled` false ends the nightly's running canaries (promoted), after the
   * policy is stored so no nightly starts another; while it is off none run, so only the switch from on ends any.
   */
  async setPolicy(projectId: string, patch: Partial<RolloutPolicy>): Promise<RolloutPolicyChange> {
    if (Object.keys(patch).length === 0) return { ...(await this.policies.findPolicy(projectId)), endedCanaries: [] };
    const policy = await this.policies.updatePolicy(projectId, patch);
    const endedCanaries = patch.enabled === false ? await this.control.endAutoCanaries(projectId) : [];
    return { ...policy, endedCanaries };
  }

  /** The settings a warning the nightly applies by itself starts its canary with; null when the policy is off. */
  async findAutoCanarySettings(projectId: string): Promise<CanarySettings | null> {
    const policy = await this.policies.findPolicy(projectId);
    return policy.enabled ? { design: policy.design, share: policy.share, minCalls: policy.minCalls } : null;
  }

  findRunningCanaries(projectId: string): Promise<RunningCanary[]> {
    return this.canaries.findRunningCanaries(projectId);
  }

  async listCanaries(
    projectId: string,
    filter: { tool?: string; status?: CanaryStatus; before?: { startedAt: Date; id: string }; limit: number },
  ): Promise<CanaryView[]> {
    const rows: CanaryRecord[] = await this.canaries.listCanaries(projectId, filter);
    return this.control.withLiveSides(projectId, rows);
  }

  /** Promotes (served to everyone) or stops (rolled back: its warning dismissed) a running canary by hand. */
  endCanary(projectId: string, id: string, action: CanaryEndAction): Promise<CanaryView> {
    return this.control.endByHand(projectId, id, action);
  }
}
