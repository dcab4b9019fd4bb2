import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { DailyVersionCount } from '../analytics/effect-statistics';

/**
 * Calls and failed calls per description version and day of one tool, from the worker's daily version rollups: what
 * a canary is judged on when its warning has no recommendation to say which mistake it is about (a manual warning).
 */
@Injectable()
export class CanaryCountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async countErrorsByVersion(
    projectId: string,
    tool: string,
    versions: readonly number[],
    from: Date,
    until: Date,
  ): Promise<{ calls: DailyVersionCount[]; mistakes: DailyVersionCount[] }> {
    const rows = await this.prisma.dailyVersionRollup.findMany({
      where: { projectId, tool, descriptionVersion: { in: [...versions] }, day: { gte: from, lt: until } },
      select: { day: true, descriptionVersion: true, calls: true, errors: true },
    });
    return {
      calls: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.calls })),
      mistakes: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.errors })),
    };
  }
}
