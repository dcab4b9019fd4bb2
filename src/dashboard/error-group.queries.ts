import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { Prisma } from '../generated/prisma/client';

const GROUP_SELECT = {
  id: true,
  tool: true,
  category: true,
  subtype: true,
  argumentPath: true,
  messageTemplate: true,
  count: true,
  firstSeen: true,
  lastSeen: true,
  status: true,
  sampleEventIds: true,
  intendedArgument: true,
  arrayForScalarCount: true,
  minOffendingValue: true,
  maxOffendingValue: true,
} satisfies Prisma.ErrorGroupSelect;

export type ErrorGroupRecord = Prisma.ErrorGroupGetPayload<{ select: typeof GROUP_SELECT }>;

export interface ErrorGroupFilter {
  status?: string;
  category?: string;
  /** Groups seen in [from, to). */
  from?: Date;
  to?: Date;
  /** Position after which to continue, most recently seen first. */
  after?: { lastSeen: Date; id: string };
  limit: number;
}

const SAMPLE_SELECT = {
  id: true,
  occurredAt: true,
  agent: true,
  model: true,
  arguments: true,
  errorType: true,
  errorMessage: true,
  descriptionVersion: true,
  argumentPath: true,
  wrongArgument: true,
  intendedArgument: true,
  offendingValue: true,
} satisfies Prisma.EventSelect;

export type SampleEventRecord = Prisma.EventGetPayload<{ select: typeof SAMPLE_SELECT }>;

/** Error groups of one project: by the (project_id, tool) index for a tool's list, by primary key otherwise. */
@Injectable()
export class ErrorGroupQueries {
  constructor(private readonly prisma: PrismaService) {}

  listToolErrorGroups(projectId: string, tool: string, filter: ErrorGroupFilter): Promise<ErrorGroupRecord[]> {
    const where: Prisma.ErrorGroupWhereInput = { projectId, tool, status: filter.status, category: filter.category };
    if (filter.from) where.lastSeen = { gte: filter.from };
    if (filter.to) where.firstSeen = { lt: filter.to };
    if (filter.after) {
      const { lastSeen, id } = filter.after;
      where.AND = [{ OR: [{ lastSeen: { lt: lastSeen } }, { lastSeen, id: { lt: id } }] }];
    }
    return this.prisma.errorGroup.findMany({
      where,
      select: GROUP_SELECT,
      orderBy: [{ lastSeen: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
  }

  /** The most frequent groups seen in the range that nobody chose to ignore. */
  findTopErrorGroups(projectId: string, from: Date, to: Date, limit: number): Promise<ErrorGroupRecord[]> {
    return this.prisma.errorGroup.findMany({
      where: { projectId, status: { not: 'ignored' }, lastSeen: { gte: from }, firstSeen: { lt: to } },
      select: GROUP_SELECT,
      orderBy: [{ count: 'desc' }, { id: 'asc' }],
      take: limit,
    });
  }

  findErrorGroup(projectId: string, id: string): Promise<ErrorGroupRecord | null> {
    return this.prisma.errorGroup.findFirst({ where: { id, projectId }, select: GROUP_SELECT });
  }

  /** The group's sample events (at most five ids, by primary key), newest first. */
  findSampleEvents(projectId: string, ids: readonly string[], filter: { agent?: string; model?: string }): Promise<SampleEventRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.event.findMany({
      where: { projectId, id: { in: [...ids] }, agent: filter.agent, model: filter.model },
      select: SAMPLE_SELECT,
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
    });
  }

  /** Sets a human's status; false when the project has no such group. */
  async updateStatus(projectId: string, id: string, status: string): Promise<boolean> {
    const { count } = await this.prisma.errorGroup.updateMany({ where: { id, projectId }, data: { status } });
    return count === 1;
  }
}
