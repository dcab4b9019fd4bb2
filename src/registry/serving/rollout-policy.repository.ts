import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../infra/prisma/prisma.service';
import type { CanaryDesign } from '../registry.types';

/** Whether the nightly's automatic warnings start as canaries, and with which share and minimum of calls a side. */
export interface RolloutPolicy {
  enabled: boolean;
  share: number;
  minCalls: number;
  design: CanaryDesign;
}

/** A project without a policy row: on, alternating for every caller, 100 calls a side (docs/rollout.md). */
export const DEFAULT_ROLLOUT_POLICY: RolloutPolicy = { enabled: true, share: 0.2, minCalls: 100, design: 'alternating' };

/** The rollout policy per project. A leaf: the registry reads it when a manual warning asks for a canary. */
@Injectable()
export class RolloutPolicyRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findPolicy(projectId: string): Promise<RolloutPolicy> {
    const row = await this.prisma.rolloutPolicy.findUnique({
      where: { projectId },
      select: { isEnabled: true, share: true, minCalls: true, design: true },
    });
    return row
      ? { enabled: row.isEnabled, share: row.share, minCalls: row.minCalls, design: row.design as CanaryDesign }
      : DEFAULT_ROLLOUT_POLICY;
  }

  /**
   * Writes the fields `patch` has and answers the whole resulting policy. One INSERT ... ON CONFLICT DO UPDATE that sets
   * only those columns: two partial updates of different fields at once both stay.
   */
  async updatePolicy(projectId: string, patch: Partial<RolloutPolicy>): Promise<RolloutPolicy> {
    const data = { isEnabled: patch.enabled, share: patch.share, minCalls: patch.minCalls, design: patch.design };
    const created = { ...DEFAULT_ROLLOUT_POLICY, ...patch };
    const row = await this.prisma.rolloutPolicy.upsert({
      where: { projectId },
      create: { projectId, isEnabled: created.enabled, share: created.share, minCalls: created.minCalls, design: created.design },
      update: { ...data, updatedAt: new Date() },
      select: { isEnabled: true, share: true, minCalls: true, design: true },
    });
    return { enabled: row.isEnabled, share: row.share, minCalls: row.minCalls, design: row.design as CanaryDesign };
  }
}
