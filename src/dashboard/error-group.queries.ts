import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
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

/**
 * Error groups of one project: by the (project_id, tool) index for a tool's list, by primary key otherwise. Reads go to
 * the read replica when there is one; a status change, and the group it answers with, to the primary.
 */
@Injectable()
export class ErrorGroupQueries {
  constructor(
    private readonly db: ReadPrismaService,
    private readonly primary: PrismaService,
  ) {}

  listToolErrorGroups(projectId: string, tool: string, filter: ErrorGroupFilter): Promise<ErrorGroupRecord[]> {
    const where: Prisma.ErrorGroupWhereInput = { projectId, tool, status: filter.status, category: filter.category };
    if (filter.from) where.lastSeen = { gte: filter.from };
    if (filter.to) where.firstSeen = { lt: filter.to };
    if (filter.after) {
      const { lastSeen, id } = filter.after;
      where.AND = [{ OR: [{ lastSeen: { lt: lastSeen } }, { lastSeen, id: { lt: id } }] }];
    }
    return this.db.read((prisma) =>
      prisma.errorGroup.findMany({ where, select: GROUP_SELECT, orderBy: [{ lastSeen: 'desc' }, { id: 'desc' }], take: filter.limit }),
    );
  }

  /** The most frequent groups seen in the range that nobody chose to ignore. */
  findTopErrorGroups(projectId: string, from: Date, to: Date, limit: number): Promise<ErrorGroupRecord[]> {
    return this.db.read((prisma) =>
      prisma.errorGroup.findMany({
        where: { projectId, status: { not: 'ignored' }, lastSeen: { gte: from }, firstSeen: { lt: to } },
        select: GROUP_SELECT,
        orderBy: [{ count: 'desc' }, { id: 'asc' }],
        take: limit,
      }),
    );
  }

  findErrorGroup(projectId: string, id: string): Promise<ErrorGroupRecord | null> {
    return this.db.read((prisma) => prisma.errorGroup.findFirst({ where: { id, projectId }, select: GROUP_SELECT }));
  }

  /** The group's sample events (at most five ids, by primary key), newest first. */
  findSampleEvents(projectId: string, ids: readonly string[], filter: { agent?: string; model?: string }): Promise<SampleEventRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.read((prisma) =>
      prisma.event.findMany({
        where: { projectId, id: { in: [...ids] }, agent: filter.agent, model: filter.model },
        select: SAMPLE_SELECT,
        orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      }),
    );
  }

  /** Sets a human's status; the group as it now is (read from the primary: a replica may not have the change yet), or null. */
  async updateStatus(projectId: string, id: string, status: string): Promise<ErrorGroupRecord | null> {
    const { count } = await this.primary.errorGroup.updateMany({ where: { id, projectId }, data: { status } });
    return count === 1 ? this.primary.errorGroup.findFirst({ where: { id, projectId }, select: GROUP_SELECT }) : null;
  }
}
