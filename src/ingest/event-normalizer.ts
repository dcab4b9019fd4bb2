import { randomUUID } from 'node:crypto';
import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { FieldError } from '../infra/http/api-error';
import { firstUnstorableValue, INSTANT_RANGE_TEXT, isStorableInstant, truncateText } from '../infra/http/storable-values';
import { MAX_METADATA_BYTES } from './event.schemas';
import { redactSecrets, redactSecretsInText } from './secret-redaction';
import { firstUnstorableInJsonText } from './storable-json';

export const MAX_RESULT_BYTES = 4 * 1024;
export const MAX_ERROR_MESSAGE_CHARS = 8 * 1024;
export const MAX_PROMPT_CHARS = 2 * 1024;
export const MAX_STACK_CHARS = 16 * 1024;
export const MAX_JSON_DEPTH = 64;

type RawEvent = Omit<AcceptedEvent, 'id' | 'occurredAt'> & { id?: string; occurredAt?: string };

export type NormalizeResult = { event: AcceptedEvent } | { errors: FieldError[] };

/**
 * Applies defaults and storage limits to a schema-valid event. What Postgres could not store as it came (NUL, lone
 * surrogates, numbers that are not finite, instants outside what we keep) refuses this event, naming the field, here
 * at the edge: a batch can never fail in the worker because of one odd value, and nothing is changed without a word.
 */
export function normalizeEvent(raw: RawEvent, index: number, now: Date): NormalizeResult {
  const path = `/events/${index}`;
  for (const field of ['arguments', 'result', 'metadata'] as const) {
    if (raw[field] !== undefined && jsonDepth(raw[field]) > MAX_JSON_DEPTH) {
      return { errors: [{ path: `${path}/${field}`, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }] };
    }
  }
  const unstorable =
    firstUnstorableValue(raw, path) ??
    (typeof raw.arguments === 'string' ? firstUnstorableInJsonText(raw.arguments, `${path}/arguments`) : null);
  if (unstorable) return { errors: [unstorable] };
  const metadata = raw.metadata === undefined ? undefined : redactSecrets(raw.metadata);
  if (metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    return { errors: [{ path: `${path}/metadata`, message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }] };
  }
  const occurredAt = raw.occurredAt ? new Date(raw.occurredAt) : now;
  if (Number.isNaN(occurredAt.getTime())) {
    return { errors: [{ path: `${path}/occurredAt`, message: 'must be a valid ISO-8601 date-time' }] };
  }
  if (!isStorableInstant(occurredAt)) {
    return { errors: [{ path: `${path}/occurredAt`, message: `must be ${INSTANT_RANGE_TEXT} once converted to UTC` }] };
  }
  const event: AcceptedEvent = {
    id: raw.id ?? randomUUID(),
    tool: raw.tool,
    status: raw.status,
    occurredAt: occurredAt.toISOString(),
  };
  if (raw.arguments !== undefined) {
    event.arguments = typeof raw.arguments === 'string' ? redactSecretsInText(raw.arguments) : redactSecrets(raw.arguments);
  }
  if (raw.result !== undefined) event.result = truncateJson(redactSecrets(raw.result), MAX_RESULT_BYTES);
  if (raw.error) {
    event.error = { message: truncateText(raw.error.message, MAX_ERROR_MESSAGE_CHARS) };
    if (raw.error.type !== undefined) event.error.type = raw.error.type;
    if (raw.error.stack !== undefined) event.error.stack = truncateText(raw.error.stack, MAX_STACK_CHARS);
  }
  if (raw.durationMs !== undefined) event.durationMs = raw.durationMs;
  for (const key of ['agent', 'model', 'framework', 'sessionId', 'traceId', 'runId', 'toolCallId'] as const) {
    const value = raw[key];
    if (value !== undefined) event[key] = value;
  }
  if (raw.descriptionVersion !== undefined) event.descriptionVersion = raw.descriptionVersion;
  if (raw.prompt !== undefined) event.prompt = truncateText(raw.prompt, MAX_PROMPT_CHARS);
  if (metadata !== undefined) event.metadata = metadata as Record<string, unknown>;
  if (raw.correction !== undefined) {
    const { original, corrected, kinds } = raw.correction;
    event.correction = { original: redactSecrets(original), corrected: redactSecrets(corrected), kinds: [...new Set(kinds)] };
  }
  if (raw.prevented === true) event.prevented = true;
  return { event };
}

/** A result over the limit is kept as a marked preview, so readers can tell it was cut. */
function truncateJson(value: unknown, maxBytes: number): unknown {
  const text = JSON.stringify(value);
  if (text === undefined || Buffer.byteLength(text) <= maxBytes) return value;
  return { $truncated: true, bytes: Buffer.byteLength(text), preview: truncateText(text, maxBytes) };
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
