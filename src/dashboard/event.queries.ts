import { Injectable } from '@nestjs/common';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import { Prisma } from '../generated/prisma/client';

export interface EventFilter {
  tool?: string;
  status?: string;
  category?: string;
  agent?: string;
  model?: string;
  sessionId?: string;
  errorGroupId?: string;
  /** occurred_at in [from, to): the time the call reported. */
  from?: Date;
  to?: Date;
  /** received_at in [receivedFrom, receivedTo): the partition key, so only those days' partitions are read. */
  receivedFrom?: Date;
  receivedTo?: Date;
  /** Position after which to continue, newest first. */
  after?: { occurredAt: Date; id: string };
  limit: number;
}

const EVENT_SELECT = {
  id: true,
  tool: true,
  status: true,
  arguments: true,
  result: true,
  errorType: true,
  errorMessage: true,
  errorStack: true,
  durationMs: true,
  occurredAt: true,
  receivedAt: true,
  storedAt: true,
  agent: true,
  model: true,
  framework: true,
  sessionId: true,
  traceId: true,
  runId: true,
  toolCallId: true,
  descriptionVersion: true,
  prompt: true,
  metadata: true,
  category: true,
  subtype: true,
  argumentPath: true,
  fingerprint: true,
  errorGroupId: true,
  evidence: true,
  wrongArgument: true,
  intendedArgument: true,
  offendingValue: true,
  arrayForScalar: true,
} satisfies Prisma.EventSelect;

export type EventRecord = Prisma.EventGetPayload<{ select: typeof EVENT_SELECT }>;

/** Read-only queries over stored events, always scoped to one project; on the read replica when there is one. */
@Injectable()
export class EventQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /** Through its idempotency key, which holds the event's received_at: only the partition of that day is read. */
  findEvent(projectId: string, id: string): Promise<EventRecord | null> {
    return this.db.read(async (prisma) => {
      const stored = await prisma.eventId.findUnique({ where: { projectId_id: { projectId, id } }, select: { receivedAt: true } });
      if (!stored) return null;
      return prisma.event.findUnique({
        where: { projectId_id_receivedAt: { projectId, id, receivedAt: stored.receivedAt } },
        select: EVENT_SELECT,
      });
    });
  }

  /**
   * Newest first; keyset pagination on (occurred_at, id) so pages stay stable while events arrive. Each partition is
   * read along its (project_id, occurred_at, id) index; a received range prunes the partitions of other days.
   */
  listEvents(projectId: string, filter: EventFilter): Promise<EventRecord[]> {
    return this.db.read((prisma) =>
      prisma.event.findMany({
        where: whereOf(projectId, filter),
        select: EVENT_SELECT,
        orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
        take: filter.limit,
      }),
    );
  }

  /** The texts of a tool's active warnings by what they are about ("kind:/argument/path"), for the export's fix. */
  async findActiveWarnings(projectId: string, tool: string): Promise<Array<{ evidenceKey: string | null; text: string }>> {
    return this.db.read((prisma) =>
      prisma.toolWarning.findMany({
        where: { projectId, status: 'active', tool: { projectId, name: tool } },
        select: { evidenceKey: true, text: true },
        orderBy: { createdAt: 'asc' },
      }),
    );
  }
}

function whereOf(projectId: string, filter: EventFilter): Prisma.EventWhereInput {
  const where: Prisma.EventWhereInput = {
    projectId,
    tool: filter.tool,
    status: filter.status,
    category: filter.category,
    agent: filter.agent,
    model: filter.model,
    sessionId: filter.sessionId,
    errorGroupId: filter.errorGroupId,
  };
  if (filter.from || filter.to) where.occurredAt = { gte: filter.from, lt: filter.to };
  if (filter.receivedFrom || filter.receivedTo) where.receivedAt = { gte: filter.receivedFrom, lt: filter.receivedTo };
  if (filter.after) {
    const { occurredAt, id } = filter.after;
    where.AND = [{ OR: [{ occurredAt: { lt: occurredAt } }, { occurredAt, id: { lt: id } }] }];
  }
  return where;
}
