import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../infra/prisma/prisma.service';
import { CANARY_SELECT } from './canary.select';
import type { CanaryDesign, CanaryRecord, CanaryStatus, JsonObject, RunningCanary } from '../registry.types';

type Transaction = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];

/** How a canary ends: promoted, rolled back or superseded, with its decision record. */
export interface CanaryEnd {
  id: string;
  status: Exclude<CanaryStatus, 'running'>;
  decision: Record<string, unknown> | null;
  at: Date;
}

/** The canary that tested a warning: its design and the warnings it tested together (each on its own mistake). */
export interface WarningTest {
  canaryId: string;
  design: CanaryDesign;
  status: string;
  /** The other warnings of the same canary version. */
  testedWith: string[];
}

/**
 * The canaries table (docs/rollout.md): the running ones a caller is served by, their looks and ends, and which canary
 * tested each warning. A canary's start, join and supersession are part of a tool change (ToolRepository.changeTool),
 * under the tool's row lock.
 */
@Injectable()
export class CanaryRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The project's running canaries (at most one per tool), by tool name. */
  async findRunningCanaries(projectId: string): Promise<RunningCanary[]> {
    const rows = await this.prisma.canary.findMany({
      where: { projectId, status: 'running' },
      select: CANARY_SELECT,
      orderBy: { tool: 'asc' },
    });
    return rows.map(toCanaryRecord);
  }

  /** The running canaries whose warning the nightly added (source auto), not those a person asked for. */
  async findRunningAutoCanaries(projectId: string): Promise<RunningCanary[]> {
    const running = await this.findRunningCanaries(projectId);
    const warningIds = running.flatMap((canary) => (canary.warningId ? [canary.warningId] : []));
    if (warningIds.length === 0) return [];
    const auto = await this.prisma.toolWarning.findMany({
      where: { projectId, id: { in: warningIds }, source: 'auto' },
      select: { id: true },
    });
    const autoIds = new Set(auto.map((warning) => warning.id));
    return running.filter((canary) => canary.warningId !== null && autoIds.has(canary.warningId));
  }

  async findCanary(projectId: string, id: string): Promise<CanaryRecord | null> {
    const row = await this.prisma.canary.findUnique({ where: { projectId_id: { projectId, id } }, select: CANARY_SELECT });
    return row ? toCanaryRecord(row) : null;
  }

  /** Canaries of the project, newest first, optionally of one tool or status; `before` is the last id of a page. */
  async listCanaries(
    projectId: string,
    filter: { tool?: string; status?: CanaryStatus; before?: { startedAt: Date; id: string }; limit: number },
  ): Promise<CanaryRecord[]> {
    const before = filter.before;
    const rows = await this.prisma.canary.findMany({
      where: {
        projectId,
        tool: filter.tool,
        status: filter.status,
        ...(before ? { OR: [{ startedAt: { lt: before.startedAt } }, { startedAt: before.startedAt, id: { lt: before.id } }] } : {}),
      },
      select: CANARY_SELECT,
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map(toCanaryRecord);
  }

  /** Ends a running canary that changes nothing served but who gets what (a promotion); the tool's name, or null if it was not running. */
  async finishCanary(projectId: string, end: CanaryEnd): Promise<string | null> {
    return this.prisma.$transaction(async (tx) => {
      const found = await tx.canary.findFirst({ where: { id: end.id, projectId, status: 'running' }, select: { tool: true } });
      if (!found || !(await endCanary(tx, projectId, end))) return null;
      return found.tool;
    });
  }

  /** Counts a look at a running canary that still has `looks` looks; false when it ended or was looked at meanwhile. */
  async recordCanaryLook(
    projectId: string,
    id: string,
    looks: number,
    look: { design: CanaryDesign; state: Record<string, unknown> },
  ): Promise<boolean> {
    const { count } = await this.prisma.canary.updateMany({
      where: { projectId, id, status: 'running', looks },
      data: { looks: looks + 1, design: look.design, state: look.state as Prisma.InputJsonObject },
    });
    return count === 1;
  }

  /** The latest decided canary of each of `warningIds` that had one. */
  async findTestsOfWarnings(projectId: string, warningIds: readonly string[]): Promise<Map<string, WarningTest>> {
    const tests = new Map<string, WarningTest>();
    if (warningIds.length === 0) return tests;
    const rows = await this.prisma.canary.findMany({
      where: { projectId, warningIds: { hasSome: [...warningIds] }, status: { in: ['promoted', 'rolled_back'] } },
      select: { id: true, design: true, status: true, warningIds: true },
      orderBy: { startedAt: 'asc' },
    });
    for (const row of rows) {
      for (const warningId of row.warningIds) {
        tests.set(warningId, {
          canaryId: row.id,
          design: row.design as CanaryDesign,
          status: row.status,
          testedWith: row.warningIds.filter((other) => other !== warningId),
        });
      }
    }
    return tests;
  }
}

/** Whether the canary was running (and is now ended). */
export async function endCanary(tx: Transaction, projectId: string, end: CanaryEnd): Promise<boolean> {
  const { count } = await tx.canary.updateMany({
    where: { id: end.id, projectId, status: 'running' },
    data: {
      status: end.status,
      decision: end.decision === null ? Prisma.DbNull : (end.decision as Prisma.InputJsonObject),
      decidedAt: end.at,
    },
  });
  return count === 1;
}

function toCanaryRecord(row: Prisma.CanaryGetPayload<{ select: typeof CANARY_SELECT }>): CanaryRecord {
  return {
    ...row,
    status: row.status as CanaryStatus,
    design: row.design as CanaryDesign,
    decision: asObject(row.decision),
    state: asObject(row.state),
  };
}

function asObject(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}
