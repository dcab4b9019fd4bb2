import { Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';
import { CANARY_SELECT } from '../registry/serving/canary.select';

export interface ToolVersionRecord {
  version: number;
  baseDescription: string;
  description: string;
  warnings: unknown;
  createdAt: Date;
  calls: number;
  errors: number;
  descriptionTokens: number | null;
  warningTokens: number | null;
  /** The version's session rollups summed (daily_session_rollups): sessions, their calls of the tool, steps, repeats. */
  sessions: number;
  sessionCalls: number;
  steps: number;
  repeatedCalls: number;
  /** When this version started as a canary (docs/rollout.md): its share, status and decision with its numbers. */
  rollout: VersionRollout | null;
}

export interface VersionRollout {
  id: string;
  tool: string;
  warningId: string | null;
  previousVersion: number;
  canaryVersion: number;
  share: number;
  minCalls: number;
  status: string;
  decision: unknown;
  startedAt: Date;
  decidedAt: Date | null;
}

/**
 * A tool's frozen description versions (tool_versions key) with the calls that reported each (daily_version_rollups key)
 * and the canary each started as, if any (canaries), on the read replica when there is one.
 */
@Injectable()
export class ToolVersionQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /** Newest first, versions below `beforeVersion`; null when the project has no such tool. */
  listVersions(projectId: string, tool: string, beforeVersion: number | undefined, limit: number): Promise<ToolVersionRecord[] | null> {
    // one read for the five queries: when the replica fails midway, all of them run again on the primary
    return this.db.read((prisma) => findVersions(prisma, projectId, tool, beforeVersion, limit));
  }
}

async function findVersions(
  prisma: PrismaClient,
  projectId: string,
  tool: string,
  beforeVersion: number | undefined,
  limit: number,
): Promise<ToolVersionRecord[] | null> {
  const found = await prisma.tool.findUnique({ where: { projectId_name: { projectId, name: tool } }, select: { id: true } });
  if (!found) return null;
  const versions = await prisma.toolVersion.findMany({
    where: { projectId, toolId: found.id, ...(beforeVersion !== undefined ? { version: { lt: beforeVersion } } : {}) },
    select: {
      version: true,
      baseDescription: true,
      description: true,
      warnings: true,
      createdAt: true,
      descriptionTokens: true,
      warningTokens: true,
    },
    orderBy: { version: 'desc' },
    take: limit,
  });
  if (versions.length === 0) return [];
  const usage = await prisma.dailyVersionRollup.groupBy({
    by: ['descriptionVersion'],
    where: { projectId, tool, descriptionVersion: { in: versions.map((v) => v.version) } },
    _sum: { calls: true, errors: true },
  });
  const byVersion = new Map(usage.map((u) => [u.descriptionVersion, u._sum]));
  const sessionUse = await prisma.dailySessionRollup.groupBy({
    by: ['descriptionVersion'],
    where: { projectId, tool, descriptionVersion: { in: versions.map((v) => v.version) } },
    _sum: { sessions: true, calls: true, steps: true, repeatedCalls: true },
  });
  const sessionsOf = new Map(sessionUse.map((u) => [u.descriptionVersion, u._sum]));
  const canaries = await prisma.canary.findMany({
    where: { projectId, toolId: found.id, canaryVersion: { in: versions.map((v) => v.version) } },
    select: CANARY_SELECT,
  });
  const canaryOf = new Map(canaries.map((c) => [c.canaryVersion, c]));
  return versions.map((v) => ({
    ...v,
    calls: byVersion.get(v.version)?.calls ?? 0,
    errors: byVersion.get(v.version)?.errors ?? 0,
    sessions: sessionsOf.get(v.version)?.sessions ?? 0,
    sessionCalls: sessionsOf.get(v.version)?.calls ?? 0,
    steps: sessionsOf.get(v.version)?.steps ?? 0,
    repeatedCalls: sessionsOf.get(v.version)?.repeatedCalls ?? 0,
    rollout: canaryOf.get(v.version) ?? null,
  }));
}
