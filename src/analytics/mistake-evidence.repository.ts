import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { MAX_LOOP_MESSAGE_CHARS, RepeatedFailure } from './loop-rules';
import { ArgumentRange, GroupEvidence, RECOMMENDATION_WINDOW_DAYS } from './recommendation-drafts';

const DAY_MS = 86_400_000;
/** A model that called a wrong tool name tries again within seconds: the session's next call is looked for this long. */
const NEXT_CALL_WINDOW = '2 minutes';

/** What the worker learned about mistakes (error groups, argument ranges, sample arguments): read only, as evidence for recommendations. */
@Injectable()
export class MistakeEvidenceRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Error groups seen in the window ending with `day`, not ignored by a human. */
  async findRecentErrorGroups(projectId: string, day: Date): Promise<Array<GroupEvidence & { tool: string }>> {
    const rows = await this.prisma.errorGroup.findMany({
      where: {
        projectId,
        status: { not: 'ignored' },
        lastSeen: { gte: new Date(day.getTime() - RECOMMENDATION_WINDOW_DAYS * DAY_MS) },
        firstSeen: { lt: new Date(day.getTime() + DAY_MS) },
      },
    });
    return rows.map((row) => ({
      id: row.id,
      tool: row.tool,
      category: row.category,
      subtype: row.subtype,
      argumentPath: row.argumentPath,
      messageTemplate: row.messageTemplate,
      count: Number(row.count),
      firstSeen: row.firstSeen,
      lastSeen: row.lastSeen,
      sampleEventIds: row.sampleEventIds,
      intendedArgument: row.intendedArgument,
      arrayForScalarCount: Number(row.arrayForScalarCount),
      minOffendingValue: row.minOffendingValue,
      maxOffendingValue: row.maxOffendingValue,
    }));
  }

  async findArgumentRanges(projectId: string): Promise<Array<ArgumentRange & { tool: string }>> {
    const rows = await this.prisma.argumentValueRange.findMany({ where: { projectId } });
    return rows.map((r) => ({ ...r, successCount: Number(r.successCount) }));
  }

  /**
   * For each sample event that has a session: the tool its session called next (another name, within
   * NEXT_CALL_WINDOW). A handful of samples, each a short range of the (project_id, occurred_at) index.
   */
  async findNextToolCalls(projectId: string, sampleEventIds: readonly string[]): Promise<Map<string, string>> {
    if (sampleEventIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ id: string; tool: string }[]>`
      SELECT s.id, n.tool
      FROM events s
      CROSS JOIN LATERAL (
        SELECT e.tool FROM events e
        WHERE e.project_id = s.project_id AND e.session_id = s.session_id AND e.tool <> s.tool
          AND e.occurred_at > s.occurred_at AND e.occurred_at <= s.occurred_at + ${NEXT_CALL_WINDOW}::interval
        ORDER BY e.occurred_at ASC, e.id ASC
        LIMIT 1
      ) n
      WHERE s.project_id = ${projectId}::uuid AND s.id = ANY(${[...sampleEventIds]}::varchar[]) AND s.session_id IS NOT NULL`;
    return new Map(rows.map((row) => [row.id, row.tool]));
  }

  /**
   * Calls a session repeated with the same tool and arguments more than `maxIdentical` times on `day`, most repeated
   * first, at most `limit`: one grouped range of the (project_id, occurred_at) index. Failing calls only (loops) unless
   * `isFailingOnly` is false (repeated calls, successful or not).
   */
  async findRepeatedCalls(
    projectId: string,
    day: Date,
    maxIdentical: number,
    limit: number,
    isFailingOnly = true,
  ): Promise<RepeatedFailure[]> {
    const rows = await this.prisma.$queryRaw<
      Array<{
        tool: string;
        session_id: string;
        arguments_hash: string;
        count: number;
        example_event_id: string;
        category: string | null;
        error_message: string | null;
        first_seen: Date;
        last_seen: Date;
      }>
    >`
      SELECT tool, session_id, md5(coalesce(arguments::text, 'null')) AS arguments_hash, count(*)::int AS count,
        min(id) AS example_event_id, mode() WITHIN GROUP (ORDER BY category) AS category,
        left(min(error_message), ${MAX_LOOP_MESSAGE_CHARS}::int) AS error_message,
        min(occurred_at) AS first_seen, max(occurred_at) AS last_seen
      FROM events
      WHERE project_id = ${projectId}::uuid AND occurred_at >= ${day} AND occurred_at < ${new Date(day.getTime() + DAY_MS)}
        AND (status = 'error' OR NOT ${isFailingOnly}) AND session_id IS NOT NULL
      GROUP BY tool, session_id, md5(coalesce(arguments::text, 'null'))
      HAVING count(*) > ${maxIdentical}
      ORDER BY count(*) DESC, tool, session_id
      LIMIT ${limit}`;
    return rows.map((row) => ({
      tool: row.tool,
      sessionId: row.session_id,
      argumentsHash: row.arguments_hash,
      count: row.count,
      exampleEventId: row.example_event_id,
      category: row.category,
      errorMessage: row.error_message,
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
    }));
  }

  /** The arguments of a few sample events, by primary key. */
  async findEventArguments(projectId: string, ids: readonly string[]): Promise<Map<string, unknown>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.event.findMany({
      where: { projectId, id: { in: [...ids] } },
      select: { id: true, arguments: true },
    });
    return new Map(rows.map((r) => [r.id, r.arguments]));
  }
}
