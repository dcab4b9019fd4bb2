import { randomUUID } from 'node:crypto';
import { EventBuffer } from './event-buffer';
import { Logger, OnceLogger } from './logger';
import { redactSecrets, SecretKeyMatcher } from './redaction';
import { ClientInfo, ToolEvent } from '@toolcoach/core';

/** The server takes at most 1000 events and 1 MB per request; we stay under both with some room. */
export const MAX_BATCH_EVENTS = 1000;
const MAX_BATCH_BYTES = 900 * 1024;
const MAX_METADATA_BYTES = 4 * 1024;
// One huge result must not make its batch unsendable; the server keeps only 4 KB of it anyway.
const MAX_VALUE_BYTES = 16 * 1024;
const VALUE_PREVIEW_CHARS = 1024;
const MAX_RETRY_AFTER_MS = 5 * 60_000;

export interface ReporterOptions {
  baseUrl: string;
  apiKey: string;
  /** Events per request (1..1000). Default 100: a batch is sent as soon as this many are queued. */
  batchSize?: number;
  /** How long an event may wait for its batch to fill. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Events kept in memory while the server is slow or down; beyond it the oldest are dropped and counted. Default 10,000. */
  maxQueuedEvents?: number;
  /** Attempts per batch before it is dropped (and counted). Default 8. */
  maxAttempts?: number;
  /** First retry delay; doubled per attempt, with jitter, up to `maxBackoffMs`. Default 500 ms. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Per request. Default 10 s. */
  requestTimeoutMs?: number;
  /** Tells which argument keys hold secrets; `false` sends arguments as they are. */
  isSecretKey: SecretKeyMatcher | false;
  client: Omit<ClientInfo, 'dropped'>;
  logger: Logger;
  fetch?: typeof fetch;
  /** The jitter's source of randomness; tests pin it. */
  random?: () => number;
}

export interface ReporterStats {
  /** Events waiting in memory, including a batch being sent. */
  queued: number;
  /** Events the server accepted. */
  sent: number;
  /** Events lost on this side: evicted from a full buffer, or in a batch that failed every attempt. */
  dropped: number;
  /** Events the server refused as invalid (the log names the first reason). */
  rejected: number;
  /** Requests that failed and were retried. */
  retries: number;
  lastError?: string;
}

export interface FlushResult {
  /** True when nothing was left queued before the timeout. */
  isComplete: boolean;
  queued: number;
}

/** An event waiting to be sent, with what is cheap to capture now and costly to prepare (done off the agent's path). */
interface QueuedEvent {
  event: ToolEvent;
  id: string;
  occurredAtMs: number;
}

interface Batch {
  items: QueuedEvent[];
  /** The serialized events, kept to rebuild a smaller body after a 413. */
  parts: string[];
  body: string;
  droppedReported: number;
  attempt: number;
}

/**
 * Queues events in memory and sends them in batches from the background. `enqueue` is what the agent pays for: it
 * never awaits, never throws, and does no serialization; everything else happens in timers and promise callbacks.
 */
export class Reporter {
  private readonly buffer: EventBuffer<QueuedEvent>;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxAttempts: number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly requestTimeoutMs: number;
  private readonly eventsUrl: string;
  private readonly fetch: typeof fetch;
  private readonly random: () => number;
  private readonly log: OnceLogger;

  private inflight: Batch | undefined;
  private isSending = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private sendScheduled = false;
  private readonly intervalTimer: NodeJS.Timeout;
  private isClosed = false;
  /** Dropped events the server has not been told about yet. */
  private droppedUnreported = 0;
  private readonly counters = { sent: 0, dropped: 0, rejected: 0, retries: 0 };
  private lastError: string | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: ReporterOptions) {
    this.batchSize = clamp(options.batchSize ?? 100, 1, MAX_BATCH_EVENTS);
    this.flushIntervalMs = Math.max(10, options.flushIntervalMs ?? 1000);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 8);
    this.initialBackoffMs = Math.max(1, options.initialBackoffMs ?? 500);
    this.maxBackoffMs = Math.max(this.initialBackoffMs, options.maxBackoffMs ?? 30_000);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.buffer = new EventBuffer(Math.max(1, options.maxQueuedEvents ?? 10_000));
    this.eventsUrl = `${options.baseUrl.replace(/\/+$/, '')}/v1/events`;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.random = options.random ?? Math.random;
    this.log = new OnceLogger(options.logger);
    this.intervalTimer = setInterval(() => this.scheduleSend(), this.flushIntervalMs);
    // The reporter must never be what keeps an agent's process alive.
    this.intervalTimer.unref();
  }

  /** Queues one event. Never throws, never blocks: a full buffer evicts its oldest event and counts it. */
  enqueue(event: ToolEvent): void {
    if (this.isClosed) {
      this.countDropped(1);
      return;
    }
    const evicted = this.buffer.push({ event, id: event.id ?? randomUUID(), occurredAtMs: Date.now() });
    if (evicted) this.countDropped(1);
    if (this.buffer.length >= this.batchSize) this.scheduleSend();
  }

  stats(): ReporterStats {
    const stats: ReporterStats = { queued: this.buffer.length + (this.inflight?.items.length ?? 0), ...this.counters };
    if (this.lastError !== undefined) stats.lastError = this.lastError;
    return stats;
  }

  /** Sends everything queued now, retrying as usual, until the queue is empty or `timeoutMs` has passed. Never rejects. */
  async flush(timeoutMs = 5000): Promise<FlushResult> {
    if (this.retryTimer && this.inflight) {
      // A flush is a request to try now; the Retry-After of the server still bounds the next attempts.
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    this.scheduleSend();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.whenIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    const queued = this.stats().queued;
    return { isComplete: queued === 0, queued };
  }

  /** Flushes, then stops: later events are counted as dropped. */
  async shutdown(timeoutMs = 5000): Promise<FlushResult> {
    clearInterval(this.intervalTimer);
    const result = await this.flush(timeoutMs);
    this.isClosed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (!result.isComplete) {
      this.log.warn('shutdown-lost', `toolcoach: ${result.queued} events were not delivered before shutdown`);
    }
    return result;
  }

  private countDropped(count: number): void {
    this.counters.dropped += count;
    this.droppedUnreported += count;
  }

  private scheduleSend(): void {
    if (this.sendScheduled || this.isSending || this.retryTimer) return;
    if (this.buffer.length === 0 && !this.inflight) return;
    this.sendScheduled = true;
    // Off the caller's stack: the agent's tool call returns before any serialization or network work starts.
    setImmediate(() => {
      this.sendScheduled = false;
      void this.sendLoop();
    });
  }

  private async sendLoop(): Promise<void> {
    if (this.isSending) return;
    this.isSending = true;
    try {
      while (!this.retryTimer) {
        this.inflight ??= this.takeBatch();
        if (!this.inflight) break;
        const delayMs = await this.send(this.inflight);
        if (delayMs === undefined) continue;
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.scheduleSend();
        }, delayMs);
        this.retryTimer.unref();
      }
    } catch (error) {
      // A bug here must not surface in the agent; it is logged and the batch dropped so the loop cannot spin.
      this.lastError = String(error);
      this.log.warn('internal', `toolcoach: reporter failed: ${String(error)}`);
      if (this.inflight) this.countDropped(this.inflight.items.length);
      this.inflight = undefined;
    } finally {
      this.isSending = false;
      if (!this.inflight && this.buffer.length === 0) this.notifyIdle();
      else if (!this.retryTimer && !this.isClosed) this.scheduleSend();
    }
  }

  /** Builds the next request body from the front of the buffer, within the count and byte limits of the server. */
  private takeBatch(): Batch | undefined {
    const items: QueuedEvent[] = [];
    const parts: string[] = [];
    let bytes = 0;
    while (items.length < this.batchSize && this.buffer.length > 0) {
      const item = this.buffer.shift()!;
      const json = this.serialize(item);
      if (json === undefined) {
        this.countDropped(1);
        continue;
      }
      if (items.length > 0 && bytes + json.length > MAX_BATCH_BYTES) {
        // Does not fit: it opens the next batch instead. The buffer has room, since we just shifted from it.
        this.buffer.pushFront(item);
        break;
      }
      items.push(item);
      parts.push(json);
      bytes += json.length + 1;
    }
    if (items.length === 0) return undefined;
    return this.buildBatch(items, parts, this.droppedUnreported);
  }

  private buildBatch(items: QueuedEvent[], parts: string[], droppedReported: number): Batch {
    const client: ClientInfo = { ...this.options.client, dropped: droppedReported };
    const body = `{"events":[${parts.join(',')}],"client":${JSON.stringify(client)}}`;
    return { items, parts, body, droppedReported, attempt: 0 };
  }

  /** The wire form of one event, or undefined when it cannot be serialized (e.g. a BigInt in its result). */
  private serialize(item: QueuedEvent): string | undefined {
    try {
      const { event } = item;
      const wire: ToolEvent = { ...event, id: item.id, occurredAt: event.occurredAt ?? new Date(item.occurredAtMs).toISOString() };
      const redact = this.redactor();
      if (wire.arguments !== undefined) wire.arguments = boundValue(redact(wire.arguments));
      if (wire.result !== undefined) wire.result = boundValue(redact(wire.result));
      if (wire.error) {
        const { message, stack } = wire.error;
        wire.error = {
          ...wire.error,
          message: redact(message) as string,
          ...(stack === undefined ? {} : { stack: redact(stack) as string }),
        };
      }
      if (wire.prompt !== undefined) wire.prompt = redact(wire.prompt) as string;
      if (wire.metadata !== undefined) {
        const metadata = redact(wire.metadata);
        const json = JSON.stringify(metadata);
        wire.metadata =
          json.length <= MAX_METADATA_BYTES ? (metadata as Record<string, unknown>) : { $truncated: true, bytes: json.length };
      }
      return JSON.stringify(wire);
    } catch (error) {
      this.log.warn('serialize', `toolcoach: dropped an event of tool ${item.event.tool} that cannot be serialized: ${String(error)}`);
      return undefined;
    }
  }

  /** Secrets out of user data (the same fields as the Python SDK): values under secret keys, and secrets in every text. */
  private redactor(): (value: unknown) => unknown {
    const isSecretKey = this.options.isSecretKey;
    if (!isSecretKey) return (value) => value;
    return (value) => redactSecrets(value, isSecretKey);
  }

  /** Sends one batch. Resolves to undefined when the batch is done with, or to the delay before trying it again. */
  private async send(batch: Batch): Promise<number | undefined> {
    batch.attempt++;
    let response: Response;
    try {
      response = await this.fetch(this.eventsUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: batch.body,
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      return this.retryOrDrop(batch, `cannot reach ${this.eventsUrl}: ${describeFetchError(error)}`, undefined);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 202 || response.status === 200) {
      this.onDelivered(batch, text);
      return undefined;
    }
    if (response.status === 429 || response.status === 503 || response.status >= 500 || response.status === 408) {
      return this.retryOrDrop(
        batch,
        `HTTP ${response.status} from ${this.eventsUrl}`,
        parseRetryAfterMs(response.headers.get('retry-after')),
      );
    }
    if (response.status === 413 && batch.items.length > 1) {
      this.splitBatch(batch);
      return undefined;
    }
    // 400, 401, 403, 404, 413 of a single event: sending the same body again cannot succeed.
    this.lastError = `HTTP ${response.status}: ${text.slice(0, 300)}`;
    if (response.status === 400) this.counters.rejected += batch.items.length;
    else this.countDropped(batch.items.length);
    this.log.warn(
      `status-${response.status}`,
      `toolcoach: the server refused ${batch.items.length} events with HTTP ${response.status}: ${text.slice(0, 300)}`,
    );
    this.inflight = undefined;
    return undefined;
  }

  private onDelivered(batch: Batch, text: string): void {
    let rejected = 0;
    try {
      const body = JSON.parse(text) as { rejected?: Array<{ index: number; errors?: Array<{ path: string; message: string }> }> };
      rejected = body.rejected?.length ?? 0;
      if (rejected > 0) {
        const first = body.rejected![0].errors?.[0];
        this.log.warn('rejected', `toolcoach: the server refused ${rejected} events as invalid, e.g. ${first?.path} ${first?.message}`);
      }
    } catch {
      // A 202 without a readable body still means the batch was queued.
    }
    this.counters.sent += batch.items.length - rejected;
    this.counters.rejected += rejected;
    this.droppedUnreported -= batch.droppedReported;
    this.inflight = undefined;
  }

  private retryOrDrop(batch: Batch, problem: string, retryAfterMs: number | undefined): number | undefined {
    this.lastError = problem;
    if (batch.attempt >= this.maxAttempts) {
      this.log.warn(`gave-up`, `toolcoach: dropped ${batch.items.length} events after ${batch.attempt} attempts; last: ${problem}`);
      this.countDropped(batch.items.length);
      this.inflight = undefined;
      return undefined;
    }
    this.counters.retries++;
    this.log.warn('retrying', `toolcoach: ${problem}; events stay queued and are retried with backoff`);
    return retryAfterMs ?? this.backoffMs(batch.attempt);
  }

  /** Exponential backoff with "equal jitter": half the delay is fixed, half random, so clients spread out. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  /** After a 413, sends the first half now and puts the second back at the front of the queue. */
  private splitBatch(batch: Batch): void {
    const half = Math.ceil(batch.items.length / 2);
    for (let i = batch.items.length - 1; i >= half; i--) {
      if (!this.buffer.pushFront(batch.items[i])) this.countDropped(1);
    }
    this.inflight = this.buildBatch(batch.items.slice(0, half), batch.parts.slice(0, half), batch.droppedReported);
  }

  private whenIdle(): Promise<void> {
    if (!this.inflight && this.buffer.length === 0 && !this.isSending) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

function boundValue(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_VALUE_BYTES
      ? value
      : { $truncated: true, bytes: value.length, preview: value.slice(0, VALUE_PREVIEW_CHARS) };
  }
  if (value === null || typeof value !== 'object') return value;
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= MAX_VALUE_BYTES) return value;
  return { $truncated: true, bytes: json.length, preview: json.slice(0, VALUE_PREVIEW_CHARS) };
}

function describeFetchError(error: unknown): string {
  // Duck-typed, not instanceof: fetch's errors may come from another realm (a VM context, a test runner's sandbox).
  const cause = (error as { cause?: { code?: unknown; message?: unknown; errors?: Array<{ code?: unknown }> } } | null)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (typeof code === 'string') return code;
  if (typeof cause?.message === 'string' && cause.message) return cause.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
