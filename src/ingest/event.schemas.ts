import Ajv, { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { FieldError } from '../infra/http/api-error';

export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_METADATA_BYTES = 4 * 1024;
export const MAX_ERRORS_PER_EVENT = 20;
/** 30 days: far above any tool call, and small enough that rollup sums stay far inside a double (1.7e308 twice overflowed). */
export const MAX_DURATION_MS = 30 * 86_400_000;

const shortString = (maxLength: number) => ({ type: 'string', maxLength });

/** One tool-call event as agents send it (camelCase). Unknown fields are refused so typos do not go unnoticed. */
export const eventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['tool', 'status'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 128 },
    tool: { type: 'string', minLength: 1, maxLength: 200 },
    status: { enum: ['success', 'error'] },
    arguments: {},
    result: {},
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['message'],
      properties: {
        type: shortString(200),
        message: { type: 'string' },
        stack: { type: 'string' },
      },
    },
    durationMs: { type: 'number', minimum: 0, maximum: MAX_DURATION_MS },
    occurredAt: { type: 'string', format: 'date-time' },
    agent: shortString(200),
    model: shortString(200),
    framework: shortString(100),
    sessionId: shortString(200),
    traceId: shortString(200),
    runId: shortString(200),
    toolCallId: shortString(200),
    descriptionVersion: { type: 'integer', minimum: 1, maximum: 2147483647 },
    prompt: { type: 'string' },
    metadata: { type: 'object' },
  },
  if: { properties: { status: { const: 'error' } }, required: ['status'] },
  then: { required: ['error'] },
} as const;

// strictRequired is off: the if/then below names a property declared at the top level, which strict mode cannot see.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
addFormats(ajv, ['date-time']);
const validateEvent = ajv.compile(eventSchema);

/** Returns the problems of one event, with paths rooted at `/events/<index>`. */
export function eventErrors(event: unknown, index: number): FieldError[] {
  if (validateEvent(event)) return [];
  const errors = (validateEvent.errors ?? []).filter((error) => error.keyword !== 'if');
  return errors.slice(0, MAX_ERRORS_PER_EVENT).map((error) => toFieldError(error, `/events/${index}`));
}

/** Maps one Ajv error to our `{path, message}`, with its path rooted at `prefix`. */
export function toFieldError(error: ErrorObject, prefix: string): FieldError {
  const path = prefix + error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: `${path}/${String(error.params.missingProperty)}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${path}/${String(error.params.additionalProperty)}`, message: 'is not a known field' };
    case 'enum':
      return { path, message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}
