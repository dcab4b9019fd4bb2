import { randomUUID } from 'node:crypto';
import { findResultFailure } from '../diagnosis';
import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { FieldError } from '../infra/http/api-error';
import { firstUnstorableValue, INSTANT_RANGE_TEXT, isStorableInstant, isSurelyStorable, truncateText } from '../infra/http/storable-values';
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
export function normalizeEvent(raw: RawEvent, index: number, now: Date, isTextStorable = false): NormalizeResult {
  const path = `/events/${index}`;
  // One walk tells, for nearly every event, that no check below can refuse it; only an event it is unsure of pays for
  // the checks that name the field at fault. Depth counts from the event's fields, where the limit applies.
  if (!isSurelyStorable(raw, MAX_JSON_DEPTH, isTextStorable)) {
    // fields named one by one, not looped over by key: raw events come in many shapes, and a property read by a
    // computed key from so many shapes is V8's slowest kind (issue 18 measured this function at 4 µs per event)
    const tooDeep = isTooDeep(raw.arguments) ? 'arguments' : isTooDeep(raw.result) ? 'result' : isTooDeep(raw.metadata) ? 'metadata' : null;
    if (tooDeep) return { errors: [{ path: `${path}/${tooDeep}`, message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }] };
    const unstorable = firstUnstorableValue(raw, path);
    if (unstorable) return { errors: [unstorable] };
  }
  if (typeof raw.arguments === 'string') {
    const unstorable = firstUnstorableInJsonText(raw.arguments, `${path}/arguments`);
    if (unstorable) return { errors: [unstorable] };
  }
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
  // Every field in one literal, absent ones as undefined (JSON.stringify leaves them out of the queued job): events
  // that carry different fields then still share one object shape, where adding them one by one made each event's
  // shape from its own chain of transitions (issue 18).
  return {
    event: {
      id: raw.id ?? randomUUID(),
      tool: raw.tool,
      status: raw.status,
      occurredAt: occurredAt === now ? isoTextOf(now) : occurredAt.toISOString(),
      arguments:
        raw.arguments === undefined
          ? undefined
          : typeof raw.arguments === 'string'
            ? redactSecretsInText(raw.arguments)
            : redactSecrets(raw.arguments),
      result: raw.result === undefined ? undefined : truncateJson(redactSecrets(raw.result), MAX_RESULT_BYTES),
      error: raw.error ? errorOf(raw.error) : undefined,
      durationMs: raw.durationMs,
      agent: raw.agent,
      model: raw.model,
      framework: raw.framework,
      sessionId: raw.sessionId,
      traceId: raw.traceId,
      runId: raw.runId,
      toolCallId: raw.toolCallId,
      descriptionVersion: raw.descriptionVersion,
      prompt: raw.prompt === undefined ? undefined : redactSecretsInText(truncateText(raw.prompt, MAX_PROMPT_CHARS)),
      metadata: metadata as Record<string, unknown> | undefined,
      correction: raw.correction === undefined ? undefined : correctionOf(raw.correction),
      prevented: raw.prevented === true ? true : undefined,
      // read here, before the result is cut to MAX_RESULT_BYTES: an MCP error's text or a large envelope would be lost
      resultFailure: raw.status === 'success' && raw.result !== undefined ? resultFailureOf(raw.result) : undefined,
    },
  };
}

// Texts are cut before they are scanned, so the scan's cost is bounded by the limits; a secret cut in two is still
// redacted (its key or prefix is what the scan looks for).
function errorOf(error: NonNullable<RawEvent['error']>): NonNullable<AcceptedEvent['error']> {
  return {
    type: error.type === undefined ? undefined : redactSecretsInText(error.type),
    message: redactSecretsInText(truncateText(error.message, MAX_ERROR_MESSAGE_CHARS)),
    stack: error.stack === undefined ? undefined : redactSecretsInText(truncateText(error.stack, MAX_STACK_CHARS)),
  };
}

function resultFailureOf(result: unknown): AcceptedEvent['resultFailure'] {
  const failure = findResultFailure(result);
  if (!failure) return undefined;
  return {
    rules: failure.rules,
    type: redactSecretsInText(failure.type),
    message: redactSecretsInText(truncateText(failure.message, MAX_ERROR_MESSAGE_CHARS)),
  };
}

function correctionOf({ original, corrected, kinds }: NonNullable<RawEvent['correction']>): AcceptedEvent['correction'] {
  return { original: redactSecrets(original), corrected: redactSecrets(corrected), kinds: [...new Set(kinds)] };
}

/** A result over the limit is kept as a marked preview, so readers can tell it was cut. */
function truncateJson(value: unknown, maxBytes: number): unknown {
  // nearly every result is far below the limit, which a walk can tell without writing the JSON out
  if (isJsonSurelyWithin(value, maxBytes)) return value;
  const text = JSON.stringify(value);
  if (text === undefined || Buffer.byteLength(text) <= maxBytes) return value;
  return { $truncated: true, bytes: Buffer.byteLength(text), preview: truncateText(text, maxBytes) };
}

// The most bytes one UTF-16 unit of a string takes in JSON text (an escape such as \u001f), and a number's longest
// text (-2.2250738585072014e-308).
const MAX_JSON_BYTES_PER_CHAR = 6;
const MAX_JSON_NUMBER_BYTES = 24;

/** Whether JSON.stringify(value) surely takes at most `maxBytes` as UTF-8, by an upper bound; false when unsure. */
function isJsonSurelyWithin(value: unknown, maxBytes: number): boolean {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') bytes += node.length * MAX_JSON_BYTES_PER_CHAR + 2;
    else if (typeof node === 'number') bytes += MAX_JSON_NUMBER_BYTES;
    else if (Array.isArray(node)) {
      bytes += 2 + node.length;
      for (let index = 0; index < node.length; index++) pending.push(node[index]);
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      bytes += 2;
      for (let index = 0; index < keys.length; index++) {
        bytes += keys[index].length * MAX_JSON_BYTES_PER_CHAR + 4;
        pending.push((node as Record<string, unknown>)[keys[index]]);
      }
    } else bytes += 5; // true, false, null
    if (bytes > maxBytes) return false;
  }
  return true;
}

/** Whether arrays and objects nest deeper than MAX_JSON_DEPTH in `value` (absent and scalars: no). */
function isTooDeep(value: unknown): boolean {
  return value !== null && typeof value === 'object' && jsonDepth(value) > MAX_JSON_DEPTH;
}

/** Depth of nested arrays and objects, counted until it passes MAX_JSON_DEPTH. */
function jsonDepth(value: object): number {
  let maxDepth = 0;
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) maxDepth = depth;
    if (maxDepth > MAX_JSON_DEPTH) return maxDepth;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        nodes.push(node[index]);
        depths.push(depth + 1);
      }
    } else {
      for (const key of Object.keys(node)) {
        nodes.push((node as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return maxDepth;
}

// Every event of a batch without its own occurredAt gets the batch's receipt time: its text is written once.
let lastInstantMs = Number.NaN;
let lastInstantText = '';
function isoTextOf(instant: Date): string {
  if (instant.getTime() !== lastInstantMs) {
    lastInstantMs = instant.getTime();
    lastInstantText = instant.toISOString();
  }
  return lastInstantText;
}
