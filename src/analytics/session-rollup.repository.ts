import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { DailyVersionCount } from '../statistics/effect-statistics';
import type { ToolRepeats } from './repeat-rules';

const DAY_MS = 86_400_000;

/**
 * daily_session_rollups: per tool, day and description version, the sessions that called the tool, their calls of it,
 * their steps and their repeated calls (docs/description-cost.md). Written by the nightly, one day at a time.
 */
@Injectable()
export class SessionRollupRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Replaces `day`'s rows from the day's events that have a session id. Identical calls are the same tool, version
   * and arguments (jsonb text: key order normalized), hashed; each beyond `maxIdentical` in a session is a repeat.
   * One INSERT ... SELECT over one range of the (project_id, occurred_at) index: no event leaves the database.
   */
  async replaceSessionRollups(projectId: string, day: Date, maxIdentical: number): Promise<void> {
    const next = new Date(day.getTime() + DAY_MS);
    await this.prisma.$transaction([
      this.prisma.dailySessionRollup.deleteMany({ where: { projectId, day } }),
      this.prisma.$executeRaw`
        INSERT INTO daily_session_rollups
          (project_id, tool, day, description_version, sessions, calls, steps, repeated_calls, sessions_with_repeats)
        WITH day_calls AS (
          SELECT tool, session_id, coalesce(description_version, 0) AS version, md5(coalesce(arguments::text, 'null')) AS arguments_hash
          FROM events
          WHERE project_id = ${projectId}::uuid AND occurred_at >= ${day} AND occurred_at < ${next} AND session_id IS NOT NULL
        ), identical AS (
          SELECT tool, session_id, version, count(*) AS n FROM day_calls GROUP BY tool, session_id, version, arguments_hash
        ), per_session AS (
          SELECT tool, session_id, version, sum(n) AS calls, sum(greatest(n - ${maxIdentical}::int, 0)) AS repeated
          FROM identical GROUP BY tool, session_id, version
        ), steps AS (
          SELECT session_id, count(*) AS steps FROM day_calls GROUP BY session_id
        )
        SELECT ${projectId}::uuid, p.tool, ${day}::date, p.version, count(*)::int, sum(p.calls)::int, sum(s.steps)::int,
          sum(p.repeated)::int, (count(*) FILTER (WHERE p.repeated > 0))::int
        FROM per_session p JOIN steps s ON s.session_id = p.session_id
        GROUP BY p.tool, p.version`,
    ]);
  }

  /** Each tool's rows summed over [from, until): the evidence of repeated_call recommendations. */
  async sumToolRepeats(projectId: string, from: Date, until: Date): Promise<ToolRepeats[]> {
    const rows = await this.prisma.dailySessionRollup.groupBy({
      by: ['tool'],
      where: { projectId, day: { gte: from, lt: until } },
      _sum: { sessions: true, calls: true, steps: true, repeatedCalls: true, sessionsWithRepeats: true },
      _min: { day: true },
      _max: { day: true },
      orderBy: { tool: 'asc' },
    });
    return rows.map((row) => ({
      tool: row.tool,
      sessions: row._sum.sessions ?? 0,
      calls: row._sum.calls ?? 0,
      steps: row._sum.steps ?? 0,
      repeatedCalls: row._sum.repeatedCalls ?? 0,
      sessionsWithRepeats: row._sum.sessionsWithRepeats ?? 0,
      firstDay: row._min.day ?? from,
      lastDay: row._max.day ?? from,
    }));
  }

  /**
   * For a repeated_call warning: the tool's calls in sessions and its repeated calls per version and day, up to
   * `until` (the two proportions its effect and its canary are judged on).
   */
  async countRepeatsByVersion(
    projectId: string,
    tool: string,
    until: Date,
  ): Promise<{ calls: DailyVersionCount[]; mistakes: DailyVersionCount[] }> {
    const rows = await this.prisma.dailySessionRollup.findMany({
      where: { projectId, tool, day: { lt: until } },
      select: { day: true, descriptionVersion: true, calls: true, repeatedCalls: true },
    });
    return {
      calls: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.calls })),
      mistakes: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.repeatedCalls })),
    };
  }
}
