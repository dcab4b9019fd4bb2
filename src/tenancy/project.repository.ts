import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';

export interface ProjectSummary {
  id: string;
  name: string;
  createdAt: Date;
  activeKeys: number;
}

/** What an operator may see of a key: never its secret or hash. */
export interface ApiKeySummary {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  scope: string;
}

/** A key's last use is written at most this often: verified keys are cached, so this is rarely reached anyway. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** What a key may do: `write` everything; `read` only reads (GET routes, the read tools of /mcp). */
export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface AuthenticatedProject {
  projectId: string;
  projectName: string;
  apiKeyId: string;
  scope: ApiKeyScope;
}

@Injectable()
export class ProjectRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findProjectByKeyHash(keyHash: string): Promise<AuthenticatedProject | null> {
    const key = await this.prisma.apiKey.findUnique({
      where: { keyHash },
      select: { id: true, revokedAt: true, scope: true, project: { select: { id: true, name: true } } },
    });
    if (!key || key.revokedAt) return null;
    // the column's check constraint allows only the two scopes
    return { projectId: key.project.id, projectName: key.project.name, apiKeyId: key.id, scope: key.scope as ApiKeyScope };
  }

  /** Every active key's hash, for the in-memory index that refuses wrong keys without a query. */
  async listActiveKeyHashes(): Promise<string[]> {
    const keys = await this.prisma.apiKey.findMany({ where: { revokedAt: null }, select: { keyHash: true } });
    return keys.map((key) => key.keyHash);
  }

  async findProjectByName(name: string): Promise<{ id: string } | null> {
    return this.prisma.project.findUnique({ where: { name }, select: { id: true } });
  }

  /** The project with this id, or else with this name (a name shaped like an id is looked up as a name too). */
  async findProjectByIdOrName(idOrName: string): Promise<{ id: string } | null> {
    const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrName);
    const byId = isId ? await this.prisma.project.findUnique({ where: { id: idOrName.toLowerCase() }, select: { id: true } }) : null;
    return byId ?? this.findProjectByName(idOrName);
  }

  async insertProject(name: string): Promise<{ id: string }> {
    return this.prisma.project.create({ data: { name }, select: { id: true } });
  }

  /**
   * Creates the key unless one with this hash exists, in one statement (INSERT ... ON CONFLICT DO NOTHING): startup may
   * run on several replicas at once, and Prisma's upsert reads then inserts, so two replicas could both insert and one
   * died on the unique key (seen in the four-process test).
   */
  async upsertApiKey(projectId: string, keyHash: string, keyPrefix: string, name: string, scope: ApiKeyScope = 'write'): Promise<void> {
    await this.prisma.apiKey.createMany({ data: [{ projectId, keyHash, keyPrefix, name, scope }], skipDuplicates: true });
  }

  async revokeApiKey(keyHash: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { keyHash, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }

  /** Stamps the key's last use, unless it was stamped within the last minute (one cheap write per cache miss). */
  async recordKeyUse(apiKeyId: string): Promise<void> {
    await this.prisma.apiKey.updateMany({
      where: { id: apiKeyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(Date.now() - LAST_USED_RESOLUTION_MS) } }] },
      data: { lastUsedAt: new Date() },
    });
  }

  async listProjects(): Promise<ProjectSummary[]> {
    const projects = await this.prisma.project.findMany({
      orderBy: { name: 'asc' },
      select: { id: true, name: true, createdAt: true, _count: { select: { apiKeys: { where: { revokedAt: null } } } } },
    });
    return projects.map(({ _count, ...project }) => ({ ...project, activeKeys: _count.apiKeys }));
  }

  /** The project's keys, oldest first; null when no project has that name. */
  async listApiKeys(projectName: string): Promise<ApiKeySummary[] | null> {
    const project = await this.prisma.project.findUnique({
      where: { name: projectName },
      select: { apiKeys: { orderBy: { createdAt: 'asc' }, select: API_KEY_SUMMARY } },
    });
    return project ? project.apiKeys : null;
  }

  /** Revokes the active keys matched (by id, or by name within a project); answers their hashes, to announce. */
  async revokeApiKeys(where: { id: string } | { projectName: string; name: string }): Promise<string[]> {
    const match = 'id' in where ? { id: where.id } : { name: where.name, project: { name: where.projectName } };
    return this.prisma.$transaction(async (tx) => {
      const keys = await tx.apiKey.findMany({ where: { ...match, revokedAt: null }, select: { id: true, keyHash: true } });
      await tx.apiKey.updateMany({ where: { id: { in: keys.map((key) => key.id) } }, data: { revokedAt: new Date() } });
      return keys.map((key) => key.keyHash);
    });
  }
}

const API_KEY_SUMMARY = { id: true, name: true, keyPrefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, scope: true } as const;
