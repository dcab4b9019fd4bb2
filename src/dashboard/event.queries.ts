import { Injectable } from '@nestjs/common';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import { Prisma, PrismaClient } from '../generated/prisma/client';

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
  correction: true,
  prevented: true,
  resultRule: true,
} satisfies Prisma.EventSelect;

export type EventRecord = Prisma.EventGetPayload<{ select: typeof EVENT_SELECT }>;

/** What a list row reads as it is: every column but the arguments, which are read bounded (previewedArguments). */
const { arguments: _listedApart, ...LISTED_SELECT } = EVENT_SELECT;

/**
 * Arguments longer than this (as JSON text) are listed as a marked preview, however they were stored: events stored
 * before arguments were bounded at rest (issue 33) may hold a megabyte each. One event answers them whole.
 */
export const MAX_LISTED_ARGUMENTS_BYTES = 8 * 1024;
const LISTED_PREVIEW_CHARS = MAX_LISTED_ARGUMENTS_BYTES / 4;

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
    return this.db.read(async (prisma) => {
      const rows = await prisma.event.findMany({
        where: whereOf(projectId, filter),
        select: LISTED_SELECT,
        orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
        take: filter.limit,
      });
      const argumentsById = await previewedArguments(prisma, projectId, rows);
      return rows.map((row) => ({ ...row, arguments: argumentsById.get(row.id) ?? null }));
    });
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

/**
 * The arguments of `rows` (each found by its partition key), cut in Postgres: a long value never reaches this process
 * whole. Past the limit: `{"$truncated": true, "bytes", "preview"}`, the shape of a cut result.
 */
async function previewedArguments(
  prisma: Pick<PrismaClient, '$queryRaw'>,
  projectId: string,
  rows: ReadonlyArray<{ id: string; receivedAt: Date }>,
): Promise<Map<string, Prisma.JsonValue>> {
  if (rows.length === 0) return new Map();
  const found = await prisma.$queryRaw<Array<{ id: string; arguments: Prisma.JsonValue }>>`
    SELECT e.id,
      CASE WHEN octet_length(a.text) <= ${MAX_LISTED_ARGUMENTS_BYTES} THEN e.arguments
        ELSE jsonb_build_object('$truncated', true, 'bytes', octet_length(a.text), 'preview', left(a.text, ${LISTED_PREVIEW_CHARS}))
      END AS arguments
    FROM events e
    JOIN unnest(${rows.map((row) => row.id)}::text[], ${rows.map((row) => row.receivedAt)}::timestamptz[]) AS k(id, received_at)
      ON e.id = k.id AND e.received_at = k.received_at
    -- written out as text once per row: a megabyte of arguments costs Postgres one conversion, not one per use
    CROSS JOIN LATERAL (SELECT e.arguments::text AS text) AS a
    WHERE e.project_id = ${projectId}::uuid`;
  return new Map(found.map((row) => [row.id, row.arguments]));
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
