import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../infra/prisma/prisma.service';
import { CanaryEnd, endCanary } from '../serving/canary.repository';
import type {
  CanarySettings,
  DescriptionView,
  JsonObject,
  ServedWarning,
  ToolState,
  WarningEvidence,
  WarningRecord,
  WarningSource,
  WarningStatus,
} from '../registry.types';
import type { ToolChangePlan } from './tool-versioning';
import { countVersionTokens, tokenCounterReady } from '../serving/description-tokens';

type Transaction = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];

export interface ServedTool {
  view: DescriptionView;
  metadata: JsonObject | null;
}

/** What a change callback decides under the tool's row lock: the plan to write (null: nothing) and its answer. */
export interface ToolDecision<R> {
  plan: ToolChangePlan | null;
  result: R;
  /**
   * Serves the plan's new version as a canary of the current one (docs/rollout.md); ignored without a new version.
   * With `join`, a canary of the tool that started at the same `startedAt` and was not looked at yet takes the new
   * version and the warning instead (one nightly's warnings of a tool, each about another mistake, tested together).
   */
  canary?: CanarySettings & { warningId: string; startedAt: Date; join?: boolean };
  /** Ends the tool's running canary as decided. Without it, a new version or archiving ends it as superseded. */
  canaryEnd?: CanaryEnd;
}

const UNIQUE_VIOLATION = 'P2002';

const WARNING_SELECT = {
  id: true,
  kind: true,
  text: true,
  evidence: true,
  evidenceKey: true,
  source: true,
  status: true,
  dismissedReason: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.ToolWarningSelect;

interface ServedRow {
  name: string;
  tool_version: number;
  tool_description: string;
  tool_parameters: JsonObject | null;
  metadata: JsonObject | null;
  version: number | null;
  base_description: string | null;
  description: string | null;
  parameters: JsonObject | null;
  warnings: ServedWarning[] | null;
}

// Raw SQL: one round trip joining each tool to the snapshot it serves (Prisma would load every version per tool).
// A tool written before versions existed has no snapshot yet and is served from its row.
/**
 * The project's live tools (or the one named) with the snapshot of `version` (null: each tool's current one, or the
 * version `pinned` names for it: a canary's previous version).
 */
function selectServed(projectId: string, name: string | null, version: number | null, pinned: ReadonlyMap<string, number>): Prisma.Sql {
  const isPinning = version === null && pinned.size > 0;
  const servedVersion =
    version !== null ? Prisma.sql`${version}::int` : isPinning ? Prisma.sql`coalesce(p.version, t.version)` : Prisma.sql`t.version`;
  const pinnedJoin = isPinning
    ? Prisma.sql`LEFT JOIN unnest(${[...pinned.keys()]}::text[], ${[...pinned.values()]}::int[]) AS p(name, version) ON p.name = t.name`
    : Prisma.empty;
  const onlyNamed = name === null ? Prisma.empty : Prisma.sql`AND t.name = ${name}::text`;
  return Prisma.sql`
SELECT t.name, t.version AS tool_version, t.description AS tool_description, t.parameters AS tool_parameters, t.metadata,
  v.version, v.base_description, v.description, v.parameters, v.warnings
FROM tools t
${pinnedJoin}
LEFT JOIN tool_versions v ON v.project_id = t.project_id AND v.tool_id = t.id AND v.version = ${servedVersion}
WHERE t.project_id = ${projectId}::uuid AND t.archived_at IS NULL ${onlyNamed}
ORDER BY t.name`;
}

/** Tools, their versions and warnings. Every write goes through changeTool, under the tool's row lock. */
@Injectable()
export class ToolRepository {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'maxToolsPerProject'>,
  ) {}

  /** How many of `names` the project has no tool of yet, and how many tools it has. */
  async countNewTools(projectId: string, names: readonly string[]): Promise<{ newNames: number; tools: number }> {
    const [tools, existing] = await Promise.all([
      this.prisma.tool.count({ where: { projectId } }),
      this.prisma.tool.count({ where: { projectId, name: { in: [...new Set(names)] } } }),
    ]);
    return { newNames: new Set(names).size - existing, tools };
  }

  /**
   * Locks the tool's row (or its absence), lets `decide` plan the change from the current state, and writes the plan
   * in the same transaction, so concurrent changes to one tool never skip or reuse a version number.
   */
  async changeTool<R>(projectId: string, name: string, decide: (state: ToolState | null) => ToolDecision<R>): Promise<R> {
    // a new version counts its tokens inside the transaction: the tokenizer loads first, outside it
    await tokenCounterReady();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prisma.$transaction((tx) => this.changeLocked(tx, projectId, name, decide));
      } catch (error) {
        // Two first registrations of one name raced; the loser retries and finds the winner's row.
        const isRace = error instanceof Prisma.PrismaClientKnownRequestError && error.code === UNIQUE_VIOLATION;
        if (!isRace || attempt >= 3) throw error;
      }
    }
  }

  /** The current state without a lock: lets unchanged re-registrations skip the transaction entirely. */
  async findToolState(projectId: string, name: string): Promise<ToolState | null> {
    return this.loadState(this.prisma, projectId, name, false);
  }

  async findServedTool(projectId: string, name: string, version: number | null): Promise<ServedTool | null> {
    const rows = await this.prisma.$queryRaw<ServedRow[]>(selectServed(projectId, name, version, new Map()));
    const row = rows[0];
    if (!row) return null;
    if (row.version === null && version !== null && version !== row.tool_version) return null;
    return toServedTool(row);
  }

  /** Every live tool with its current version, or the version `pinned` names for it. */
  async listServedTools(projectId: string, pinned: ReadonlyMap<string, number> = new Map()): Promise<ServedTool[]> {
    const rows = await this.prisma.$queryRaw<ServedRow[]>(selectServed(projectId, null, null, pinned));
    return rows.map(toServedTool);
  }

  /** Of `ids`, the warnings that are dismissed, with the reason each was dismissed for. */
  async findDismissedWarnings(projectId: string, ids: readonly string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.toolWarning.findMany({
      where: { projectId, id: { in: [...ids] }, status: 'dismissed' },
      select: { id: true, dismissedReason: true },
    });
    return new Map(rows.map((row) => [row.id, row.dismissedReason]));
  }

  async findWarningToolName(projectId: string, warningId: string): Promise<string | null> {
    const warning = await this.prisma.toolWarning.findFirst({
      where: { id: warningId, projectId },
      select: { tool: { select: { name: true } } },
    });
    return warning?.tool.name ?? null;
  }

  async findActiveWarnings(projectId: string, name: string): Promise<WarningRecord[]> {
    const rows = await this.prisma.toolWarning.findMany({
      where: { projectId, status: 'active', tool: { name, projectId, archivedAt: null } },
      select: WARNING_SELECT,
      orderBy: { createdAt: 'asc' },
    });
    return rows.map(toWarningRecord);
  }

  private async changeLocked<R>(
    tx: Transaction,
    projectId: string,
    name: string,
    decide: (state: ToolState | null) => ToolDecision<R>,
  ): Promise<R> {
    const state = await this.loadState(tx, projectId, name, true);
    const decision = decide(state);
    const { plan, result } = decision;
    if (decision.canaryEnd && !(await endCanary(tx, projectId, decision.canaryEnd))) throw new CanaryNotRunningError(decision.canaryEnd.id);
    if (!plan) return result;

    let toolId = state?.tool.id;
    const row = plan.toolRow;
    if (!toolId) {
      if (!row) throw new Error('a new tool needs its row');
      await ensureRoomForTool(tx, projectId, this.config.maxToolsPerProject);
      const created = await tx.tool.create({
        data: { projectId, name, ...rowData(row) },
        select: { id: true },
      });
      toolId = created.id;
    } else if (row) {
      await tx.tool.update({ where: { projectId_id: { projectId, id: toolId } }, data: { ...rowData(row), updatedAt: new Date() } });
    }
    for (const warning of plan.warningWrites) {
      const data = {
        kind: warning.kind,
        text: warning.text,
        evidence: warning.evidence as Prisma.InputJsonObject,
        evidenceKey: warning.evidenceKey,
        source: warning.source,
        status: warning.status,
        dismissedReason: warning.dismissedReason,
        updatedAt: warning.updatedAt,
      };
      await tx.toolWarning.upsert({
        where: { projectId_id: { projectId, id: warning.id } },
        create: { id: warning.id, projectId, toolId, createdAt: warning.createdAt, ...data },
        update: data,
      });
    }
    if (plan.snapshot) {
      const snapshot = plan.snapshot;
      await tx.toolVersion.create({
        data: {
          projectId,
          toolId,
          version: snapshot.version,
          baseDescription: snapshot.baseDescription,
          description: snapshot.description,
          parameters: snapshot.parameters as Prisma.InputJsonObject,
          warnings: snapshot.warnings as unknown as Prisma.InputJsonArray,
          warningIds: snapshot.warnings.map((warning) => warning.id),
          ...(await countVersionTokens(snapshot.baseDescription, snapshot.description)),
        },
      });
    }
    await this.writeCanaryChanges(tx, projectId, toolId, name, state, decision);
    return result;
  }

  /**
   * A new version (or archiving) ends the running canary as superseded: what it compared is no longer what is
   * served. A decision that asks for one starts a canary of its new version against the version it replaces.
   */
  private async writeCanaryChanges<R>(
    tx: Transaction,
    projectId: string,
    toolId: string,
    name: string,
    state: ToolState | null,
    decision: ToolDecision<R>,
  ): Promise<void> {
    const snapshot = decision.plan?.snapshot;
    const start = decision.canary;
    if (start?.join && snapshot && state && !decision.plan?.toolRow?.archivedAt) {
      const { count } = await tx.canary.updateMany({
        where: { projectId, toolId, status: 'running', looks: 0, startedAt: start.startedAt },
        data: { canaryVersion: snapshot.version, warningIds: { push: start.warningId } },
      });
      if (count === 1) return;
    }
    if (snapshot || decision.plan?.toolRow?.archivedAt) {
      await tx.canary.updateMany({
        where: { projectId, toolId, status: 'running' },
        data: { status: 'superseded', decidedAt: new Date() },
      });
    }
    if (!decision.canary || !snapshot || !state) return;
    await tx.canary.create({
      data: {
        projectId,
        toolId,
        tool: name,
        warningId: decision.canary.warningId,
        warningIds: [decision.canary.warningId],
        design: decision.canary.design,
        previousVersion: state.tool.version,
        canaryVersion: snapshot.version,
        share: decision.canary.share,
        minCalls: decision.canary.minCalls,
        startedAt: decision.canary.startedAt,
      },
    });
  }

  private async loadState(
    client: Transaction | PrismaService,
    projectId: string,
    name: string,
    isLocked: boolean,
  ): Promise<ToolState | null> {
    if (isLocked) {
      const locked = await client.$queryRaw<{ id: string }[]>`
        SELECT id FROM tools WHERE project_id = ${projectId}::uuid AND name = ${name} FOR UPDATE`;
      if (locked.length === 0) return null;
    }
    const tool = await client.tool.findUnique({
      where: { projectId_name: { projectId, name } },
      select: {
        id: true,
        name: true,
        description: true,
        parameters: true,
        metadata: true,
        version: true,
        archivedAt: true,
        warnings: { select: WARNING_SELECT, orderBy: { createdAt: 'asc' } },
      },
    });
    if (!tool) return null;
    const { warnings, ...record } = tool;
    return {
      tool: {
        ...record,
        parameters: asObject(record.parameters) ?? {},
        metadata: asObject(record.metadata),
      },
      warnings: warnings.map(toWarningRecord),
    };
  }
}

/** Thrown inside a change that ends a canary no longer running (another change superseded it): nothing is written. */
export class CanaryNotRunningError extends Error {
  constructor(id: string) {
    super(`canary ${id} is not running`);
  }
}

/** Thrown inside a change that would create a tool past MAX_TOOLS_PER_PROJECT: nothing is written. */
export class ToolLimitReachedError extends Error {
  constructor(readonly maxTools: number) {
    super(`the project has ${maxTools} tools, the most it may register`);
  }
}

/**
 * Counts the project's tools under a transaction-scoped lock of the project's own, so two first registrations at once
 * cannot both take the last place; a project never holds more than `maxTools` tools.
 */
async function ensureRoomForTool(tx: Transaction, projectId: string, maxTools: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`tools-of:${projectId}`}, 0))`;
  if ((await tx.tool.count({ where: { projectId } })) >= maxTools) throw new ToolLimitReachedError(maxTools);
}

function rowData(row: NonNullable<ToolChangePlan['toolRow']>) {
  return {
    description: row.description,
    parameters: row.parameters as Prisma.InputJsonObject,
    metadata: row.metadata === null ? Prisma.DbNull : (row.metadata as Prisma.InputJsonObject),
    version: row.version,
    archivedAt: row.archivedAt,
  };
}

function toWarningRecord(row: Prisma.ToolWarningGetPayload<{ select: typeof WARNING_SELECT }>): WarningRecord {
  return {
    ...row,
    evidence: row.evidence as WarningEvidence,
    source: row.source as WarningSource,
    status: row.status as WarningStatus,
  };
}

function toServedTool(row: ServedRow): ServedTool {
  const view: DescriptionView =
    row.version === null
      ? {
          name: row.name,
          version: row.tool_version,
          description: row.tool_description,
          baseDescription: row.tool_description,
          warnings: [],
          parameters: row.tool_parameters ?? {},
        }
      : {
          name: row.name,
          version: row.version,
          description: row.description ?? '',
          baseDescription: row.base_description ?? '',
          warnings: row.warnings ?? [],
          parameters: row.parameters ?? {},
        };
  return { view, metadata: row.metadata };
}

function asObject(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}
