import { Injectable, OnModuleInit } from '@nestjs/common';
import { ApiError, notFound } from '../../infra/http/api-error';
import { servedVersionOf } from './canary-assignment';
import { CanaryRepository } from './canary.repository';
import { strongEtag } from './etag';
import { GUARD_POLICY_CHANGE, GuardService } from '../guard/guard.service';
import { ProjectNoteRepository } from '../tools/project-note.repository';
import { RegistryChange, RegistryChangeListener, RegistryChangesChannel } from './registry-changes.channel';
import type { DescriptionView, RunningCanary, ToolFormat } from '../registry.types';
import { CachedResponse, cacheKey, LIST_KEY, ServedResponseCache } from './served-response.cache';
import { toFormat } from '../tools/tool-formats';
import { buildToolList, ServedToolList, ToolListPageQuery, toolListPage } from './tool-list-page';
import { judgeProjectTools } from '../quality/tool-quality';
import { ToolRepository } from '../tools/tool.repository';

/** Enough for every tool of a few thousand projects in a few formats; a miss costs one indexed query. */
const MAX_CACHED_RESPONSES = 20_000;
const MAX_CACHED_CANARY_LISTS = 5000;
const MAX_CACHED_LISTS = 5000;
/** What the cached lists may hold together (their JSON): a few hundred projects of 1,000 large tools. */
const MAX_CACHED_LIST_BYTES = 256 * 1024 * 1024;
const CANARIES_KEY = 'canaries';
// An answer with a guard section carries renames learned from events, which change without a registry change: it is
// rebuilt after this long (its ETag stays when nothing changed), as validate's renames are.
const GUARDED_RESPONSE_TTL_MS = 5 * 60_000;

interface ServedResponse extends CachedResponse {
  /** Set on answers that carry a guard section. */
  expiresAtMs?: number;
}

interface ServedList extends ServedToolList {
  /** Set on lists that carry guard sections. */
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
  /** Each project's tool lists by format and served variant, kept tool by tool for cutting pages. */
  private readonly lists = new ServedResponseCache<ServedList>(MAX_CACHED_LISTS, {
    maxWeight: MAX_CACHED_LIST_BYTES,
    weigh: (list) => list.tools.reduce((bytes, tool) => bytes + tool.bytes, list.notesJson.length),
  });
  private readonly loadingLists = new Map<string, { generation: number; list: Promise<ServedToolList> }>();

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
    if (change.tool === GUARD_POLICY_CHANGE) {
      this.cache.invalidateProject(change.projectId);
      this.lists.invalidateProject(change.projectId);
      return;
    }
    this.cache.invalidateTool(change.projectId, change.tool);
    this.lists.invalidateTool(change.projectId, change.tool);
    this.canaries.invalidateTool(change.projectId, change.tool);
  }

  onRegistryChangesMissed(): void {
    this.cache.clear();
    this.lists.clear();
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
   * One page of the project's active tools in one format, with augmented descriptions, the project's notes for people
   * and the page's tools' quality reports (each judged on its own description, without warnings, against the
   * project's other tools); the ETag is the whole list's, the same on every page.
   */
  async listTools(projectId: string, format: ToolFormat, stickyId: string | null, page: ToolListPageQuery): Promise<CachedResponse> {
    const list = await this.servedToolList(projectId, format, stickyId);
    return { etag: list.etag, body: toolListPage(list, page) };
  }

  private async servedToolList(projectId: string, format: ToolFormat, stickyId: string | null): Promise<ServedToolList> {
    // the tools whose canary this caller is not served keep their previous version; the variant names them
    const pinned = new Map<string, number>();
    for (const canary of await this.findRunningCanaries(projectId)) {
      if (servedVersionOf(canary, stickyId) === canary.previousVersion) pinned.set(canary.tool, canary.previousVersion);
    }
    const variant = pinned.size === 0 ? 'latest' : [...pinned].map(([tool, version]) => `${tool}@${version}`).join(',');
    const key = cacheKey(projectId, LIST_KEY, variant, format);
    const cached = this.lists.get(key);
    if (cached && (cached.expiresAtMs === undefined || cached.expiresAtMs > Date.now())) return cached;
    // concurrent misses of one list (a fleet of agents starting at once) build it once
    const generation = this.lists.currentGeneration;
    const loading = this.loadingLists.get(key);
    if (loading && loading.generation === generation) return loading.list;
    const list = this.loadToolList(projectId, format, pinned, key, generation).finally(() => {
      if (this.loadingLists.get(key)?.list === list) this.loadingLists.delete(key);
    });
    this.loadingLists.set(key, { generation, list });
    return list;
  }

  private async loadToolList(
    projectId: string,
    format: ToolFormat,
    pinned: ReadonlyMap<string, number>,
    key: string,
    generation: number,
  ): Promise<ServedToolList> {
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
    const tools = served.map(({ view, metadata }) => ({
      name: view.name,
      listed: toFormat({ ...view, metadata, guard: guards?.get(view.name) }, format),
    }));
    // each tool is compared with the first MAX_COMPARED_TOOLS of the project (by name); their words are prepared once
    const quality = judgeProjectTools(
      served.map(({ view }) => ({ name: view.name, description: view.baseDescription, parameters: view.parameters })),
    );
    const list: ServedList = buildToolList(format, tools, quality, notes);
    if (guards) list.expiresAtMs = nowMs + GUARDED_RESPONSE_TTL_MS;
    this.lists.set(key, list, generation);
    return list;
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
