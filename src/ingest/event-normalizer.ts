import { randomUUID } from 'node:crypto';
import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { FieldError } from '../infra/http/api-error';
import { MAX_METADATA_BYTES } from './event.schemas';
import { redactSecrets, redactSecretsInText } from './secret-redaction';

export const MAX_RESULT_BYTES = 4 * 1024;
export const MAX_ERROR_MESSAGE_CHARS = 8 * 1024;
export const MAX_PROMPT_CHARS = 2 * 1024;
export const MAX_STACK_CHARS = 16 * 1024;
export const MAX_JSON_DEPTH = 64;

type RawEvent = Omit<AcceptedEvent, 'id' | 'occurredAt'> & { id?: string; occurredAt?: string };

export type NormalizeResult = { event: AcceptedEvent } | { errors: FieldError[] };

/**
 * Applies defaults and storage limits to a schema-valid event. Strings are made storable by Postgres (no NUL, no lone
 * surrogates) here, at the edge, so a batch can never fail in the worker because of one odd character.
 */
export function normalizeEvent(raw: RawEvent, index: number, now: Date): NormalizeResult {
  const path = `/events/${index}`;
  for (const field of ['arguments', 'result', 'metadata'] as const) {
    if (raw[field] !== undefined && jsonDepth(raw[field]) > MAX_JSON_DEPTH) {
      return { errors: [{ path: `${path}/${field}`, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }] };
    }
  }
  const metadata = raw.metadata === undefined ? undefined : redactSecrets(storable(raw.metadata));
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    return { errors: [{ path: `${path}/metadata`, message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }] };
  }
  const occurredAt = raw.occurredAt ? new Date(raw.occurredAt) : now;
  if (Number.isNaN(occurredAt.getTime())) {
    return { errors: [{ path: `${path}/occurredAt`, message: 'must be a valid ISO-8601 date-time' }] };
  }
  const event: AcceptedEvent = {
    id: raw.id !== undefined ? storableString(raw.id) : randomUUID(),
    tool: storableString(raw.tool),
    status: raw.status,
    occurredAt: occurredAt.toISOString(),
  };
  if (raw.arguments !== undefined) {
    const args = storable(raw.arguments);
    event.arguments = typeof args === 'string' ? redactSecretsInText(args) : redactSecrets(args);
  }
  if (raw.result !== undefined) event.result = truncateJson(redactSecrets(storable(raw.result)), MAX_RESULT_BYTES);
  if (raw.error) {
    event.error = { message: storableString(raw.error.message).slice(0, MAX_ERROR_MESSAGE_CHARS) };
    if (raw.error.type !== undefined) event.error.type = storableString(raw.error.type);
    if (raw.error.stack !== undefined) event.error.stack = storableString(raw.error.stack).slice(0, MAX_STACK_CHARS);
  }
  if (raw.durationMs !== undefined) event.durationMs = raw.durationMs;
  for (const key of ['agent', 'model', 'framework', 'sessionId', 'traceId', 'runId', 'toolCallId'] as const) {
    const value = raw[key];
    if (value !== undefined) event[key] = storableString(value);
  }
  if (raw.descriptionVersion !== undefined) event.descriptionVersion = raw.descriptionVersion;
  if (raw.prompt !== undefined) event.prompt = storableString(raw.prompt).slice(0, MAX_PROMPT_CHARS);
  if (metadata !== undefined) event.metadata = metadata as Record<string, unknown>;
  return { event };
}

/** A result over the limit is kept as a marked preview, so readers can tell it was cut. */
function truncateJson(value: unknown, maxBytes: number): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || Buffer.byteLength(text) <= maxBytes) return value;
  return { $truncated: true, bytes: Buffer.byteLength(text), preview: storableString(text.slice(0, maxBytes)) };
}

function storableString(value: string): string {
  // Postgres text and jsonb cannot hold U+0000, and jsonb refuses lone surrogates.
  const wellFormed = value.isWellFormed() ? value : value.toWellFormed();
  return wellFormed.includes('\u0000') ? wellFormed.replaceAll('\u0000', '\uFFFD') : wellFormed;
}

// Copy on write: almost every value is storable as it came, and copying each object of every event was the largest
// cost of POST /v1/events (bench/scenarios/ingest.mjs). Only a value that changes, and its parents, are copied.
function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const child = storable(value[index]);
      if (child !== value[index]) (out ??= value.slice())[index] = child;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const changed = entries.findIndex(([key, child]) => storableString(key) !== key || storable(child) !== child);
    if (changed === -1) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of entries) {
      Object.defineProperty(out, storableString(key), { value: storable(child), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function jsonDepth(value: unknown): number {
  let maxDepth = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) maxDepth = depth;
    if (maxDepth > MAX_JSON_DEPTH) return maxDepth;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return maxDepth;
}
