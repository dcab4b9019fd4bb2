import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { DailyToolStatRow, ToolDayTotals } from './daily-stats';
import { DailyVersionCount } from '../statistics/effect-statistics';
import { MistakeMatch } from './recommendation-drafts';

/** A called name the nightly matched to a registered tool (see intended-tool). */
export interface MisnamedTool {
  calledName: string;
  tool: string;
}

/** How far beyond the day a session's calls of the intended tool are read, to find the version a misnamed call saw: a bound on the work. */
const SESSION_SLACK = '1 hour';

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

  /** Calls per tool and day in [from, until), from the per-version rollups: the denominators of the served warnings. */
  async sumCallsByDay(
    projectId: string,
    tools: readonly string[],
    from: Date,
    until: Date,
  ): Promise<Array<{ tool: string; day: Date; calls: number }>> {
    if (tools.length === 0) return [];
    const rows = await this.prisma.dailyVersionRollup.groupBy({
      by: ['tool', 'day'],
      where: { projectId, tool: { in: [...tools] }, day: { gte: from, lt: until } },
      _sum: { calls: true },
    });
    return rows.map((row) => ({ tool: row.tool, day: row.day, calls: row._sum.calls ?? 0 }));
  }

  /**
   * Replaces the day's misnamed calls: each call to a misnamed tool's called name (category unknown_tool) counted
   * against the version of the intended tool its session had loaded at the time of the call. A long-lived session (an
   * MCP client re-lists after list_changed) loads several versions, so the version is read per call: that of the
   * session's latest call of the intended tool at or before it; else that of its next one, unless a new version
   * became current in between (the session may have loaded it after the mistake); else the version the call itself
   * reported; else 0. Reads one day (and SESSION_SLACK) of the two names' events through the (project_id, tool,
   * occurred_at) index, and orders each session's calls once.
   */
  async replaceMisnamedCalls(projectId: string, day: Date, misnamed: readonly MisnamedTool[]): Promise<void> {
    const next = new Date(day.getTime() + DAY_MS);
    const counts = await Promise.all(
      misnamed.map(async ({ calledName, tool }) => {
        const rows = await this.prisma.$queryRaw<{ version: number; calls: number }[]>`
          WITH wrong AS (
            SELECT id, session_id, occurred_at, description_version FROM events
            WHERE project_id = ${projectId}::uuid AND tool = ${calledName} AND category = 'unknown_tool'
              AND occurred_at >= ${day} AND occurred_at < ${next}
          ), intended AS (
            SELECT id, session_id, occurred_at, description_version FROM events
            WHERE project_id = ${projectId}::uuid AND tool = ${tool} AND description_version IS NOT NULL
              AND occurred_at >= ${day}::timestamptz - ${SESSION_SLACK}::interval
              AND occurred_at < ${next}::timestamptz + ${SESSION_SLACK}::interval
              AND session_id IN (SELECT session_id FROM wrong WHERE session_id IS NOT NULL)
          ), timeline AS (
            -- at one instant the intended call comes first: "at or before" the wrong call
            SELECT *, count(*) FILTER (WHERE is_intended) OVER (PARTITION BY session_id ORDER BY occurred_at, is_intended DESC, id
                        ROWS UNBOUNDED PRECEDING) AS calls_before,
                      count(*) FILTER (WHERE is_intended) OVER (PARTITION BY session_id ORDER BY occurred_at DESC, is_intended DESC, id DESC
                        ROWS UNBOUNDED PRECEDING) AS calls_after
            FROM (SELECT *, false AS is_intended FROM wrong UNION ALL SELECT *, true FROM intended) calls
          ), neighbours AS (
            -- each run of wrong calls starts with the intended call before it (ascending) or after it (descending)
            SELECT occurred_at, description_version, is_intended, session_id,
              CASE WHEN calls_before > 0 THEN first_value(description_version) OVER (PARTITION BY session_id, calls_before
                ORDER BY occurred_at, is_intended DESC, id) END AS version_before,
              CASE WHEN calls_after > 0 THEN first_value(description_version) OVER (PARTITION BY session_id, calls_after
                ORDER BY occurred_at DESC, is_intended DESC, id DESC) END AS version_after,
              CASE WHEN calls_after > 0 THEN first_value(occurred_at) OVER (PARTITION BY session_id, calls_after
                ORDER BY occurred_at DESC, is_intended DESC, id DESC) END AS version_after_at
            FROM timeline
          ), version_starts AS (
            -- when each later version became current: the registry made it, or a backfilled nightly applied it as of
            -- the end of its day
            SELECT least(v.created_at, min(r.applied_at)) AS current_from
            FROM tools t
            JOIN tool_versions v ON v.project_id = t.project_id AND v.tool_id = t.id AND v.version > 1
            LEFT JOIN recommendations r ON r.project_id = t.project_id AND r.tool = t.name AND r.applied_version = v.version
            WHERE t.project_id = ${projectId}::uuid AND t.name = ${tool}
            GROUP BY v.version, v.created_at
          )
          SELECT coalesce(
              n.version_before,
              CASE WHEN NOT EXISTS (
                SELECT 1 FROM version_starts s WHERE s.current_from > n.occurred_at AND s.current_from <= n.version_after_at
              ) THEN n.version_after END,
              n.description_version,
              0
            )::int AS version,
            count(*)::int AS calls
          FROM neighbours n
          WHERE NOT n.is_intended
          GROUP BY 1`;
        return rows.map((row) => ({ projectId, tool, calledName, day, descriptionVersion: row.version, calls: row.calls }));
      }),
    );
    await this.prisma.$transaction([
      this.prisma.dailyMisnamedCall.deleteMany({ where: { projectId, day } }),
      this.prisma.dailyMisnamedCall.createMany({ data: counts.flat() }),
    ]);
  }

  /**
   * For a misnamed_tool warning: the intended tool's calls plus the misnamed calls attributed to its versions, and
   * the misnamed calls as the mistakes, per version and day, up to `until`.
   */
  async countMisnamedCallsByVersion(
    projectId: string,
    tool: string,
    calledName: string,
    until: Date,
  ): Promise<{ calls: DailyVersionCount[]; mistakes: DailyVersionCount[] }> {
    const [calls, misnamed] = await Promise.all([
      this.prisma.dailyVersionRollup.findMany({
        where: { projectId, tool, day: { lt: until } },
        select: { day: true, descriptionVersion: true, calls: true },
      }),
      this.prisma.dailyMisnamedCall.findMany({
        where: { projectId, tool, calledName, day: { lt: until } },
        select: { day: true, descriptionVersion: true, calls: true },
      }),
    ]);
    const mistakes = misnamed.map((m) => ({ day: m.day, version: m.descriptionVersion, count: m.calls }));
    return { calls: [...calls.map((c) => ({ day: c.day, version: c.descriptionVersion, count: c.calls })), ...mistakes], mistakes };
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
          ...mistakeRollupsMatching(match),
        },
        _sum: { count: true },
      }),
    ]);
    return {
      calls: calls.map((c) => ({ day: c.day, version: c.descriptionVersion, count: c.calls })),
      mistakes: mistakes.map((m) => ({ day: m.day, version: m.descriptionVersion, count: m._sum.count ?? 0 })),
    };
  }

  /**
   * What the SDK guard did per description version and day, for one tool up to `until`: the matching mistakes it
   * prevented, and the tool's calls it corrected (a corrected call ran and succeeded, so it has no category to match).
   */
  async countGuardOutcomesByVersion(
    projectId: string,
    tool: string,
    match: MistakeMatch,
    until: Date,
  ): Promise<{ prevented: DailyVersionCount[]; corrected: DailyVersionCount[] }> {
    const [corrected, prevented] = await Promise.all([
      this.prisma.dailyVersionRollup.findMany({
        where: { projectId, tool, day: { lt: until }, corrected: { gt: 0 } },
        select: { day: true, descriptionVersion: true, corrected: true },
      }),
      this.prisma.dailyMistakeRollup.groupBy({
        by: ['day', 'descriptionVersion'],
        where: {
          projectId,
          tool,
          day: { lt: until },
          prevented: { gt: 0 },
          ...mistakeRollupsMatching(match),
        },
        _sum: { prevented: true },
      }),
    ]);
    return {
      prevented: prevented.map((p) => ({ day: p.day, version: p.descriptionVersion, count: p._sum.prevented ?? 0 })),
      corrected: corrected.map((c) => ({ day: c.day, version: c.descriptionVersion, count: c.corrected })),
    };
  }
}

/** The mistake rollups a recommendation's match names: its categories, subtypes and (unless any) argument paths. */
function mistakeRollupsMatching(match: MistakeMatch) {
  return {
    category: { in: match.categories },
    subtype: { in: match.subtypes },
    ...(match.isAnyArgumentPath ? {} : { argumentPath: { in: match.argumentPaths } }),
  };
}
