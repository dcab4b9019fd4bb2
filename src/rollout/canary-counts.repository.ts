import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { DailyVersionCount } from '../statistics/effect-statistics';
import type { RunningCanary } from '../registry/registry.types';
import { firstCountedDay } from './canary-sides';

/**
 * Calls and failed calls per description version and day of a canary's tool, from the worker's daily version rollups:
 * what a canary is judged on when its warning has no recommendation to say which mistake it is about (a manual
 * warning), and the live sides a running canary shows.
 */
@Injectable()
export class CanaryCountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The counts of each of `canaries` (by canary id), of its two versions from the UTC day before it started (its
   * baseline) until `until` (else up to now): one query for a page of canaries, not one per canary.
   */
  async countErrorsOfCanaries(
    projectId: string,
    canaries: readonly RunningCanary[],
    until?: Date,
  ): Promise<Map<string, { calls: DailyVersionCount[]; mistakes: DailyVersionCount[] }>> {
    const counts = new Map(
      canaries.map((canary) => [canary.id, { calls: [] as DailyVersionCount[], mistakes: [] as DailyVersionCount[] }]),
    );
    if (canaries.length === 0) return counts;
    const rows = await this.prisma.dailyVersionRollup.findMany({
      where: {
        projectId,
        OR: canaries.map((canary) => ({
          tool: canary.tool,
          descriptionVersion: { in: [canary.canaryVersion, canary.previousVersion] },
          day: { gte: firstCountedDay(canary.startedAt), ...(until ? { lt: until } : {}) },
        })),
      },
      select: { tool: true, day: true, descriptionVersion: true, calls: true, errors: true },
    });
    for (const canary of canaries) {
      const own = counts.get(canary.id)!;
      for (const row of rows) {
        if (row.tool !== canary.tool) continue;
        own.calls.push({ day: row.day, version: row.descriptionVersion, count: row.calls });
        own.mistakes.push({ day: row.day, version: row.descriptionVersion, count: row.errors });
      }
    }
    return counts;
  }
}
