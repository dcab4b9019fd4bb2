import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';

export interface ToolVersionRecord {
  version: number;
  baseDescription: string;
  description: string;
  warnings: unknown;
  createdAt: Date;
  calls: number;
  errors: number;
}

/** A tool's frozen description versions (tool_versions key) with the calls that reported each (daily_version_rollups key). */
@Injectable()
export class ToolVersionQueries {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, versions below `beforeVersion`; null when the project has no such tool. */
  async listVersions(
    projectId: string,
    tool: string,
    beforeVersion: number | undefined,
    limit: number,
  ): Promise<ToolVersionRecord[] | null> {
    const found = await this.prisma.tool.findUnique({ where: { projectId_name: { projectId, name: tool } }, select: { id: true } });
    if (!found) return null;
    const versions = await this.prisma.toolVersion.findMany({
      where: { toolId: found.id, ...(beforeVersion !== undefined ? { version: { lt: beforeVersion } } : {}) },
      select: { version: true, baseDescription: true, description: true, warnings: true, createdAt: true },
      orderBy: { version: 'desc' },
      take: limit,
    });
    if (versions.length === 0) return [];
    const usage = await this.prisma.dailyVersionRollup.groupBy({
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
}
