import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ApiKeyRevocationsChannel } from './api-key-revocations.channel';
import { ApiKeySummary, AuthenticatedProject, ProjectRepository, ProjectSummary } from './project.repository';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';

const MAX_CACHED_KEYS = 10_000;
/** How long a key the database did not know is refused from memory; a key created here is forgotten from it at once. */
const UNKNOWN_KEY_TTL_MS = 10_000;

export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export class ProjectExistsError extends Error {}

@Injectable()
export class ProjectService {
  // Verified keys, so ingest keeps accepting while Postgres is briefly unreachable. Revocations clear entries at once.
  private readonly verified = new Map<string, { project: AuthenticatedProject; expiresAt: number }>();
  // Unknown or revoked keys, so a client repeating a wrong key does not cost a query per request.
  private readonly unknown = new Map<string, number>();
  private readonly cacheTtlMs: number;

  constructor(
    private readonly projects: ProjectRepository,
    @Optional() @Inject(APP_CONFIG) config?: AppConfig,
    @Optional() private readonly revocations?: ApiKeyRevocationsChannel,
  ) {
    this.cacheTtlMs = config?.authCacheTtlMs ?? 0;
    revocations?.onRevocation((keyHash) => (keyHash === null ? this.verified.clear() : this.verified.delete(keyHash)));
  }

  /** The key's project, or null for an unknown or revoked key. Throws when the database cannot be asked. */
  async authenticate(key: string): Promise<AuthenticatedProject | null> {
    const keyHash = hashApiKey(key);
    const cached = this.verified.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.project;
    if ((this.unknown.get(keyHash) ?? 0) > Date.now()) return null;
    const project = await this.projects.findProjectByKeyHash(keyHash);
    // "last used" for key:list; best effort, never in the way of the request
    if (project) void this.projects.recordKeyUse(project.apiKeyId).catch(() => undefined);
    if (this.cacheTtlMs > 0) {
      if (project) remember(this.verified, keyHash, { project, expiresAt: Date.now() + this.cacheTtlMs });
      else remember(this.unknown, keyHash, Date.now() + Math.min(this.cacheTtlMs, UNKNOWN_KEY_TTL_MS));
    }
    return project;
  }

  /** The key's project when this replica verified it recently, without asking the database; else undefined. */
  recentlyVerified(key: string): AuthenticatedProject | undefined {
    const cached = this.verified.get(hashApiKey(key));
    return cached && cached.expiresAt > Date.now() ? cached.project : undefined;
  }

  /** Creates a project and its first key; the key is returned once and never stored in clear. */
  async createProject(name: string): Promise<{ projectId: string; apiKey: string }> {
    if (!PROJECT_NAME_PATTERN.test(name)) {
      throw new Error(`project name must match ${PROJECT_NAME_PATTERN} (letters, digits, _ . -; up to 100)`);
    }
    if (await this.projects.findProjectByName(name)) throw new ProjectExistsError(`project "${name}" already exists`);
    const { id } = await this.projects.insertProject(name);
    const apiKey = await this.createApiKey(id, 'initial');
    return { projectId: id, apiKey };
  }

  async createKeyForProject(name: string, keyName: string): Promise<string> {
    const project = await this.projects.findProjectByName(name);
    if (!project) throw new Error(`project "${name}" does not exist`);
    return this.createApiKey(project.id, keyName);
  }

  async revokeApiKey(key: string): Promise<boolean> {
    const keyHash = hashApiKey(key);
    const isRevoked = await this.projects.revokeApiKey(keyHash);
    if (isRevoked) await this.revocations?.publish(keyHash);
    return isRevoked;
  }

  listProjects(): Promise<ProjectSummary[]> {
    return this.projects.listProjects();
  }

  /** The keys of a project (names, prefixes, created, last used; never a secret). Throws for an unknown project. */
  async listApiKeys(projectName: string): Promise<ApiKeySummary[]> {
    const keys = await this.projects.listApiKeys(projectName);
    if (!keys) throw new Error(`project "${projectName}" does not exist`);
    return keys;
  }

  /** Revokes by id, or by name within a project (a key whose secret is lost); answers the revoked keys' hashes. */
  async revokeApiKeys(where: { id: string } | { projectName: string; name: string }): Promise<string[]> {
    const keyHashes = await this.projects.revokeApiKeys(where);
    for (const keyHash of keyHashes) await this.revocations?.publish(keyHash);
    return keyHashes;
  }

  /** Outside production: make sure project `default` exists and accepts the configured development key. */
  async ensureDevProject(devKey: string): Promise<string> {
    const project = (await this.projects.findProjectByName('default')) ?? (await this.insertDefault());
    await this.projects.upsertApiKey(project.id, hashApiKey(devKey), apiKeyPrefix(devKey), 'development');
    this.unknown.delete(hashApiKey(devKey));
    return project.id;
  }

  private async insertDefault(): Promise<{ id: string }> {
    try {
      return await this.projects.insertProject('default');
    } catch (error) {
      // another replica created it between our read and our insert
      const existing = await this.projects.findProjectByName('default');
      if (existing) return existing;
      throw error;
    }
  }

  private async createApiKey(projectId: string, keyName: string): Promise<string> {
    const key = generateApiKey();
    await this.projects.upsertApiKey(projectId, hashApiKey(key), apiKeyPrefix(key), keyName);
    this.unknown.delete(hashApiKey(key));
    return key;
  }
}

/** Bounded caches: when full they start over, which costs a query per key, never a wrong answer. */
function remember<V>(cache: Map<string, V>, keyHash: string, value: V) {
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(keyHash, value);
}
