import { Injectable } from '@nestjs/common';
import { CanaryChangesService } from '../registry/canary-changes.service';
import type { CanaryRecord, CanarySettings, CanaryStatus } from '../registry/registry.types';
import { RolloutPolicy, RolloutPolicyRepository } from './rollout-policy.repository';

/** What people and the nightly ask of guarded rollout: the policy, the canaries, the settings of a new one. */
@Injectable()
export class RolloutService {
  constructor(
    private readonly policies: RolloutPolicyRepository,
    private readonly canaries: CanaryChangesService,
  ) {}

  getPolicy(projectId: string): Promise<RolloutPolicy> {
    return this.policies.findPolicy(projectId);
  }

  async setPolicy(
    projectId: string,
    policy: Omit<RolloutPolicy, 'design'> & Partial<Pick<RolloutPolicy, 'design'>>,
  ): Promise<RolloutPolicy> {
    const stored = { ...policy, design: policy.design ?? (await this.policies.findPolicy(projectId)).design };
    await this.policies.upsertPolicy(projectId, stored);
    return stored;
  }

  /** The settings a warning the nightly applies by itself starts its canary with; null when the policy is off. */
  async findAutoCanarySettings(projectId: string): Promise<CanarySettings | null> {
    const policy = await this.policies.findPolicy(projectId);
    return policy.enabled ? { design: policy.design, share: policy.share, minCalls: policy.minCalls } : null;
  }

  listCanaries(
    projectId: string,
    filter: { tool?: string; status?: CanaryStatus; before?: { startedAt: Date; id: string }; limit: number },
  ): Promise<CanaryRecord[]> {
    return this.canaries.listCanaries(projectId, filter);
  }
}
