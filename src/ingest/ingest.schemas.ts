import { eventSchema, MAX_EVENTS_PER_BATCH } from './event.schemas';
import { PROVIDER_KEYS } from './provider-shapes';

// The HTTP contract of the ingest routes for the OpenAPI document, built from the event schema every event is
// validated with; test/e2e/openapi.e2e-spec.ts checks a real answer of each route against the response schemas.

// OpenAPI 3.0 has no if/then: the rule it carries (an error event needs `error`) is stated in the description instead.
const { if: _if, then: _then, ...eventFields } = eventSchema;
const EVENT = { ...eventFields, description: 'one tool call; `error` is required when status is "error"' };

const PROVIDER_EVENT = {
  type: 'object',
  minProperties: 1,
  description: `one tool call in its provider's shape under one key (${PROVIDER_KEYS.join(', ')}), with our optional fields beside it`,
  properties: Object.fromEntries(PROVIDER_KEYS.map((key) => [key, { type: 'object' }])),
};

const EVENT_ITEM = { anyOf: [EVENT, PROVIDER_EVENT] };

export const EVENTS_BODY_SCHEMA = {
  description: 'one event, or a batch {events, client?}; each event is judged on its own',
  oneOf: [
    EVENT_ITEM,
    {
      type: 'object',
      required: ['events'],
      properties: {
        events: { type: 'array', minItems: 1, maxItems: MAX_EVENTS_PER_BATCH, items: EVENT_ITEM },
        client: {
          type: 'object',
          description: 'what the SDK says about itself; `dropped` counts events it lost since its last delivered batch',
          properties: { sdk: { type: 'string' }, version: { type: 'string' }, dropped: { type: 'integer', minimum: 0 } },
        },
      },
    },
  ],
};

const FIELD_ERROR = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'message'],
  properties: { path: { type: 'string' }, message: { type: 'string' } },
} as const;

export const ACCEPTED_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['accepted', 'ids', 'rejected'],
  properties: {
    accepted: { type: 'integer', minimum: 1, description: 'events durably queued' },
    ids: { type: 'array', items: { type: 'string' }, description: 'the id of each accepted event (generated when not sent)' },
    rejected: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'errors'],
        properties: { index: { type: 'integer', minimum: 0 }, errors: { type: 'array', items: FIELD_ERROR } },
      },
    },
    client: {
      type: 'object',
      additionalProperties: false,
      required: ['sdk', 'version', 'dropped'],
      description: "the batch's `client`, echoed when it carried a well-formed one",
      properties: { sdk: { type: 'string' }, version: { type: 'string' }, dropped: { type: 'integer', minimum: 0 } },
    },
  },
} as const;

export const TRACES_BODY_SCHEMA = {
  type: 'object',
  description:
    'an OTLP/HTTP ExportTraceServiceRequest: this JSON mapping as application/json, or the binary protobuf message as ' +
    'application/x-protobuf; either may be sent with Content-Encoding: gzip (1 MB limit after decompression). Tool spans ' +
    '(gen_ai.operation.name = execute_tool, or OpenInference TOOL) become events',
  properties: { resourceSpans: { type: 'array', items: { type: 'object' } } },
} as const;

/** OTLP's ExportTraceServiceResponse: empty when every span was taken. */
export const TRACES_RESPONSE = {
  type: 'object',
  description: 'an ExportTraceServiceResponse, as JSON or as binary protobuf (with partial_success) in the encoding of the request',
  additionalProperties: false,
  properties: {
    partialSuccess: {
      type: 'object',
      additionalProperties: false,
      required: ['rejectedSpans', 'errorMessage'],
      properties: { rejectedSpans: { type: 'integer', minimum: 1 }, errorMessage: { type: 'string' } },
    },
  },
} as const;
