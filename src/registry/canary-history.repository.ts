import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { CanaryDesign } from './registry.types';

/** The canary that tested a warning: its design and the warnings it tested together (each on its own mistake). */
export interface WarningTest {
  canaryId: string;
  design: CanaryDesign;
  status: string;
  /** The other warnings of the same canary version. */
  testedWith: string[];
}

/** Which canary tested each warning, for the effect measurement to say how its effect was established. */
@Injectable()
export class CanaryHistoryRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The latest decided canary of each of `warningIds` that had one. */
  async findTestsOfWarnings(projectId: string, warningIds: readonly string[]): Promise<Map<string, WarningTest>> {
    const tests = new Map<string, WarningTest>();
    if (warningIds.length === 0) return tests;
    const rows = await this.prisma.canary.findMany({
      where: { projectId, warningIds: { hasSome: [...warningIds] }, status: { in: ['promoted', 'rolled_back'] } },
      select: { id: true, design: true, status: true, warningIds: true },
      orderBy: { startedAt: 'asc' },
    });
    for (const row of rows) {
      for (const warningId of row.warningIds) {
        tests.set(warningId, {
          canaryId: row.id,
          design: row.design as CanaryDesign,
          status: row.status,
          testedWith: row.warningIds.filter((other) => other !== warningId),
        });
      }
    }
    return tests;
  }
}
