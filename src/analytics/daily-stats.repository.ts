import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { DailyToolStatRow, ToolDayTotals } from './daily-stats';
import { MistakeMatch } from './recommendation-rules';

const DAY_MS = 86_400_000;

/** The per-day numbers: reads the worker's hourly and daily rollups, writes daily_tool_stats. Every read is bounded by tools x days. */
@Injectable()
export class DailyStatsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findProjectIds(): Promise<string[]> {
    return this.prisma.project.findMany({ select: { id: true } }).then((rows) => rows.map((r) => r.id));
  }

  /** Sums one UTC day of hourly rollups per tool, with the 7 days before it. */
  async sumToolDays(projectId: string, day: Date): Promise<ToolDayTotals[]> {
    const next = new Date(day.getTime() + DAY_MS);
    const weekBefore = new Date(day.getTime() - 7 * DAY_MS);
    const [hours, errors, previous] = await Promise.all([
      this.prisma.hourlyRollup.findMany({
        where: { projectId, hour: { gte: day, lt: next } },
        select: { tool: true, calls: true, errors: true, latencyCount: true, latencyBuckets: true },
      }),
      this.prisma.hourlyErrorRollup.groupBy({
        by: ['tool', 'category', 'subtype'],
        where: { projectId, hour: { gte: day, lt: next } },
        _sum: { count: true },
      }),
      this.prisma.hourlyRollup.groupBy({
        by: ['tool'],
        where: { projectId, hour: { gte: weekBefore, lt: day } },
        _sum: { calls: true, errors: true },
      }),
    ]);
    const totals = new Map<string, ToolDayTotals>();
    for (const hour of hours) {
      const total = totals.get(hour.tool) ?? {
        tool: hour.tool,
        calls: 0,
        errors: 0,
        latencyCount: 0,
        latencyBuckets: [],
        errorsByCategory: [],
        prev7Calls: 0,
        prev7Errors: 0,
      };
      total.calls += hour.calls;
      total.errors += hour.errors;
      total.latencyCount += hour.latencyCount;
      hour.latencyBuckets.forEach((count, i) => (total.latencyBuckets[i] = (total.latencyBuckets[i] ?? 0) + count));
      totals.set(hour.tool, total);
    }
    for (const row of errors) {
      totals.get(row.tool)?.errorsByCategory.push({ category: row.category, subtype: row.subtype, count: row._sum.count ?? 0 });
    }
    for (const row of previous) {
      const total = totals.get(row.tool);
      if (!total) continue;
      total.prev7Calls = row._sum.calls ?? 0;
      total.prev7Errors = row._sum.errors ?? 0;
    }
    return [...totals.values()];
  }

  /** Replaces the day's stats, so re-running a day gives the same rows. */
  async replaceDailyToolStats(projectId: string, day: Date, rows: readonly DailyToolStatRow[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.dailyToolStat.deleteMany({ where: { projectId, day } }),
      this.prisma.dailyToolStat.createMany({
        data: rows.map((row) => ({
          projectId,
          day,
          tool: row.tool,
          calls: row.calls,
          successes: row.successes,
          errors: row.errors,
          successRate: row.successRate,
          errorsByCategory: row.errorsByCategory,
          errorsBySubtype: row.errorsBySubtype,
          latencyCount: row.latencyCount,
          latencyBuckets: row.latencyBuckets,
          latencyP50Ms: row.latencyP50Ms,
          latencyP95Ms: row.latencyP95Ms,
          prev7Calls: row.prev7Calls,
          prev7SuccessRate: row.prev7SuccessRate,
          successRateChange: row.successRateChange,
        })),
      }),
    ]);
  }

  findDailyToolStats(projectId: string, day: Date) {
    return this.prisma.dailyToolStat.findMany({ where: { projectId, day } });
  }

  /** Calls and matching mistakes per description version (0: not reported) and day, for one tool, up to `until`. */
  async countMistakesByVersion(projectId: string, tool: string, match: MistakeMatch, until: Date) {
    const [calls, mistakes] = await Promise.all([
      this.prisma.dailyVersionRollup.findMany({
        where: { projectId, tool, day: { lt: until } },
        select: { day: true, descriptionVersion: true, calls: true },
      }),
      this.prisma.dailyMistakeRollup.groupBy({
        by: ['day', 'descriptionVersion'],
        where: {
          projectId,
          tool,
          day: { lt: until },
          category: { in: match.categories },
          subtype: { in: match.subtypes },
          argumentPath: { in: match.argumentPaths },
        },
        _sum: { count: true },
      }),
    ]);
    return {
      calls: calls.map((c) => ({ day: c.day, version: c.descriptionVersion, count: c.calls })),
      mistakes: mistakes.map((m) => ({ day: m.day, version: m.descriptionVersion, count: m._sum.count ?? 0 })),
    };
  }
}
