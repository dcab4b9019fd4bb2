import { ArgumentGuard, Correction, GuardVerdict } from './argument-guard';
import { ClientCore, describeError as describe, RefreshingSide, RegistryAnswer } from './client-core';
import { DescriptionCache } from './description-cache';
import { Logger } from './logger';
import { SecretKeyMatcher } from './redaction';
import { FlushResult, ReporterOptions, ReporterStats } from './reporter';
import { guardInvokableTool, isInvokableTool } from './guarded-tool';
import { toToolDefinition, ToolLike } from './tool-definition';
import { GuardMode, ToolDefinition, ToolDescription, ToolEvent, ValidationResult } from '@toolcoach/core';

export { SDK_NAME, SDK_VERSION } from './client-core';

export interface ToolcoachOptions extends Pick<
  ReporterOptions,
  | 'batchSize'
  | 'flushIntervalMs'
  | 'maxQueuedEvents'
  | 'maxAttempts'
  | 'initialBackoffMs'
  | 'maxBackoffMs'
  | 'requestTimeoutMs'
  | 'fetch'
  | 'random'
> {
  /** Where the toolcoach API listens. Default: `TOOLCOACH_URL` (alias `TOOLCOACH_BASE_URL`), else http://localhost:3000. */
  baseUrl?: string;
  /** A project's API key. Default: `TOOLCOACH_API_KEY`. */
  apiKey?: string;
  /** Default `agent` of every event that does not name one. */
  agent?: string;
  /**
   * A sticky id for guarded rollout (docs/rollout.md): a canary of the split design serves every request with the
   * same id the same version (the default design alternates for every caller, and `refreshIntervalMs` follows it).
   * Sent as `X-Toolcoach-Session`; without it, `agent` is sent as `X-Toolcoach-Agent`. Also the `sessionId` of every
   * event this client reports. One conversation of many: `forSession(id)` instead.
   */
  session?: string;
  /**
   * Which argument keys hold secrets whose values must not leave the process. Default: keys that look like a password,
   * token, secret, API key or authorization. `false` turns redaction off.
   */
  redact?: SecretKeyMatcher | false;
  /**
   * How long `loadTools` and `validate` wait for the server before falling back. Default: TOOLCOACH_STARTUP_TIMEOUT_MS,
   * else 2000 ms.
   */
  startupTimeoutMs?: number;
  /**
   * Where `loadTools` keeps the last descriptions it got, for starts while the server is down, one file per side
   * (session or agent). `false`: nowhere.
   */
  cacheDir?: string | false;
  /**
   * How often loaded tools ask the registry whether their descriptions changed (`GET /v1/tools` with the ETag of the
   * last answer: a 304 changes nothing), so that a long-running agent gets a new version without a restart: a warning
   * promoted, or the turn of a canary that alternates in time. Default 60000 ms; `0` or `false`: never. One timer per
   * client for all its sessions; it never keeps the process alive, and `shutdown()` stops it.
   */
  refreshIntervalMs?: number | false;
  /** Flush queued events when the process runs out of work (Node's `beforeExit`). Default true. */
  flushOnExit?: boolean;
  logger?: Logger;
}

export interface LoadToolsOptions {
  /**
   * Check each call's arguments before the tool runs (docs/guard.md): safe corrections are applied and
   * reported, unsafe calls refused with a fix the model can act on. LangChain tools are wrapped in place; any tool can
   * be checked by hand with `checkArguments`. The project's policy (GET /v1/guard/policy) decides; `mode` overrides it.
   */
  guard?: boolean | { mode?: GuardMode };
}

/** What the guard did to a call a ToolcoachCallbackHandler reports: corrected its arguments, or refused it. */
export interface GuardOutcome {
  correction?: Correction;
  prevented?: boolean;
}

/** Where descriptions came from: the server, the disk cache of an earlier start, or the tools as given. */
export type DescriptionSource = 'server' | 'cache' | 'given';

/**
 * A validation answer. Who checked the arguments: the server; or, when the server did not (it answered `checked:
 * false`, any 4xx or 5xx, or could not be reached), this client's guard of the tool (`loadTools` with `guard`), checked
 * locally. `checked: false` (`checkedBy: null`): nobody could check them; `valid` is then true only so that an outage
 * never blocks the agent: it is not a verdict, never count it as one (`reason` says why they were not checked).
 */
export interface ValidationOutcome extends ValidationResult {
  checked: boolean;
  checkedBy: 'server' | 'local' | null;
}

/**
 * The toolcoach client: reports tool calls in the background, and gives the agent the descriptions the server learned.
 * One client serves many conversations: `forSession(id)` is a view of it for one. No method throws into the agent;
 * problems are logged once and visible in `stats()`.
 */
export class Toolcoach {
  readonly agent: string | undefined;
  /** The session of this client or view: the side of a canary it is on, and the `sessionId` of its events. */
  readonly session: string | undefined;
  /** What tells the server which side of a canary this client is on (see `session`); sent with every request. */
  readonly rolloutHeaders: Readonly<Record<string, string>>;
  /** What the client and its session views share: connection, reporter, refresh timer. */
  private readonly core: ClientCore;
  private readonly isView: boolean;
  private readonly cache: DescriptionCache | undefined;
  private readonly versions = new Map<string, number>();
  private loadSource: DescriptionSource | undefined;
  /** Each guarded tool's guard, rebuilt (its schema compiled) only when the served version or guard section changes. */
  private readonly guards = new Map<string, { key: string; guard: ArgumentGuard }>();
  /** Every tool this side loaded, by name, with how it was guarded: what a refresh keeps current. */
  private readonly loaded = new Map<string, { tool: ToolLike; guard: LoadToolsOptions['guard'] }>();
  /** The ETag of the last tool list the registry sent this side. */
  private etag: string | undefined;
  private refreshing: Promise<boolean> | undefined;
  private watched: WeakRef<RefreshingSide> | undefined;

  /** @param core internal: the client a session view belongs to (`forSession`). */
  constructor(options: ToolcoachOptions = {}, core?: ClientCore) {
    this.core = core ?? new ClientCore(options);
    this.isView = core !== undefined;
    this.agent = options.agent;
    this.session = options.session || undefined;
    this.rolloutHeaders = stickyHeaders(options.session, options.agent);
    const { cacheDir, baseUrl, apiKey } = this.core;
    if (cacheDir !== false) this.cache = new DescriptionCache(cacheDir, baseUrl, apiKey, this.rolloutHeaders);
  }

  /**
   * A view of this client for one conversation: its own `loadTools` (served as the session's side of a canary, cached
   * apart from other sides, refreshed by this client's timer), and its events carry the session. It shares this
   * client's reporter, timer and exit flush, so a view costs no listener, timer or connection of its own. Throws a
   * TypeError for a session that is not a non-empty string: a conversation without an id would join another's side.
   */
  forSession(session: string): Toolcoach {
    if (typeof session !== 'string' || session === '') throw new TypeError('toolcoach: forSession needs a non-empty session id');
    return new Toolcoach({ agent: this.agent, session }, this.core);
  }

  /** Queues one tool call for delivery. Returns at once; never throws. */
  report(event: ToolEvent): void {
    try {
      if (event.agent === undefined && this.agent !== undefined) event = { ...event, agent: this.agent };
      if (event.sessionId === undefined && this.session !== undefined) event = { ...event, sessionId: this.session };
      if (event.descriptionVersion === undefined) {
        const version = this.versions.get(event.tool);
        if (version !== undefined) event = { ...event, descriptionVersion: version };
      }
      this.core.reporter.enqueue(event);
    } catch {
      // Reporting is best effort by contract; the agent's tool call must go on whatever happens here.
    }
  }

  /** The registry version of the description the agent was given for this tool by `loadTools`, if any. */
  descriptionVersionOf(toolName: string): number | undefined {
    return this.versions.get(toolName);
  }

  /** The client's reporter (shared by its session views). */
  stats(): ReporterStats {
    return this.core.reporter.stats();
  }

  flush(timeoutMs?: number): Promise<FlushResult> {
    return this.core.reporter.flush(timeoutMs);
  }

  /**
   * Delivers what is queued (within `timeoutMs`, default 5 s), then stops reporting and refreshing, for the client and
   * all its session views. On a session view: `close()`, then a flush; the client goes on.
   */
  shutdown(timeoutMs?: number): Promise<FlushResult> {
    if (!this.isView) return this.core.shutdown(timeoutMs);
    this.close();
    return this.core.reporter.flush(timeoutMs);
  }

  /** Stops refreshing the descriptions of the tools this client or view loaded (a conversation that ended). */
  close(): void {
    if (this.watched) this.core.unwatch(this.watched);
    this.watched = undefined;
    this.loaded.clear();
  }

  /**
   * Registers the agent's tools and replaces each tool's `description` (in place) with the one the server serves,
   * learned warnings included. Falls back to the last copy cached on disk, else leaves the tools as given. Never throws.
   */
  async loadTools<T extends ToolLike>(tools: T[], options: LoadToolsOptions = {}): Promise<T[]> {
    let source: DescriptionSource = 'given';
    try {
      const definitions = tools.map((tool) => toToolDefinition(tool, this.core.baseDescriptions.get(tool)));
      let served = new Map<string, ToolDescription>();
      try {
        served = await this.fetchDescriptions(definitions);
        this.applyDescriptions(tools, served);
        source = 'server';
        this.cache?.save(definitions, served);
      } catch (error) {
        const cached = this.cache?.load(definitions);
        if (cached && cached.descriptions.size > 0) {
          this.applyDescriptions(tools, cached.descriptions);
          source = 'cache';
        }
        const fallback = source === 'cache' ? `the descriptions cached on disk at ${cached!.savedAt}` : 'the tool descriptions as given';
        this.core.log.warn(
          'load-tools',
          `toolcoach: could not load tool descriptions from ${this.core.baseUrl} (${describe(error)}); using ${fallback}`,
        );
      }
      if (options.guard) this.guardTools(tools, definitions, served, modeOf(options.guard));
      for (const tool of tools) this.loaded.set(tool.name, { tool, guard: options.guard });
      this.watched ??= this.core.watch(this);
    } catch (error) {
      this.core.log.warn('load-tools-internal', `toolcoach: loadTools failed (${describe(error)}); using the tools as given`);
    }
    this.loadSource = source;
    return tools;
  }

  /**
   * Asks the registry once whether the descriptions of the loaded tools changed (what the refresh timer does), with
   * the ETag of its last answer, and gives the tools a new version in place: the next model call sees it, and events
   * of calls from then on carry it. A 304 changes nothing. Tools loaded while the server was unreachable are
   * registered again. Resolves to whether a description changed; never rejects.
   */
  refreshDescriptions(): Promise<boolean> {
    this.refreshing ??= this.pollDescriptions().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * The guard's verdict on a call of a tool loaded with `guard`: run it as is, run it with corrected arguments, or
   * refuse it with a message for the model. Tools loaded without the guard always run. Takes microseconds; no request.
   */
  checkArguments(toolName: string, args: unknown): GuardVerdict {
    try {
      return this.guards.get(toolName)?.guard.check(args) ?? { action: 'run' };
    } catch (error) {
      this.core.log.warn(
        'guard-check',
        `toolcoach: the guard could not check a call of ${toolName} (${describe(error)}); letting it through`,
      );
      return { action: 'run' };
    }
  }

  /** @internal The guard notes what it did to a call that a ToolcoachCallbackHandler will report. */
  noteGuardOutcome(toolCallId: string, outcome: GuardOutcome): void {
    this.core.noteGuardOutcome(toolCallId, outcome);
  }

  /** @internal The handler takes the guard's outcome of the call it reports (of any view: call ids are unique). */
  takeGuardOutcome(toolCallId: string): GuardOutcome | undefined {
    return this.core.takeGuardOutcome(toolCallId);
  }

  /** @internal A refused call no handler will see: reported here, as the mistake it was. */
  reportPrevented(toolName: string, args: unknown, message: string, toolCallId: string | undefined): void {
    const event: ToolEvent = {
      tool: toolName,
      status: 'error',
      arguments: args,
      error: { type: 'GuardRefused', message },
      prevented: true,
    };
    if (toolCallId) event.toolCallId = toolCallId;
    this.report(event);
  }

  /** Where the descriptions of the last `loadTools` came from. */
  get descriptionSource(): DescriptionSource | undefined {
    return this.loadSource;
  }

  /**
   * Checks arguments against the registered schema (POST /v1/tools/:name/validate). When the server does not check
   * them (`checked: false`, a 4xx or 5xx, unreachable), the tool's guard checks them locally if it has one; else they
   * are let through, marked not checked.
   */
  async validate(toolName: string, args: unknown): Promise<ValidationOutcome> {
    let notChecked: string;
    try {
      const path = `/v1/tools/${encodeURIComponent(toolName)}/validate`;
      const result = (await this.core.request('POST', path, this.rolloutHeaders, { arguments: args })).body as ValidationResult;
      if (result.checked !== false) return { ...result, checked: true, checkedBy: 'server' };
      notChecked = result.reason ?? 'the server could not check them';
    } catch (error) {
      notChecked = describe(error);
    }
    return this.validateLocally(toolName, args, notChecked);
  }

  /** The fallback of `validate`: the tool's guard, when it has a schema it could compile; else not checked at all. */
  private validateLocally(toolName: string, args: unknown, notChecked: string): ValidationOutcome {
    const guard = this.guards.get(toolName)?.guard;
    if (guard && !guard.compileError) {
      const { valid, errors, suggestion } = guard.answer(args);
      const issues = errors.map(({ category, subtype, path, message }) => ({ category, subtype, path, message }));
      const reason = `not checked by the server (${notChecked}); checked by the local guard`;
      return { valid, errors: issues, suggestion, checked: true, checkedBy: 'local', reason };
    }
    this.core.log.warn('validate', `toolcoach: arguments of ${toolName} were not checked (${notChecked}); letting them through`);
    return { valid: true, errors: [], suggestion: null, checked: false, checkedBy: null, reason: `not checked: ${notChecked}` };
  }

  private async fetchDescriptions(definitions: ToolDefinition[]): Promise<Map<string, ToolDescription>> {
    const deadline = AbortSignal.timeout(this.core.startupTimeoutMs);
    for (const batch of registrationBatches(definitions)) {
      await this.core.request('POST', '/v1/tools:bulk', this.rolloutHeaders, { tools: batch }, deadline);
    }
    const list = await this.readToolList(this.rolloutHeaders, deadline);
    this.etag = list.etag;
    return servedOf(
      list.body,
      definitions.map((d) => d.name),
    );
  }

  private async pollDescriptions(): Promise<boolean> {
    if (this.loaded.size === 0) return false;
    try {
      if (this.loadSource !== 'server') return await this.reloadTools();
      const headers = { ...this.rolloutHeaders, ...(this.etag ? { 'if-none-match': this.etag } : {}) };
      const answer = await this.readToolList(headers);
      if (answer.status === 304) return false;
      this.etag = answer.etag;
      const served = servedOf(answer.body, [...this.loaded.keys()]);
      const changed = [...this.loaded.values()].filter(({ tool }) => {
        const next = served.get(tool.name);
        return next !== undefined && (next.version !== this.versions.get(tool.name) || next.description !== tool.description);
      });
      if (changed.length === 0) return false;
      this.applyDescriptions(
        changed.map(({ tool }) => tool),
        served,
      );
      for (const { tool, guard } of changed) {
        if (guard) this.guardTools([tool], [toToolDefinition(tool, this.core.baseDescriptions.get(tool))], served, modeOf(guard));
      }
      const loaded = [...this.loaded.values()].map(({ tool }) => tool);
      this.cache?.save(
        loaded.map((tool) => toToolDefinition(tool, this.core.baseDescriptions.get(tool))),
        served,
      );
      return true;
    } catch (error) {
      this.core.log.warn(
        'refresh',
        `toolcoach: could not refresh tool descriptions from ${this.core.baseUrl} (${describe(error)}); keeping the ones loaded`,
      );
      return false;
    }
  }

  /**
   * `GET /v1/tools?format=raw`, every page: the first conditional on `headers` (its ETag is the whole list's, so a 304
   * says no page changed), the rest by `nextCursor` until it is null. A server from before pages answers one page
   * without a cursor; the first request carries no new parameter, so it answers as before.
   */
  private async readToolList(headers: Readonly<Record<string, string>>, signal?: AbortSignal): Promise<RegistryAnswer> {
    const first = await this.core.request('GET', TOOL_LIST_PATH, headers, undefined, signal);
    if (first.status === 304) return first;
    const body = first.body as ToolListPage;
    const tools = [...body.tools];
    for (let cursor = body.nextCursor; cursor;) {
      const path = `${TOOL_LIST_PATH}&cursor=${encodeURIComponent(cursor)}`;
      const page = (await this.core.request('GET', path, this.rolloutHeaders, undefined, signal)).body as ToolListPage;
      tools.push(...page.tools);
      cursor = page.nextCursor;
    }
    return { ...first, body: { ...body, tools } };
  }

  /** Loads again what was loaded while the registry could not be reached: registering the tools is part of it. */
  private async reloadTools(): Promise<boolean> {
    const before = [...this.loaded.values()].map(({ tool }) => [tool.name, tool.description, this.versions.get(tool.name)]);
    const byGuard = new Map<string, Array<{ tool: ToolLike; guard: LoadToolsOptions['guard'] }>>();
    for (const entry of this.loaded.values()) {
      const key = JSON.stringify(entry.guard ?? false);
      byGuard.set(key, [...(byGuard.get(key) ?? []), entry]);
    }
    for (const entries of byGuard.values()) {
      await this.loadTools(
        entries.map(({ tool }) => tool),
        { guard: entries[0].guard },
      );
    }
    const after = [...this.loaded.values()].map(({ tool }) => [tool.name, tool.description, this.versions.get(tool.name)]);
    return JSON.stringify(before) !== JSON.stringify(after);
  }

  private guardTools(tools: ToolLike[], definitions: ToolDefinition[], served: Map<string, ToolDescription>, mode: GuardMode | undefined) {
    const missing = definitions.filter((definition) => !served.get(definition.name)?.guard).map((definition) => definition.name);
    if (missing.length > 0) {
      this.core.log.warn(
        'guard-own-schema',
        `toolcoach: the guard checks ${missing.join(', ')} against the tools' own schemas only (no guard section from ${this.core.baseUrl})`,
      );
    }
    definitions.forEach((definition, index) => {
      const description = served.get(definition.name);
      const parameters = description?.parameters ?? definition.parameters;
      const section = description?.guard ?? null;
      const effectiveMode = mode ?? section?.policy ?? 'correct';
      const key = JSON.stringify([description?.version ?? 0, effectiveMode, section, section ? null : parameters]);
      if (this.guards.get(definition.name)?.key !== key) {
        const guard = new ArgumentGuard(definition.name, parameters, section, effectiveMode);
        if (guard.compileError) {
          this.core.log.warn(
            `guard-compile:${definition.name}`,
            `toolcoach: the guard cannot compile the schema of ${definition.name} (${guard.compileError}); it checks learned limits only`,
          );
        }
        this.guards.set(definition.name, { key, guard });
      }
      const tool = tools[index];
      if (isInvokableTool(tool)) guardInvokableTool(tool, this);
    });
  }

  private applyDescriptions(tools: ToolLike[], descriptions: Map<string, Pick<ToolDescription, 'description' | 'version'>>): void {
    for (const tool of tools) {
      const served = descriptions.get(tool.name);
      if (!served) continue;
      if (!this.core.baseDescriptions.has(tool)) this.core.baseDescriptions.set(tool, tool.description);
      tool.description = served.description;
      this.versions.set(tool.name, served.version);
    }
  }
}

/** The session id if there is one, else the agent name: a split canary's side is picked by its hash (docs/rollout.md). */
export function stickyHeaders(session: string | undefined, agent: string | undefined): Record<string, string> {
  if (session) return { 'x-toolcoach-session': session };
  if (agent) return { 'x-toolcoach-agent': agent };
  return {};
}

function modeOf(guard: LoadToolsOptions['guard']): GuardMode | undefined {
  return guard === true || !guard ? undefined : guard.mode;
}

const TOOL_LIST_PATH = '/v1/tools?format=raw';
/** `POST /v1/tools:bulk` takes at most 500 tools and a body of 1 MB: a larger set is registered in several requests. */
const MAX_TOOLS_PER_BULK = 500;
const MAX_BULK_BODY_BYTES = 768 * 1024;

function registrationBatches(definitions: ToolDefinition[]): ToolDefinition[][] {
  const batches: ToolDefinition[][] = [];
  let bytes = 0;
  for (const definition of definitions) {
    const size = Buffer.byteLength(JSON.stringify(definition)) + 1;
    const last = batches.at(-1);
    if (!last || last.length === MAX_TOOLS_PER_BULK || bytes + size > MAX_BULK_BODY_BYTES) {
      batches.push([definition]);
      bytes = size;
    } else {
      last.push(definition);
      bytes += size;
    }
  }
  return batches.length > 0 ? batches : [definitions];
}

/** One page of `GET /v1/tools?format=raw`; `nextCursor` is missing from a server from before pages. */
interface ToolListPage {
  tools: ToolDescription[];
  nextCursor?: string | null;
}

/** The served descriptions of the named tools, out of a `GET /v1/tools?format=raw` answer. */
function servedOf(body: unknown, names: string[]): Map<string, ToolDescription> {
  const wanted = new Set(names);
  const tools = (body as { tools: ToolDescription[] }).tools;
  return new Map(tools.filter((tool) => wanted.has(tool.name)).map((tool) => [tool.name, tool]));
}
