import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConnection } from './connection-settings';
import { DescriptionCache, defaultCacheDir } from './description-cache';
import { Logger, OnceLogger } from './logger';
import { isSecretKeyByDefault, SecretKeyMatcher } from './redaction';
import { FlushResult, Reporter, ReporterOptions, ReporterStats } from './reporter';
import { toToolDefinition, ToolLike } from './tool-definition';
import { ToolDefinition, ToolDescription, ToolEvent, ValidationResult } from './wire';

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

/** Where descriptions came from: the server, the disk cache of an earlier start, or the tools as given. */
export type DescriptionSource = 'server' | 'cache' | 'given';

/**
 * A validation answer; `checked: false` means the server could not be asked, or its schema could not check the
 * arguments in time, and the arguments were let through.
 */
export interface ValidationOutcome extends ValidationResult {
  checked: boolean;
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
  async loadTools<T extends ToolLike>(tools: T[]): Promise<T[]> {
    let source: DescriptionSource = 'given';
    try {
      const definitions = tools.map((tool) => toToolDefinition(tool, this.baseDescriptions.get(tool)));
      try {
        const served = await this.fetchDescriptions(
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
    } catch (error) {
      this.log.warn('load-tools-internal', `toolcoach: loadTools failed (${describe(error)}); using the tools as given`);
    }
    this.loadSource = source;
    return tools;
  }

  /** Where the descriptions of the last `loadTools` came from. */
  get descriptionSource(): DescriptionSource | undefined {
    return this.loadSource;
  }

  /** Checks arguments against the registered schema (POST /v1/tools/:name/validate). Lets them through when it cannot ask. */
  async validate(toolName: string, args: unknown): Promise<ValidationOutcome> {
    try {
      const response = await this.request('POST', `/v1/tools/${encodeURIComponent(toolName)}/validate`, { arguments: args });
      const result = response as ValidationResult;
      return { ...result, checked: result.checked !== false };
    } catch (error) {
      this.log.warn('validate', `toolcoach: could not validate arguments of ${toolName} (${describe(error)}); letting them through`);
      return { valid: true, errors: [], checked: false };
    }
  }

  private async fetchDescriptions(names: string[], definitions: ToolDefinition[]): Promise<Map<string, ToolDescription>> {
    const deadline = AbortSignal.timeout(this.startupTimeoutMs);
    await this.request('POST', '/v1/tools:bulk', { tools: definitions }, deadline);
    const list = (await this.request('GET', '/v1/tools?format=raw', undefined, deadline)) as { tools: ToolDescription[] };
    const wanted = new Set(names);
    return new Map(list.tools.filter((tool) => wanted.has(tool.name)).map((tool) => [tool.name, tool]));
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
