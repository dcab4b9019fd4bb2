import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ActiveKeyIndex } from './active-key-index';
import { ApiKeyChangesChannel } from './api-key-changes.channel';
import { ApiKeyScope, ApiKeySummary, AuthenticatedProject, ProjectRepository, ProjectSummary } from './project.repository';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';

const MAX_CACHED_KEYS = 10_000;
/** How long a key the database did not know is refused from memory; a key created here is forgotten from it at once. */
const UNKNOWN_KEY_TTL_MS = 10_000;

export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export class ProjectExistsError extends Error {}

/** The key could not be judged: the index was never loaded and the budget for lookups of unknown keys is spent. */
export class KeyCheckUnavailableError extends Error {}

interface VerifiedKey {
  project: AuthenticatedProject;
  /** From then on, a read starts a lookup in the background. */
  refreshAt: number;
  expiresAt: number;
}

@Injectable()
export class ProjectService {
  // Verified keys, so ingest keeps accepting while Postgres is briefly unreachable. Revocations clear entries at once.
  private readonly verified = new Map<string, VerifiedKey>();
  // Unknown or revoked keys, so a client repeating a wrong key does not cost a query per request.
  private readonly unknown = new Map<string, number>();
  // One database lookup per key at a time: the requests that arrive meanwhile wait for it rather than each asking.
  private readonly lookups = new Map<string, Promise<AuthenticatedProject | null>>();
  // Bumped by every revocation: a lookup that began before one must not put the key back in the cache.
  private revocationGeneration = 0;
  private readonly cacheTtlMs: number;

  constructor(
    private readonly projects: ProjectRepository,
    @Optional() @Inject(APP_CONFIG) config?: AppConfig,
    @Optional() private readonly keyChanges?: ApiKeyChangesChannel,
    // absent in the CLI, which authenticates nobody: every key is then looked up
    @Optional() private readonly activeKeys?: ActiveKeyIndex,
  ) {
    this.cacheTtlMs = config?.authCacheTtlMs ?? 0;
    keyChanges?.onChange((change) => {
      if (change.kind === 'created') {
        this.unknown.delete(change.keyHash);
        return;
      }
      this.revocationGeneration++;
      if (change.kind === 'maybe-missed') this.verified.clear();
      else this.verified.delete(change.keyHash);
    });
  }

  /**
   * The key's project, or null for an unknown or revoked key. A key the index of active keys does not hold is refused
   * without a query once the budget for such lookups is spent; a key it holds is always looked up. Throws when the
   * database cannot be asked (KeyCheckUnavailableError when the index was never loaded and the budget is spent).
   */
  async authenticate(key: string): Promise<AuthenticatedProject | null> {
    const keyHash = hashApiKey(key);
    const cached = this.fromCache(keyHash);
    if (cached) return cached;
    if ((this.unknown.get(keyHash) ?? 0) > Date.now()) return null;
    const admission = this.activeKeys?.admit(keyHash) ?? 'look-up';
    if (admission === 'refuse') return null;
    if (admission === 'unavailable') throw new KeyCheckUnavailableError('the index of active keys is not loaded yet');
    return this.lookUp(keyHash);
  }

  /**
   * The key's project when this replica verified it recently, without asking the database; else undefined. In the
   * last quarter of its time in the cache an entry is looked up again in the background, so a key in steady use never
   * makes requests wait for the database when its entry would have expired (before, every request arriving during that
   * lookup made its own, with a "last used" update each: a few hundred queries at a few thousand requests a second).
   */
  recentlyVerified(key: string): AuthenticatedProject | undefined {
    return this.fromCache(hashApiKey(key));
  }

  private fromCache(keyHash: string): AuthenticatedProject | undefined {
    const cached = this.verified.get(keyHash);
    if (!cached) return undefined;
    const now = Date.now();
    if (cached.expiresAt <= now) return undefined;
    // a refresh that fails leaves the entry to expire at its time; the next request then asks and gets the error
    if (cached.refreshAt <= now) this.lookUp(keyHash).catch(() => undefined);
    return cached.project;
  }

  private lookUp(keyHash: string): Promise<AuthenticatedProject | null> {
    const pending = this.lookups.get(keyHash);
    if (pending) return pending;
    const lookup = this.queryKey(keyHash).finally(() => this.lookups.delete(keyHash));
    this.lookups.set(keyHash, lookup);
    return lookup;
  }

  private async queryKey(keyHash: string): Promise<AuthenticatedProject | null> {
    const generation = this.revocationGeneration;
    const project = await this.projects.findProjectByKeyHash(keyHash);
    // "last used" for key:list; best effort, never in the way of the request
    if (project) void this.projects.recordKeyUse(project.apiKeyId).catch(() => undefined);
    if (generation === this.revocationGeneration) this.activeKeys?.record(project ? 'created' : 'revoked', keyHash);
    if (this.cacheTtlMs > 0 && generation === this.revocationGeneration) {
      const now = Date.now();
      if (project) remember(this.verified, keyHash, { project, refreshAt: now + this.cacheTtlMs * 0.75, expiresAt: now + this.cacheTtlMs });
      else {
        this.verified.delete(keyHash);
        remember(this.unknown, keyHash, now + Math.min(this.cacheTtlMs, UNKNOWN_KEY_TTL_MS));
      }
    }
    return project;
  }

  /** A project's id, given its id or its name; null when there is none. */
  async findProjectId(idOrName: string): Promise<string | null> {
    return (await this.projects.findProjectByIdOrName(idOrName))?.id ?? null;
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

  /** Another key for the project; a `read` key only reads (docs/mcp-server.md). */
  async createKeyForProject(name: string, keyName: string, scope: ApiKeyScope = 'write'): Promise<string> {
    const project = await this.projects.findProjectByName(name);
    if (!project) throw new Error(`project "${name}" does not exist`);
    return this.createApiKey(project.id, keyName, scope);
  }

  async revokeApiKey(key: string): Promise<boolean> {
    const keyHash = hashApiKey(key);
    const isRevoked = await this.projects.revokeApiKey(keyHash);
    if (isRevoked) await this.keyChanges?.publish({ kind: 'revoked', keyHash });
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
    for (const keyHash of keyHashes) await this.keyChanges?.publish({ kind: 'revoked', keyHash });
    return keyHashes;
  }

  /** Outside production: make sure project `default` exists and accepts the configured development key. */
  async ensureDevProject(devKey: string): Promise<string> {
    const project = (await this.projects.findProjectByName('default')) ?? (await this.insertDefault());
    const keyHash = hashApiKey(devKey);
    await this.projects.upsertApiKey(project.id, keyHash, apiKeyPrefix(devKey), 'development');
    // every replica runs this itself: no announcement needed
    this.unknown.delete(keyHash);
    this.activeKeys?.record('created', keyHash);
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

  /** The key is announced before it is returned, so every replica's index holds it before any client can send it. */
  private async createApiKey(projectId: string, keyName: string, scope: ApiKeyScope = 'write'): Promise<string> {
    const key = generateApiKey();
    const keyHash = hashApiKey(key);
    await this.projects.upsertApiKey(projectId, keyHash, apiKeyPrefix(key), keyName, scope);
    this.unknown.delete(keyHash);
    await this.keyChanges?.publish({ kind: 'created', keyHash });
    return key;
  }
}

/** Bounded caches: when full they start over, which costs a query per key, never a wrong answer. */
function remember<V>(cache: Map<string, V>, keyHash: string, value: V) {
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(keyHash, value);
}
