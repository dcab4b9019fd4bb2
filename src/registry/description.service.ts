import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { servedVersionOf } from './canary-assignment';
import { CanaryRepository } from './canary.repository';
import { strongEtag } from './etag';
import { GUARD_POLICY_CHANGE, GuardService } from './guard.service';
import { ProjectNoteRepository } from './project-note.repository';
import { RegistryChange, RegistryChangeListener, RegistryChangesChannel } from './registry-changes.channel';
import type { DescriptionView, RunningCanary, ToolFormat } from './registry.types';
import { CachedResponse, cacheKey, LIST_KEY, ServedResponseCache } from './served-response.cache';
import { toFormat } from './tool-formats';
import { judgeProjectTools } from './tool-quality';
import { ToolRepository } from './tool.repository';

/** Enough for every tool of a few thousand projects in a few formats; a miss costs one indexed query. */
const MAX_CACHED_RESPONSES = 20_000;
const MAX_CACHED_CANARY_LISTS = 5000;
const CANARIES_KEY = 'canaries';
// An answer with a guard section carries renames learned from events, which change without a registry change: it is
// rebuilt after this long (its ETag stays when nothing changed), as validate's renames are.
const GUARDED_RESPONSE_TTL_MS = 5 * 60_000;

interface ServedResponse extends CachedResponse {
  /** Set on answers that carry a guard section. */
  expiresAtMs?: number;
}

/**
 * Serves descriptions and tool lists from memory: the serialized body and its ETag are computed once per version and
 * format, and dropped on every instance when the tool changes, so the steady state never reads the database.
 */
@Injectable()
export class DescriptionService implements OnModuleInit, RegistryChangeListener {
  private readonly cache = new ServedResponseCache<ServedResponse>(MAX_CACHED_RESPONSES);
  /** Each project's running canaries, under its list key: any change to one of its tools drops them. */
  private readonly canaries = new ServedResponseCache<RunningCanary[]>(MAX_CACHED_CANARY_LISTS);

  constructor(
    private readonly tools: ToolRepository,
    private readonly notes: ProjectNoteRepository,
    private readonly changes: RegistryChangesChannel,
    private readonly guards: GuardService,
    private readonly canaryRows: CanaryRepository,
  ) {}

  onModuleInit(): Promise<void> {
    return this.changes.listen(this);
  }

  onRegistryChange(change: RegistryChange): void {
    if (change.tool === GUARD_POLICY_CHANGE) return this.cache.invalidateProject(change.projectId);
    this.cache.invalidateTool(change.projectId, change.tool);
    this.canaries.invalidateTool(change.projectId, change.tool);
  }

  onRegistryChangesMissed(): void {
    this.cache.clear();
    this.canaries.clear();
  }

  /**
   * The description view of `version` when pinned; else of the version this caller is served: the latest, or while
   * the tool has a canary, the canary or its previous version by its design (docs/rollout.md).
   */
  async getDescription(projectId: string, name: string, version: number | null, stickyId: string | null = null): Promise<CachedResponse> {
    const canary = version === null ? (await this.findRunningCanaries(projectId)).find((each) => each.tool === name) : undefined;
    const servedVersion = canary ? servedVersionOf(canary, stickyId) : version;
    const key = cacheKey(projectId, name, servedVersion ?? 'latest', version === null ? 'description+guard' : 'description');
    const cached = this.fresh(key);
    if (cached) return cached;
    const generation = this.cache.currentGeneration;
    const served = await this.tools.findServedTool(projectId, name, servedVersion);
    if (!served) {
      if (version !== null && (await this.tools.findServedTool(projectId, name, null))) {
        throw new ApiError(404, 'version_not_found', `Tool ${JSON.stringify(name)} has no version ${version}`);
      }
      throw notFound('tool', name);
    }
    // a pinned version is served as it was stored; the guard belongs to what a caller is served now
    if (version !== null) return this.store(key, served.view, generation);
    const nowMs = Date.now();
    const limitsFrom = canary && servedVersion !== canary.canaryVersion ? await this.tools.findServedTool(projectId, name, null) : served;
    const guard = await this.guards.guardOf(projectId, withLimitsOf(served.view, limitsFrom?.view ?? served.view), nowMs);
    return this.store(key, { ...served.view, guard }, generation, nowMs);
  }

  /**
   * Every active tool of the project in one format, with augmented descriptions, the project's notes for people and
   * each tool's quality report (judged on its own description, without warnings, against the project's other tools).
   */
  async listTools(projectId: string, format: ToolFormat, stickyId: string | null = null): Promise<CachedResponse> {
    // the tools whose canary this caller is not served keep their previous version; the variant names them
    const pinned = new Map<string, number>();
    for (const canary of await this.findRunningCanaries(projectId)) {
      if (servedVersionOf(canary, stickyId) === canary.previousVersion) pinned.set(canary.tool, canary.previousVersion);
    }
    const variant = pinned.size === 0 ? 'latest' : [...pinned].map(([tool, version]) => `${tool}@${version}`).join(',');
    const key = cacheKey(projectId, LIST_KEY, variant, format);
    const cached = this.fresh(key);
    if (cached) return cached;
    const generation = this.cache.currentGeneration;
    const [served, notes] = await Promise.all([this.tools.listServedTools(projectId, pinned), this.notes.findNotes(projectId)]);
    const nowMs = Date.now();
    // only the raw format carries the guard section, the one the SDKs read
    const latest = format === 'raw' && pinned.size > 0 ? await this.tools.listServedTools(projectId) : [];
    const latestOf = new Map(latest.map(({ view }) => [view.name, view]));
    const guards =
      format === 'raw'
        ? await this.guards.guardsOf(
            projectId,
            served.map(({ view }) => withLimitsOf(view, latestOf.get(view.name) ?? view)),
            nowMs,
          )
        : null;
    const tools = served.map(({ view, metadata }) => toFormat({ ...view, metadata, guard: guards?.get(view.name) }, format));
    // each tool is compared with the first MAX_COMPARED_TOOLS of the project (by name); their words are prepared once
    const quality = judgeProjectTools(
      served.map(({ view }) => ({ name: view.name, description: view.baseDescription, parameters: view.parameters })),
    );
    return this.store(key, { format, tools, notes, quality }, generation, guards ? nowMs : undefined);
  }

  private async findRunningCanaries(projectId: string): Promise<RunningCanary[]> {
    const key = cacheKey(projectId, LIST_KEY, CANARIES_KEY, '');
    const cached = this.canaries.get(key);
    if (cached) return cached;
    const generation = this.canaries.currentGeneration;
    const running = await this.canaryRows.findRunningCanaries(projectId);
    this.canaries.set(key, running, generation);
    return running;
  }

  private fresh(key: string): ServedResponse | undefined {
    const cached = this.cache.get(key);
    return cached && (cached.expiresAtMs === undefined || cached.expiresAtMs > Date.now()) ? cached : undefined;
  }

  /** `guardedAtMs`: when the answer carries a guard section, the time its renames were read. */
  private store(key: string, value: unknown, generation: number, guardedAtMs?: number): CachedResponse {
    const body = JSON.stringify(value);
    const response: ServedResponse = { body, etag: strongEtag(body) };
    if (guardedAtMs !== undefined) response.expiresAtMs = guardedAtMs + GUARDED_RESPONSE_TTL_MS;
    this.cache.set(key, response, generation);
    return response;
  }
}

/**
 * The view the guard is built from: the served one, with the learned limits of the tool's latest version. A caller
 * served a canary's previous version still has calls refused that the canary's learned limit says fail (issue 34:
 * refusing a call that fails anyway harms no comparison), while its description stays the previous one.
 */
function withLimitsOf(served: DescriptionView, latest: DescriptionView): DescriptionView {
  if (latest === served) return served;
  const limits = latest.warnings.filter((warning) => warning.evidence.learnedLimit !== undefined);
  const others = served.warnings.filter((warning) => warning.evidence.learnedLimit === undefined);
  return { ...served, warnings: [...others, ...limits] };
}
