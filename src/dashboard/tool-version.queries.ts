import { Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { ReadPrismaService } from '../infra/prisma/read-prisma.service';

export interface ToolVersionRecord {
  version: number;
  baseDescription: string;
  description: string;
  warnings: unknown;
  createdAt: Date;
  calls: number;
  errors: number;
}

/**
 * A tool's frozen description versions (tool_versions key) with the calls that reported each (daily_version_rollups key),
 * on the read replica when there is one.
 */
@Injectable()
export class ToolVersionQueries {
  constructor(private readonly db: ReadPrismaService) {}

  /** Newest first, versions below `beforeVersion`; null when the project has no such tool. */
  listVersions(projectId: string, tool: string, beforeVersion: number | undefined, limit: number): Promise<ToolVersionRecord[] | null> {
    // one read for the three queries: when the replica fails midway, all three run again on the primary
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
    where: { toolId: found.id, ...(beforeVersion !== undefined ? { version: { lt: beforeVersion } } : {}) },
    select: { version: true, baseDescription: true, description: true, warnings: true, createdAt: true },
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
  return versions.map((v) => ({
    ...v,
    calls: byVersion.get(v.version)?.calls ?? 0,
    errors: byVersion.get(v.version)?.errors ?? 0,
  }));
}
