import { Injectable } from '@nestjs/common';
import { AuthenticatedProject, ProjectRepository } from './project.repository';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';

export const PROJECT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export class ProjectExistsError extends Error {}

@Injectable()
export class ProjectService {
  constructor(private readonly projects: ProjectRepository) {}

  authenticate(key: string): Promise<AuthenticatedProject | null> {
    return this.projects.findProjectByKeyHash(hashApiKey(key));
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
    return this.projects.revokeApiKey(hashApiKey(key));
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
