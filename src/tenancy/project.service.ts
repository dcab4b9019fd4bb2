import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ApiKeyRevocationsChannel } from './api-key-revocations.channel';
import { AuthenticatedProject, ProjectRepository } from './project.repository';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';

const MAX_CACHED_KEYS = 10_000;

export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export class ProjectExistsError extends Error {}

@Injectable()
export class ProjectService {
  // Verified keys, so ingest keeps accepting while Postgres is briefly unreachable. Revocations clear entries at once.
  private readonly verified = new Map<string, { project: AuthenticatedProject; expiresAt: number }>();
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
    const project = await this.projects.findProjectByKeyHash(keyHash);
    if (project && this.cacheTtlMs > 0) {
      if (this.verified.size >= MAX_CACHED_KEYS) this.verified.clear();
      this.verified.set(keyHash, { project, expiresAt: Date.now() + this.cacheTtlMs });
    }
    return project;
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

  /** Outside production: make sure project `default` exists and accepts the configured development key. */
  async ensureDevProject(devKey: string): Promise<string> {
    const project = (await this.projects.findProjectByName('default')) ?? (await this.insertDefault());
    await this.projects.upsertApiKey(project.id, hashApiKey(devKey), apiKeyPrefix(devKey), 'development');
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
    return key;
  }
}
