import { Injectable } from '@nestjs/common';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import { StatsRange } from './stats-range';

/** One day of what the SDKs' guard did to one tool's calls: corrected (and per kind of correction) and prevented. */
export interface GuardDayRow {
  day: Date;
  corrected: number;
  prevented: number;
  byKind: Record<string, number>;
}

interface GuardCountRow {
  day: Date;
  prevented: boolean;
  kinds: string[] | null;
  count: number;
}

/**
 * What the SDKs' guard did, per tool and day (docs/guard.md). Reads events, not a rollup: only the
 * tool's rows in the range, by the (project_id, tool, occurred_at) index; the route allows at most 31 days.
 */
@Injectable()
export class GuardStatsQueries {
  constructor(private readonly db: ReadPrismaService) {}

  async findGuardDays(projectId: string, tool: string, range: StatsRange): Promise<GuardDayRow[]> {
    const rows = await this.db.read(
      (prisma) =>
        prisma.$queryRaw<GuardCountRow[]>`
        SELECT date_trunc('day', occurred_at, 'UTC') AS day, prevented, correction -> 'kinds' AS kinds, count(*)::int AS count
        FROM events
        WHERE project_id = ${projectId}::uuid AND tool = ${tool}
          AND occurred_at >= ${range.from} AND occurred_at < ${range.to}
          AND (correction IS NOT NULL OR prevented)
        GROUP BY 1, 2, 3
        ORDER BY 1`,
    );
    return foldGuardDays(rows);
  }
}

function foldGuardDays(rows: readonly GuardCountRow[]): GuardDayRow[] {
  const days = new Map<number, GuardDayRow>();
  for (const row of rows) {
    const key = row.day.getTime();
    const day = days.get(key) ?? { day: row.day, corrected: 0, prevented: 0, byKind: {} };
    days.set(key, day);
    if (row.prevented) day.prevented += row.count;
    if (!Array.isArray(row.kinds)) continue;
    day.corrected += row.count;
    for (const kind of new Set(row.kinds)) day.byKind[kind] = (day.byKind[kind] ?? 0) + row.count;
  }
  return [...days.values()];
}
