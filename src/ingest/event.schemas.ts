import { FieldError } from '../infra/http/api-error';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';

export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_METADATA_BYTES = 4 * 1024;
export const MAX_ERRORS_PER_EVENT = 20;
/** 30 days: far above any tool call, and small enough that rollup sums stay far inside a double (1.7e308 twice overflowed). */
export const MAX_DURATION_MS = 30 * 86_400_000;

/** What a guard may correct on its own (docs/guard.md); stored as given, counted per kind. */
export const CORRECTION_KINDS = ['rename', 'unwrap_array', 'numeric_string'] as const;

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
    correction: {
      type: 'object',
      additionalProperties: false,
      required: ['original', 'corrected', 'kinds'],
      description: "what an SDK's guard changed before the tool ran: the arguments as the model sent them, as the tool got them",
      properties: {
        original: {},
        corrected: {},
        kinds: { type: 'array', minItems: 1, maxItems: 20, items: { enum: [...CORRECTION_KINDS] } },
      },
    },
    prevented: { type: 'boolean', description: "true when an SDK's guard refused the call: the tool never ran" },
  },
  if: { properties: { status: { const: 'error' } }, required: ['status'] },
  then: { required: ['error'] },
} as const;

const validateEvent = ajvFor('body').compile(eventSchema);

/** Returns the problems of one event, with paths rooted at `/events/<index>`. */
export function eventErrors(event: unknown, index: number): FieldError[] {
  if (validateEvent(event)) return [];
  return toFieldErrors(validateEvent.errors, `/events/${index}`).slice(0, MAX_ERRORS_PER_EVENT);
}
