import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentGuard, Correction, GuardVerdict } from './argument-guard';
import { resolveConnection } from './connection-settings';
import { DescriptionCache, defaultCacheDir } from './description-cache';
import { Logger, OnceLogger } from './logger';
import { isSecretKeyByDefault, SecretKeyMatcher } from './redaction';
import { FlushResult, Reporter, ReporterOptions, ReporterStats } from './reporter';
import { guardInvokableTool, isInvokableTool } from './guarded-tool';
import { toToolDefinition, ToolLike } from './tool-definition';
import { GuardMode, ToolDefinition, ToolDescription, ToolEvent, ValidationResult } from './wire';

export const SDK_NAME = '@toolcoach/sdk';
export const SDK_VERSION = readSdkVersion();

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
   * A sticky id for guarded rollout (docs/rollout.md): while a new description version is a canary, the server serves
   * every request with the same id the same version. Sent as `X-Toolcoach-Session`; without it, `agent` is sent as
   * `X-Toolcoach-Agent`; with neither, this client gets the version everyone had before the canary.
   */
  session?: string;
  /**
   * Which argument keys hold secrets whose values must not leave the process. Default: keys that look like a password,
   * token, secret, API key or authorization. `false` turns redaction off.
   */
  redact?: SecretKeyMatcher | false;
  /** How long `loadTools` and `validate` wait for the server before falling back. Default 2000 ms. */
  startupTimeoutMs?: number;
  /** Where `loadTools` keeps the last descriptions it got, for starts while the server is down. `false`: nowhere. */
  cacheDir?: string | false;
  /** Flush queued events when the process runs out of work (Node's `beforeExit`). Default true. */
  flushOnExit?: boolean;
  logger?: Logger;
}

export interface LoadToolsOptions {
  /**
   * Check each call's arguments before the tool runs (README "Guarded execution"): safe corrections are applied and
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

// Outcomes wait only until the handler reports their call; the bound keeps calls no handler reports finite.
const MAX_GUARD_OUTCOMES = 10_000;

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
 * No method throws into the agent; problems are logged once and visible in `stats()`.
 */
export class Toolcoach {
  readonly agent: string | undefined;
  /** What tells the server which side of a canary this client is on (see `session`); sent with every request. */
  readonly rolloutHeaders: Readonly<Record<string, string>>;
  private readonly reporter: Reporter;
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;
  private readonly startupTimeoutMs: number;
  private readonly log: OnceLogger;
  private readonly cache: DescriptionCache | undefined;
  private readonly versions = new Map<string, number>();
  /** The descriptions tools had before `loadTools` replaced them, so loading twice never registers a served text. */
  private readonly baseDescriptions = new WeakMap<object, string>();
  private readonly onBeforeExit: (() => void) | undefined;
  private loadSource: DescriptionSource | undefined;
  /** Each guarded tool's guard, rebuilt (its schema compiled) only when the served version or guard section changes. */
  private readonly guards = new Map<string, { key: string; guard: ArgumentGuard }>();
  private readonly guardOutcomes = new Map<string, GuardOutcome>();

  constructor(options: ToolcoachOptions = {}) {
    const logger = options.logger ?? console;
    this.log = new OnceLogger(logger);
    this.agent = options.agent;
    this.rolloutHeaders = stickyHeaders(options.session, options.agent);
    const connection = resolveConnection(options);
    this.baseUrl = connection.baseUrl;
    this.apiKey = connection.apiKey ?? '';
    if (connection.apiKey === undefined) {
      this.log.warn(
        'no-api-key',
        `toolcoach: no API key (pass apiKey or set TOOLCOACH_API_KEY); ${this.baseUrl} will refuse every request`,
      );
    }
    this.fetch = options.fetch ?? globalThis.fetch;
    this.startupTimeoutMs = options.startupTimeoutMs ?? 2000;
    this.reporter = new Reporter({
      ...options,
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      isSecretKey: options.redact === undefined ? isSecretKeyByDefault : options.redact,
      client: { sdk: SDK_NAME, version: SDK_VERSION },
      logger,
    });
    const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
    if (cacheDir !== false) this.cache = new DescriptionCache(cacheDir, this.baseUrl, this.apiKey);
    if (options.flushOnExit !== false) {
      // beforeExit fires when the event loop is empty, so async delivery is still possible; a signal or
      // process.exit() gives no such chance, which is why agents that use them should await shutdown() first.
      this.onBeforeExit = () => void this.shutdown();
      process.once('beforeExit', this.onBeforeExit);
    }
  }

  /** Queues one tool call for delivery. Returns at once; never throws. */
  report(event: ToolEvent): void {
    try {
      if (event.agent === undefined && this.agent !== undefined) event = { ...event, agent: this.agent };
      if (event.descriptionVersion === undefined) {
        const version = this.versions.get(event.tool);
        if (version !== undefined) event = { ...event, descriptionVersion: version };
      }
      this.reporter.enqueue(event);
    } catch {
      // Reporting is best effort by contract; the agent's tool call must go on whatever happens here.
    }
  }

  /** The registry version of the description the agent was given for this tool by `loadTools`, if any. */
  descriptionVersionOf(toolName: string): number | undefined {
    return this.versions.get(toolName);
  }

  stats(): ReporterStats {
    return this.reporter.stats();
  }

  flush(timeoutMs?: number): Promise<FlushResult> {
    return this.reporter.flush(timeoutMs);
  }

  /** Delivers what is queued (within `timeoutMs`, default 5 s), then stops reporting. */
  shutdown(timeoutMs?: number): Promise<FlushResult> {
    if (this.onBeforeExit) process.removeListener('beforeExit', this.onBeforeExit);
    return this.reporter.shutdown(timeoutMs);
  }

  /**
   * Registers the agent's tools and replaces each tool's `description` (in place) with the one the server serves,
   * learned warnings included. Falls back to the last copy cached on disk, else leaves the tools as given. Never throws.
   */
  async loadTools<T extends ToolLike>(tools: T[], options: LoadToolsOptions = {}): Promise<T[]> {
    let source: DescriptionSource = 'given';
    try {
      const definitions = tools.map((tool) => toToolDefinition(tool, this.baseDescriptions.get(tool)));
      let served = new Map<string, ToolDescription>();
      try {
        served = await this.fetchDescriptions(
          definitions.map((d) => d.name),
          definitions,
        );
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
        this.log.warn(
          'load-tools',
          `toolcoach: could not load tool descriptions from ${this.baseUrl} (${describe(error)}); using ${fallback}`,
        );
      }
      if (options.guard) this.guardTools(tools, definitions, served, options.guard === true ? undefined : options.guard.mode);
    } catch (error) {
      this.log.warn('load-tools-internal', `toolcoach: loadTools failed (${describe(error)}); using the tools as given`);
    }
    this.loadSource = source;
    return tools;
  }

  /**
   * The guard's verdict on a call of a tool loaded with `guard`: run it as is, run it with corrected arguments, or
   * refuse it with a message for the model. Tools loaded without the guard always run. Takes microseconds; no request.
   */
  checkArguments(toolName: string, args: unknown): GuardVerdict {
    try {
      return this.guards.get(toolName)?.guard.check(args) ?? { action: 'run' };
    } catch (error) {
      this.log.warn('guard-check', `toolcoach: the guard could not check a call of ${toolName} (${describe(error)}); letting it through`);
      return { action: 'run' };
    }
  }

  /** @internal The guard notes what it did to a call that a ToolcoachCallbackHandler will report. */
  noteGuardOutcome(toolCallId: string, outcome: GuardOutcome): void {
    if (this.guardOutcomes.size >= MAX_GUARD_OUTCOMES) this.guardOutcomes.delete(this.guardOutcomes.keys().next().value!);
    this.guardOutcomes.set(toolCallId, outcome);
  }

  /** @internal The handler takes the guard's outcome of the call it reports. */
  takeGuardOutcome(toolCallId: string): GuardOutcome | undefined {
    const outcome = this.guardOutcomes.get(toolCallId);
    this.guardOutcomes.delete(toolCallId);
    return outcome;
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
      const response = await this.request('POST', `/v1/tools/${encodeURIComponent(toolName)}/validate`, { arguments: args });
      const result = response as ValidationResult;
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
      const errors = guard.findProblems(args).map((problem) => ({ ...problem, subtype: null }));
      const reason = `not checked by the server (${notChecked}); checked by the local guard`;
      return { valid: errors.length === 0, errors, suggestion: null, checked: true, checkedBy: 'local', reason };
    }
    this.log.warn('validate', `toolcoach: arguments of ${toolName} were not checked (${notChecked}); letting them through`);
    return { valid: true, errors: [], suggestion: null, checked: false, checkedBy: null, reason: `not checked: ${notChecked}` };
  }

  private async fetchDescriptions(names: string[], definitions: ToolDefinition[]): Promise<Map<string, ToolDescription>> {
    const deadline = AbortSignal.timeout(this.startupTimeoutMs);
    await this.request('POST', '/v1/tools:bulk', { tools: definitions }, deadline);
    const list = (await this.request('GET', '/v1/tools?format=raw', undefined, deadline)) as { tools: ToolDescription[] };
    const wanted = new Set(names);
    return new Map(list.tools.filter((tool) => wanted.has(tool.name)).map((tool) => [tool.name, tool]));
  }

  private guardTools(tools: ToolLike[], definitions: ToolDefinition[], served: Map<string, ToolDescription>, mode: GuardMode | undefined) {
    const missing = definitions.filter((definition) => !served.get(definition.name)?.guard).map((definition) => definition.name);
    if (missing.length > 0) {
      this.log.warn(
        'guard-own-schema',
        `toolcoach: the guard checks ${missing.join(', ')} against the tools' own schemas only (no guard section from ${this.baseUrl})`,
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
          this.log.warn(
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
      if (!this.baseDescriptions.has(tool)) this.baseDescriptions.set(tool, tool.description);
      tool.description = served.description;
      this.versions.set(tool.name, served.version);
    }
  }

  private async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const response = await this.fetch(this.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...this.rolloutHeaders,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(this.startupTimeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${method} ${path}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }
}

/** The session id if there is one, else the agent name: the server hashes it to pick a canary's side. */
export function stickyHeaders(session: string | undefined, agent: string | undefined): Record<string, string> {
  if (session) return { 'x-toolcoach-session': session };
  if (agent) return { 'x-toolcoach-agent': agent };
  return {};
}

function describe(error: unknown): string {
  const { name, message, cause } = (error ?? {}) as { name?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (name === 'TimeoutError') return 'timed out';
  if (typeof cause?.code === 'string') return cause.code;
  return typeof message === 'string' ? message : String(error);
}

function readSdkVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
