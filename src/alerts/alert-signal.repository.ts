import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { GroupSignal, ToolWindow, WorseWarningSignal } from './alert-conditions';

/** Subjects one rule looks at per evaluation, busiest first: a project with many tools costs a bounded query. */
export const MAX_SUBJECTS_PER_RULE = 200;
const WEEK_MS = 7 * 24 * 3_600_000;

// Raw SQL: sums over the hourly rollups grouped by tool, which Prisma's groupBy cannot filter by a conditional sum.
/** What rules read: the worker's hourly rollups and error groups and the nightly's measured effects, never events. */
@Injectable()
export class AlertSignalRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Calls and errors per tool in [from, to), and in the 7 days before `from`. */
  async sumToolWindows(projectId: string, from: Date, to: Date, tools: readonly string[]): Promise<ToolWindow[]> {
    const previousFrom = new Date(from.getTime() - WEEK_MS);
    const rows = await this.prisma.$queryRaw<
      Array<{ tool: string; calls: bigint; errors: bigint; previous_calls: bigint; previous_errors: bigint }>
    >`
      SELECT tool,
        COALESCE(SUM(calls) FILTER (WHERE hour >= ${from}), 0) AS calls,
        COALESCE(SUM(errors) FILTER (WHERE hour >= ${from}), 0) AS errors,
        COALESCE(SUM(calls) FILTER (WHERE hour < ${from}), 0) AS previous_calls,
        COALESCE(SUM(errors) FILTER (WHERE hour < ${from}), 0) AS previous_errors
      FROM hourly_rollups
      WHERE project_id = ${projectId}::uuid AND hour >= ${previousFrom} AND hour < ${to} ${onlyTools(tools)}
      GROUP BY tool
      HAVING SUM(calls) FILTER (WHERE hour >= ${from}) > 0
      ORDER BY calls DESC, tool
      LIMIT ${MAX_SUBJECTS_PER_RULE}`;
    return rows.map((row) => ({
      tool: row.tool,
      calls: Number(row.calls),
      errors: Number(row.errors),
      previousCalls: Number(row.previous_calls),
      previousErrors: Number(row.previous_errors),
    }));
  }

  /** Error groups first seen in [from, to), not ignored. */
  async findNewErrorGroups(projectId: string, from: Date, to: Date, tools: readonly string[]): Promise<GroupSignal[]> {
    const rows = await this.prisma.errorGroup.findMany({
      where: {
        projectId,
        firstSeen: { gte: from, lt: to },
        status: { not: 'ignored' },
        ...(tools.length ? { tool: { in: [...tools] } } : {}),
      },
      orderBy: [{ count: 'desc' }, { id: 'asc' }],
      take: MAX_SUBJECTS_PER_RULE,
    });
    return rows.map(toGroupSignal);
  }

  /** Groups a human resolved that occurred again (the worker sets them `regressed`). */
  async findRegressedErrorGroups(projectId: string, tools: readonly string[]): Promise<GroupSignal[]> {
    const rows = await this.prisma.errorGroup.findMany({
      where: { projectId, status: 'regressed', ...(tools.length ? { tool: { in: [...tools] } } : {}) },
      orderBy: [{ lastSeen: 'desc' }, { id: 'asc' }],
      take: MAX_SUBJECTS_PER_RULE,
    });
    return rows.map(toGroupSignal);
  }

  /** Applied warnings whose latest measured effect, recorded since `since`, is `worse` (retired ones included). */
  async findWorseWarnings(projectId: string, since: Date, tools: readonly string[]): Promise<WorseWarningSignal[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string; tool: string; kind: string; effect: Record<string, unknown> }>>`
      SELECT id, tool, kind, effect FROM recommendations
      WHERE project_id = ${projectId}::uuid AND warning_id IS NOT NULL AND effect->>'verdict' = 'worse' AND updated_at >= ${since}
        ${onlyTools(tools)}
      ORDER BY updated_at DESC, id
      LIMIT ${MAX_SUBJECTS_PER_RULE}`;
    return rows.map((row) => ({ recommendationId: row.id, tool: row.tool, kind: row.kind, effect: row.effect }));
  }

  /** Names called in [from, to) that no active tool with a schema has: unregistered tools and misspelled names. */
  async findUnregisteredTools(
    projectId: string,
    from: Date,
    to: Date,
    tools: readonly string[],
  ): Promise<Array<{ tool: string; calls: number }>> {
    const rows = await this.prisma.$queryRaw<Array<{ tool: string; calls: bigint }>>`
      SELECT r.tool, SUM(r.calls) AS calls FROM hourly_rollups r
      WHERE r.project_id = ${projectId}::uuid AND r.hour >= ${from} AND r.hour < ${to} ${onlyTools(tools, Prisma.sql`r.tool`)}
        AND NOT EXISTS (
          SELECT 1 FROM tools t WHERE t.project_id = r.project_id AND t.name = r.tool AND t.archived_at IS NULL
            AND t.parameters IS NOT NULL AND t.parameters <> '{}'::jsonb)
      GROUP BY r.tool
      ORDER BY calls DESC, r.tool
      LIMIT ${MAX_SUBJECTS_PER_RULE}`;
    return rows.map((row) => ({ tool: row.tool, calls: Number(row.calls) }));
  }
}

function onlyTools(tools: readonly string[], column = Prisma.sql`tool`): Prisma.Sql {
  return tools.length === 0 ? Prisma.empty : Prisma.sql`AND ${column} = ANY(${[...tools]}::text[])`;
}

function toGroupSignal(row: { id: string; tool: string; category: string; count: bigint; messageTemplate: string }): GroupSignal {
  return { id: row.id, tool: row.tool, category: row.category, count: Number(row.count), messageTemplate: row.messageTemplate };
}
