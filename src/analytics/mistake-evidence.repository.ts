import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { ArgumentRange, GroupEvidence } from './recommendation-rules';

const DAY_MS = 86_400_000;
/** Error groups not seen for this long no longer shape recommendations. */
export const RECOMMENDATION_WINDOW_DAYS = 30;

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
