import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { strongEtag } from './etag';
import { ProjectNoteRepository } from './project-note.repository';
import { RegistryChange, RegistryChangeListener, RegistryChangesChannel } from './registry-changes.channel';
import type { ToolFormat } from './registry.types';
import { CachedResponse, cacheKey, LIST_KEY, ServedResponseCache } from './served-response.cache';
import { toFormat } from './tool-formats';
import { ToolRepository } from './tool.repository';

/** Enough for every tool of a few thousand projects in a few formats; a miss costs one indexed query. */
const MAX_CACHED_RESPONSES = 20_000;

/**
 * Serves descriptions and tool lists from memory: the serialized body and its ETag are computed once per version and
 * format, and dropped on every instance when the tool changes, so the steady state never reads the database.
 */
@Injectable()
export class DescriptionService implements OnModuleInit, RegistryChangeListener {
  private readonly cache = new ServedResponseCache(MAX_CACHED_RESPONSES);

  constructor(
    private readonly tools: ToolRepository,
    private readonly notes: ProjectNoteRepository,
    private readonly changes: RegistryChangesChannel,
  ) {}

  onModuleInit(): Promise<void> {
    return this.changes.listen(this);
  }

  onRegistryChange(change: RegistryChange): void {
    this.cache.invalidateTool(change.projectId, change.tool);
  }

  onRegistryChangesMissed(): void {
    this.cache.clear();
  }

  /** The description view of the latest version, or of `version` when pinned. */
  async getDescription(projectId: string, name: string, version: number | null): Promise<CachedResponse> {
    const key = cacheKey(projectId, name, version ?? 'latest', 'description');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const generation = this.cache.currentGeneration;
    const served = await this.tools.findServedTool(projectId, name, version);
    if (!served) {
      if (version !== null && (await this.tools.findServedTool(projectId, name, null))) {
        throw new ApiError(404, 'version_not_found', `Tool ${JSON.stringify(name)} has no version ${version}`);
      }
      throw notFound('tool', name);
    }
    return this.store(key, served.view, generation);
  }

  /** Every active tool of the project in one format, with augmented descriptions, and the project's notes for people. */
  async listTools(projectId: string, format: ToolFormat): Promise<CachedResponse> {
    const key = cacheKey(projectId, LIST_KEY, 'latest', format);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const generation = this.cache.currentGeneration;
    const [served, notes] = await Promise.all([this.tools.listServedTools(projectId), this.notes.findNotes(projectId)]);
    const tools = served.map(({ view, metadata }) => toFormat({ ...view, metadata }, format));
    return this.store(key, { format, tools, notes }, generation);
  }

  private store(key: string, value: unknown, generation: number): CachedResponse {
    const body = JSON.stringify(value);
    const response = { body, etag: strongEtag(body) };
    this.cache.set(key, response, generation);
    return response;
  }
}
