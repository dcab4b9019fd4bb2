import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { DAY_MS, StatsRange, uncoveredIntervals } from './stats-range';
import { UsageRow } from './stats-series';

/**
 * Reads the rollups the worker and the nightly job maintain; never the events table. Cost grows with tools x buckets:
 * daily_tool_stats by its (project_id, day) index (or its (project_id, tool, day) key for one tool), hourly_rollups and
 * hourly_error_rollups by (project_id, hour) (or their (project_id, tool, hour, ...) keys for one tool).
 */
@Injectable()
export class StatsQueries {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Usage per tool and day (bucket=day) or hour (bucket=hour) in the range. Day buckets come from daily_tool_stats for
   * the days the nightly job computed after they ended; other days (today, days not run yet, a day run before it was
   * over) are summed from the hourly rollups.
   */
  async findUsage(projectId: string, range: StatsRange, tool?: string): Promise<UsageRow[]> {
    if (range.bucket === 'hour') return this.findHourlyUsage(projectId, [range], tool);
    const days = await this.prisma.dailyToolStat.findMany({
      where: { projectId, tool, day: { gte: range.from, lt: range.to } },
      select: { tool: true, day: true, calls: true, errors: true, latencyBuckets: true, errorsByCategory: true, computedAt: true },
    });
    const complete = days.filter((d) => d.computedAt.getTime() >= d.day.getTime() + DAY_MS);
    const covered = new Set(complete.map((d) => d.day.getTime()));
    const rows: UsageRow[] = complete.map((d) => ({
      tool: d.tool,
      start: d.day,
      calls: d.calls,
      errors: d.errors,
      latencyBuckets: d.latencyBuckets,
      errorsByCategory: (d.errorsByCategory ?? {}) as Record<string, number>,
    }));
    const gaps = uncoveredIntervals(range, covered);
    return gaps.length > 0 ? rows.concat(await this.findHourlyUsage(projectId, gaps, tool)) : rows;
  }

  private async findHourlyUsage(projectId: string, intervals: ReadonlyArray<{ from: Date; to: Date }>, tool?: string): Promise<UsageRow[]> {
    const hourIn = intervals.map((i) => ({ hour: { gte: i.from, lt: i.to } }));
    const [hours, errors] = await Promise.all([
      this.prisma.hourlyRollup.findMany({
        where: { projectId, tool, OR: hourIn },
        select: { tool: true, hour: true, calls: true, errors: true, latencyBuckets: true },
      }),
      this.prisma.hourlyErrorRollup.findMany({
        where: { projectId, tool, OR: hourIn },
        select: { tool: true, hour: true, category: true, count: true },
      }),
    ]);
    const byKey = new Map<string, UsageRow & { errorsByCategory: Record<string, number> }>();
    for (const h of hours) {
      byKey.set(`${h.tool}\u0000${h.hour.getTime()}`, {
        tool: h.tool,
        start: h.hour,
        calls: h.calls,
        errors: h.errors,
        latencyBuckets: h.latencyBuckets,
        errorsByCategory: {},
      });
    }
    for (const e of errors) {
      const row = byKey.get(`${e.tool}\u0000${e.hour.getTime()}`);
      if (row) row.errorsByCategory[e.category] = (row.errorsByCategory[e.category] ?? 0) + e.count;
    }
    return [...byKey.values()];
  }
}
