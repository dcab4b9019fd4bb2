import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../infra/prisma/prisma.service';
import { GUARD_MODES, GuardMode, GuardPolicy } from './guard.schemas';

/** A project without a policy row: the guard corrects what is safe and refuses what is not (docs/guard.md). */
export const DEFAULT_GUARD_POLICY: GuardPolicy = { mode: 'correct' };

/** The guard policy per project, served in every tool's guard section. */
@Injectable()
export class GuardPolicyRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findPolicy(projectId: string): Promise<GuardPolicy> {
    const row = await this.prisma.guardPolicy.findUnique({ where: { projectId }, select: { mode: true } });
    return row && isGuardMode(row.mode) ? { mode: row.mode } : DEFAULT_GUARD_POLICY;
  }

  /** Writes the fields `patch` has and answers the whole resulting policy, in one INSERT ... ON CONFLICT DO UPDATE. */
  async updatePolicy(projectId: string, patch: Partial<GuardPolicy>): Promise<GuardPolicy> {
    const row = await this.prisma.guardPolicy.upsert({
      where: { projectId },
      create: { projectId, mode: patch.mode ?? DEFAULT_GUARD_POLICY.mode },
      update: { mode: patch.mode, updatedAt: new Date() },
      select: { mode: true },
    });
    return isGuardMode(row.mode) ? { mode: row.mode } : DEFAULT_GUARD_POLICY;
  }
}

function isGuardMode(mode: string): mode is GuardMode {
  return (GUARD_MODES as readonly string[]).includes(mode);
}
