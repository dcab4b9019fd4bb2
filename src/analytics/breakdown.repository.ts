import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { BreakdownDimension, MAX_BREAKDOWN_VALUES, ValueCounts } from '../statistics/effect-breakdown';
import type { MistakeMatch } from './recommendation-drafts';

const DAY_MS = 86_400_000;

/**
 * The per-model and per-framework counts behind the effect breakdown (docs/rollout-statistics.md): written once per
 * day by the nightly from that day's events, read per warning. Every read is bounded by one tool x days x versions x
 * MAX_BREAKDOWN_VALUES values per dimension.
 */
@Injectable()
export class BreakdownRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Replaces the day's rows: per tool, version, dimension and value (the MAX_BREAKDOWN_VALUES values with the most
   * calls of each tool; events that named none are left out) the calls, and the diagnosed mistakes by category,
   * subtype and argument path. One statement over the day's events (docs/rollout-statistics.md has its cost).
   */
  async replaceDayBreakdown(projectId: string, day: Date): Promise<void> {
    const next = new Date(day.getTime() + DAY_MS);
    await this.prisma.$transaction([
      this.prisma.dailyBreakdownRollup.deleteMany({ where: { projectId, day } }),
      this.prisma.$executeRaw`
        -- one aggregate over the day's events first: ranking and joining the raw rows sorted them twice on disk
        WITH day_counts AS (
          SELECT tool, coalesce(description_version, 0) AS version, model, framework, category,
                 coalesce(subtype, '') AS subtype, coalesce(argument_path, '') AS argument_path, count(*) AS n
          FROM events
          WHERE project_id = ${projectId}::uuid AND occurred_at >= ${day} AND occurred_at < ${next}
          GROUP BY 1, 2, 3, 4, 5, 6, 7
        ), valued AS (
          SELECT tool, version, 'model' AS dimension, model AS value, category, subtype, argument_path, n
          FROM day_counts WHERE model <> ''
          UNION ALL
          SELECT tool, version, 'framework', framework, category, subtype, argument_path, n
          FROM day_counts WHERE framework <> ''
        ), kept AS (
          SELECT tool, dimension, value FROM (
            SELECT tool, dimension, value,
                   row_number() OVER (PARTITION BY tool, dimension ORDER BY sum(n) DESC, value) AS place
            FROM valued GROUP BY tool, dimension, value
          ) ranked
          WHERE place <= ${MAX_BREAKDOWN_VALUES}
        ), counted AS (
          SELECT v.tool, v.version, v.dimension, v.value, '' AS category, '' AS subtype, '' AS argument_path, sum(v.n) AS count
          FROM valued v JOIN kept USING (tool, dimension, value)
          GROUP BY 1, 2, 3, 4
          UNION ALL
          SELECT v.tool, v.version, v.dimension, v.value, v.category, v.subtype, v.argument_path, sum(v.n)
          FROM valued v JOIN kept USING (tool, dimension, value)
          WHERE v.category IS NOT NULL
          GROUP BY 1, 2, 3, 4, 5, 6, 7
        )
        INSERT INTO daily_breakdown_rollups
          (project_id, tool, day, description_version, dimension, value, category, subtype, argument_path, count)
        SELECT ${projectId}::uuid, tool, ${day}::date, version, dimension, value, category, subtype, argument_path, count
        FROM counted`,
    ]);
  }

  /**
   * The calls and mistakes per version and day of each model and framework of `tool` in [from, until): the mistakes
   * `match` names, or every diagnosed mistake without one (a canary of a warning no recommendation explains).
   */
  async countBreakdownByVersion(
    projectId: string,
    tool: string,
    match: MistakeMatch | null,
    until: Date,
    from?: Date,
  ): Promise<ValueCounts[]> {
    const day = { lt: until, ...(from ? { gte: from } : {}) };
    const mistakeRows = match
      ? {
          category: { in: match.categories },
          subtype: { in: match.subtypes },
          ...(match.isAnyArgumentPath ? {} : { argumentPath: { in: match.argumentPaths } }),
        }
      : { category: { not: '' } };
    const [calls, mistakes] = await Promise.all([
      this.prisma.dailyBreakdownRollup.findMany({
        where: { projectId, tool, day, category: '' },
        select: { dimension: true, value: true, day: true, descriptionVersion: true, count: true },
      }),
      this.prisma.dailyBreakdownRollup.groupBy({
        by: ['dimension', 'value', 'day', 'descriptionVersion'],
        where: { projectId, tool, day, ...mistakeRows },
        _sum: { count: true },
      }),
    ]);
    const byValue = new Map<string, ValueCounts>();
    const countsOf = (dimension: string, value: string) => {
      const key = `${dimension}\u0000${value}`;
      let counts = byValue.get(key);
      if (!counts) byValue.set(key, (counts = { dimension: dimension as BreakdownDimension, value, calls: [], mistakes: [] }));
      return counts;
    };
    for (const row of calls)
      countsOf(row.dimension, row.value).calls.push({ day: row.day, version: row.descriptionVersion, count: row.count });
    for (const row of mistakes) {
      countsOf(row.dimension, row.value).mistakes.push({ day: row.day, version: row.descriptionVersion, count: row._sum.count ?? 0 });
    }
    return [...byValue.values()];
  }
}
