import { Injectable } from '@nestjs/common';
import { GuardStatsQueries } from './guard-stats.queries';
import { StatsRange } from './stats-range';

/** GET /v1/tools/:name/guard-stats: the guard's corrections (per kind) and prevented calls of one tool, per day. */
@Injectable()
export class GuardStatsService {
  constructor(private readonly queries: GuardStatsQueries) {}

  async guardStats(projectId: string, tool: string, range: StatsRange) {
    const days = await this.queries.findGuardDays(projectId, tool, range);
    const totals = { corrected: 0, prevented: 0, byKind: {} as Record<string, number> };
    for (const day of days) {
      totals.corrected += day.corrected;
      totals.prevented += day.prevented;
      for (const [kind, count] of Object.entries(day.byKind)) totals.byKind[kind] = (totals.byKind[kind] ?? 0) + count;
    }
    const series = days.map((day) => ({ ...day, day: day.day.toISOString() }));
    return { tool, from: range.from.toISOString(), to: range.to.toISOString(), bucket: range.bucket, totals, series };
  }
}
