import { Injectable } from '@nestjs/common';
import { confusedPairsQuery, ConfusedPairRow } from '../analytics/tool-confusion-pairs.sql';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import type { StatsRange } from './stats-range';

export interface ConfusedPairView {
  tool: string;
  confusedWith: string;
  confusions: number;
  confusedSessions: number;
  sessions: number;
  confusionRate: number | null;
  firstDay: Date;
  lastDay: Date;
  exampleSessionIds: string[];
  versions: Array<{ version: number; confusions: number; confusedSessions: number; sessions: number }>;
}

const MAX_EXAMPLE_SESSIONS = 5;

/** The nightly's confusion counts (daily_tool_confusions) per pair over a range of days, on the read replica when there is one. */
@Injectable()
export class ToolConfusionQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /** The pairs confused in the range, most confused sessions first; with `tool`, only pairs it is on either side of. */
  listPairs(projectId: string, range: StatsRange, limit: number, tool?: string): Promise<ConfusedPairView[]> {
    return this.db.read(async (prisma) => {
      const pairs = await prisma.$queryRaw<ConfusedPairRow[]>(confusedPairsQuery(projectId, range.from, range.to, limit, tool));
      if (pairs.length === 0) return [];
      const versions = await prisma.dailyToolConfusion.groupBy({
        by: ['tool', 'confusedWith', 'descriptionVersion'],
        where: {
          projectId,
          day: { gte: range.from, lt: range.to },
          OR: pairs.map((pair) => ({ tool: pair.tool, confusedWith: pair.confused_with })),
        },
        _sum: { confusions: true, confusedSessions: true, sessions: true },
        orderBy: { descriptionVersion: 'asc' },
      });
      return pairs.map((pair) => ({
        tool: pair.tool,
        confusedWith: pair.confused_with,
        confusions: pair.confusions,
        confusedSessions: pair.confused_sessions,
        sessions: pair.sessions,
        confusionRate: pair.sessions > 0 ? pair.confused_sessions / pair.sessions : null,
        firstDay: pair.first_day,
        lastDay: pair.last_day,
        exampleSessionIds: (pair.example_session_ids ?? []).slice(0, MAX_EXAMPLE_SESSIONS),
        versions: versions
          .filter((v) => v.tool === pair.tool && v.confusedWith === pair.confused_with)
          .map((v) => ({
            version: v.descriptionVersion,
            confusions: v._sum.confusions ?? 0,
            confusedSessions: v._sum.confusedSessions ?? 0,
            sessions: v._sum.sessions ?? 0,
          })),
      }));
    });
  }
}
