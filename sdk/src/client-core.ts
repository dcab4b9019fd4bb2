import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GuardOutcome, ToolcoachOptions } from './toolcoach';
import { resolveConnection, resolveStartupTimeout } from './connection-settings';
import { defaultCacheDir } from './description-cache';
import { OnceLogger } from './logger';
import { isSecretKeyByDefault } from './redaction';
import { Reporter } from './reporter';

export const SDK_NAME = '@toolcoach/sdk';
export const SDK_VERSION = readSdkVersion();

/** How often loaded tools ask the registry for new descriptions unless `refreshIntervalMs` says otherwise. */
export const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
// Outcomes wait only until the handler reports their call; the bound keeps calls no handler reports finite.
const MAX_GUARD_OUTCOMES = 10_000;

/** What the core needs of a client (the client itself, or one of its session views) to keep its tools current. */
export interface RefreshingSide {
  refreshDescriptions(): Promise<boolean>;
}

/** An answer of the registry: its status, its ETag, and its body parsed (undefined for a 304). */
export interface RegistryAnswer {
  status: number;
  etag: string | undefined;
  body: unknown;
}

/**
 * What a client and all its session views share: the connection, the reporter, the guard outcomes in flight, the
 * original descriptions of loaded tools, and one refresh timer for every side that loaded tools.
 */
export class ClientCore {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
  readonly startupTimeoutMs: number;
  readonly cacheDir: string | false;
  readonly refreshIntervalMs: number;
  readonly log: OnceLogger;
  readonly reporter: Reporter;
  /** The descriptions tools had before `loadTools` replaced them, so loading twice never registers a served text. */
  readonly baseDescriptions = new WeakMap<object, string>();
  private readonly guardOutcomes = new Map<string, GuardOutcome>();
  /** Weak, so a session view the agent dropped (its conversation over) stops being polled once it is collected. */
  private readonly sides = new Set<WeakRef<RefreshingSide>>();
  private timer: NodeJS.Timeout | undefined;
  private isPolling = false;
  private isClosed = false;

  constructor(options: ToolcoachOptions) {
    const logger = options.logger ?? console;
    this.log = new OnceLogger(logger);
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
    const startupTimeout = resolveStartupTimeout(options.startupTimeoutMs);
    if (startupTimeout.problem) this.log.warn('startup-timeout', startupTimeout.problem);
    this.startupTimeoutMs = startupTimeout.timeoutMs;
    this.cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
    this.refreshIntervalMs =
      options.refreshIntervalMs === false ? 0 : Math.max(0, options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS);
    this.reporter = new Reporter({
      ...options,
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      isSecretKey: options.redact === undefined ? isSecretKeyByDefault : options.redact,
      client: { sdk: SDK_NAME, version: SDK_VERSION },
      logger,
    });
    if (options.flushOnExit !== false) flushBeforeExit(this);
  }

  /** Starts polling for a side that loaded tools (once per side); the one timer is started with the first. */
  watch(side: RefreshingSide): WeakRef<RefreshingSide> | undefined {
    if (this.refreshIntervalMs === 0 || this.isClosed) return undefined;
    const ref = new WeakRef(side);
    this.sides.add(ref);
    if (!this.timer) {
      this.timer = setInterval(() => void this.pollSides(), this.refreshIntervalMs);
      // The poll must never be what keeps an agent's process alive.
      this.timer.unref();
    }
    return ref;
  }

  unwatch(ref: WeakRef<RefreshingSide>): void {
    this.sides.delete(ref);
  }

  noteGuardOutcome(toolCallId: string, outcome: GuardOutcome): void {
    if (this.guardOutcomes.size >= MAX_GUARD_OUTCOMES) this.guardOutcomes.delete(this.guardOutcomes.keys().next().value!);
    this.guardOutcomes.set(toolCallId, outcome);
  }

  takeGuardOutcome(toolCallId: string): GuardOutcome | undefined {
    const outcome = this.guardOutcomes.get(toolCallId);
    this.guardOutcomes.delete(toolCallId);
    return outcome;
  }

  /** Stops the polls and the reporter (flushing it first, within `timeoutMs`). */
  shutdown(timeoutMs?: number) {
    this.isClosed = true;
    if (this.timer) clearInterval(this.timer);
    this.sides.clear();
    forgetBeforeExit(this);
    return this.reporter.shutdown(timeoutMs);
  }

  /** One request to the registry with the side's sticky headers; a 304 is an answer, any other non-2xx throws. */
  async request(
    method: string,
    path: string,
    headers: Readonly<Record<string, string>>,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<RegistryAnswer> {
    const response = await this.fetch(this.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(this.startupTimeoutMs),
    });
    const text = await response.text();
    const etag = response.headers.get('etag') ?? undefined;
    if (response.status === 304) return { status: 304, etag, body: undefined };
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${method} ${path}: ${text.slice(0, 200)}`);
    return { status: response.status, etag, body: JSON.parse(text) };
  }

  /** One side after another, so a client with many sessions never has a burst of requests in flight. */
  private async pollSides(): Promise<void> {
    if (this.isPolling) return;
    this.isPolling = true;
    try {
      for (const ref of [...this.sides]) {
        const side = ref.deref();
        if (!side) this.sides.delete(ref);
        else await side.refreshDescriptions();
      }
    } finally {
      this.isPolling = false;
    }
  }
}

// One beforeExit listener per process, whatever the number of clients: a listener per client made Node warn
// (MaxListenersExceededWarning) from the eleventh client on.
const flushingBeforeExit = new Set<ClientCore>();

function flushAllBeforeExit(): void {
  const cores = [...flushingBeforeExit];
  // beforeExit fires when the event loop is empty, so async delivery is still possible; a signal or process.exit()
  // gives no such chance, which is why agents that use them should await shutdown() first.
  for (const core of cores) void core.shutdown();
}

function flushBeforeExit(core: ClientCore): void {
  if (flushingBeforeExit.size === 0) process.on('beforeExit', flushAllBeforeExit);
  flushingBeforeExit.add(core);
}

function forgetBeforeExit(core: ClientCore): void {
  if (!flushingBeforeExit.delete(core)) return;
  if (flushingBeforeExit.size === 0) process.removeListener('beforeExit', flushAllBeforeExit);
}

export function describeError(error: unknown): string {
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
