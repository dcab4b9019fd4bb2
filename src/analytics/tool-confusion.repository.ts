import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import type { DailyVersionCount } from '../statistics/effect-statistics';
import type { ConfusionCount, SessionCall } from './tool-confusion';
import type { ConfusedPair } from './tool-confusion-rules';
import { confusedPairsQuery, ConfusedPairRow } from './tool-confusion-pairs.sql';

const DAY_MS = 86_400_000;
/** Arguments or results larger than this (stored bytes) are not read: a confusion is about short lookups, and memory stays bounded. */
const MAX_READ_JSON_BYTES = 2000;

/** The day's session calls and the per-day confusion counts (daily_tool_confusions), read and written for the nightly. */
@Injectable()
export class ToolConfusionRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The day's calls that carry a session id, in time order, at most `limit` (the first ones of the day). Arguments
   * and results over MAX_READ_JSON_BYTES come back as undefined (not compared; a large result is not empty).
   */
  async findSessionCalls(projectId: string, day: Date, limit: number): Promise<SessionCall[]> {
    const next = new Date(day.getTime() + DAY_MS);
    const rows = await this.prisma.$queryRaw<
      Array<{
        id: string;
        tool: string;
        session_id: string;
        occurred_at: Date;
        is_success: boolean;
        description_version: number | null;
        arguments: unknown;
        result: unknown;
        is_result_read: boolean;
      }>
    >`
      SELECT id, tool, session_id, occurred_at, status = 'success' AS is_success, description_version,
        CASE WHEN pg_column_size(arguments) <= ${MAX_READ_JSON_BYTES} THEN arguments END AS arguments,
        CASE WHEN pg_column_size(result) <= ${MAX_READ_JSON_BYTES} THEN result END AS result,
        result IS NOT NULL AND pg_column_size(result) <= ${MAX_READ_JSON_BYTES} AS is_result_read
      FROM events
      WHERE project_id = ${projectId}::uuid AND occurred_at >= ${day} AND occurred_at < ${next} AND session_id IS NOT NULL
      ORDER BY occurred_at, id
      LIMIT ${limit}`;
    return rows.map((row) => ({
      id: row.id,
      tool: row.tool,
      sessionId: row.session_id,
      occurredAt: row.occurred_at,
      isSuccess: row.is_success,
      descriptionVersion: row.description_version,
      arguments: row.arguments ?? undefined,
      result: row.is_result_read ? row.result : undefined,
    }));
  }

  /** Replaces the day's counts, so re-running a day gives the same rows. */
  async replaceDayCounts(projectId: string, day: Date, counts: readonly ConfusionCount[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.dailyToolConfusion.deleteMany({ where: { projectId, day } }),
      this.prisma.dailyToolConfusion.createMany({
        data: counts.map((row) => ({
          projectId,
          day,
          tool: row.tool,
          confusedWith: row.confusedWith,
          descriptionVersion: row.descriptionVersion,
          confusions: row.confusions,
          confusedSessions: row.confusedSessions,
          sessions: row.sessions,
          exampleSessionIds: row.exampleSessionIds,
        })),
      }),
    ]);
  }

  /** The pairs confused in [from, until), summed over days and versions, most confused sessions first, at most `limit`. */
  async sumConfusedPairs(projectId: string, from: Date, until: Date, limit: number): Promise<Omit<ConfusedPair, 'exampleEventIds'>[]> {
    const rows = await this.prisma.$queryRaw<ConfusedPairRow[]>(confusedPairsQuery(projectId, from, until, limit));
    return rows.map((row) => ({
      tool: row.tool,
      confusedWith: row.confused_with,
      confusions: row.confusions,
      confusedSessions: row.confused_sessions,
      sessions: row.sessions,
      firstSeen: row.first_day,
      lastSeen: new Date(row.last_day.getTime() + DAY_MS - 1),
      exampleSessionIds: row.example_session_ids ?? [],
    }));
  }

  /**
   * For a tool_confusion warning: the sessions that called the tool or the one it is taken for as the calls, and the
   * sessions that confused them as the mistakes, per description version of the tool and day, up to `until`.
   */
  async countConfusionsByVersion(
    projectId: string,
    tool: string,
    confusedWith: string,
    until: Date,
  ): Promise<{ calls: DailyVersionCount[]; mistakes: DailyVersionCount[] }> {
    const rows = await this.prisma.dailyToolConfusion.findMany({
      where: { projectId, tool, confusedWith, day: { lt: until } },
      select: { day: true, descriptionVersion: true, sessions: true, confusedSessions: true },
    });
    return {
      calls: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.sessions })),
      mistakes: rows.map((row) => ({ day: row.day, version: row.descriptionVersion, count: row.confusedSessions })),
    };
  }
}
