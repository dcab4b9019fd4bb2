import { Injectable } from '@nestjs/common';
import { RESULT_FAILURE_RULES, ResultFailureRule } from '../diagnosis';
import { PrismaService } from '../infra/prisma/prisma.service';
import { ResultFailurePolicy } from './result-failures.schemas';

/** Which result-failure rules each project turned off; a project without a row has every rule on. */
@Injectable()
export class ResultFailurePolicyRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findPolicy(projectId: string): Promise<ResultFailurePolicy> {
    const row = await this.prisma.resultFailurePolicy.findUnique({ where: { projectId }, select: { disabledRules: true } });
    return { disabledRules: knownRules(row?.disabledRules) };
  }

  /** The turned-off rules of each project that has any, in one query for a group's projects. */
  async findDisabledRules(projectIds: readonly string[]): Promise<Map<string, ReadonlySet<ResultFailureRule>>> {
    const rows = await this.prisma.resultFailurePolicy.findMany({
      where: { projectId: { in: [...projectIds] } },
      select: { projectId: true, disabledRules: true },
    });
    return new Map(rows.map((row) => [row.projectId, new Set(knownRules(row.disabledRules))]));
  }

  /** Writes the fields `patch` has and answers the whole resulting policy, in one INSERT ... ON CONFLICT DO UPDATE. */
  async updatePolicy(projectId: string, patch: Partial<ResultFailurePolicy>): Promise<ResultFailurePolicy> {
    const row = await this.prisma.resultFailurePolicy.upsert({
      where: { projectId },
      create: { projectId, disabledRules: patch.disabledRules ?? [] },
      update: { disabledRules: patch.disabledRules, updatedAt: new Date() },
      select: { disabledRules: true },
    });
    return { disabledRules: knownRules(row.disabledRules) };
  }
}

/** The stored list in RESULT_FAILURE_RULES order, without names no rule has (any more). */
function knownRules(stored: readonly string[] | null | undefined): ResultFailureRule[] {
  return RESULT_FAILURE_RULES.filter((rule) => stored?.includes(rule));
}
