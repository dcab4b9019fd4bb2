import type { ErrorObject } from 'ajv';
import { FieldError } from '../infra/http/api-error';
import { ajvFor, toFieldError } from '../infra/validation/ajv-factory';
import { MAX_ERRORS_PER_EVENT } from './event.schemas';

// Hooks often hold a tool call in its provider's own shape. One of these keys per event carries it; the mapper turns
// it into our fields (tool, status, arguments, result, error, toolCallId) before the event is validated as usual.
//   {"openai":    {"toolCall": {"id", "type": "function", "function": {"name", "arguments": "<json>"}}, "result"?, "error"?}}
//   {"anthropic": {"toolUse": {"type": "tool_use", "id", "name", "input"}, "toolResult"?: {"tool_use_id", "content"?, "is_error"?}}}
//   {"mcp":       {"request": {"method": "tools/call", "params": {"name", "arguments"?}}, "response"?: {"result"} | {"error"}}}
// Our other optional fields (agent, model, durationMs, ...) may sit beside the provider key.

export const PROVIDER_KEYS = ['openai', 'anthropic', 'mcp'] as const;
type ProviderKey = (typeof PROVIDER_KEYS)[number];

/** Fields a provider shape determines; sending them beside it would be ambiguous. */
const DERIVED_FIELDS = ['tool', 'status', 'arguments', 'result', 'error', 'toolCallId'] as const;

const toolName = { type: 'string', minLength: 1, maxLength: 200 };
const callId = { type: ['string', 'integer'] };
const errorValue = {
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      required: ['message'],
      additionalProperties: false,
      properties: { type: { type: 'string', maxLength: 200 }, message: { type: 'string' }, stack: { type: 'string' } },
    },
  ],
};

const shapeSchemas = {
  openai: {
    type: 'object',
    additionalProperties: false,
    required: ['toolCall'],
    properties: {
      toolCall: {
        type: 'object',
        required: ['function'],
        properties: {
          id: { type: 'string', maxLength: 200 },
          type: { const: 'function' },
          function: {
            type: 'object',
            required: ['name', 'arguments'],
            properties: { name: toolName, arguments: { type: ['string', 'object'] } },
          },
        },
      },
      result: {},
      error: errorValue,
    },
  },
  anthropic: {
    type: 'object',
    additionalProperties: false,
    required: ['toolUse'],
    properties: {
      toolUse: {
        type: 'object',
        required: ['name'],
        properties: {
          type: { const: 'tool_use' },
          id: { type: 'string', maxLength: 200 },
          name: toolName,
          input: {},
        },
      },
      toolResult: {
        type: 'object',
        properties: {
          type: { const: 'tool_result' },
          tool_use_id: { type: 'string' },
          content: { type: ['string', 'array'] },
          is_error: { type: 'boolean' },
        },
      },
    },
  },
  mcp: {
    type: 'object',
    additionalProperties: false,
    required: ['request'],
    properties: {
      request: {
        type: 'object',
        required: ['method', 'params'],
        properties: {
          id: callId,
          method: { const: 'tools/call' },
          params: { type: 'object', required: ['name'], properties: { name: toolName, arguments: { type: 'object' } } },
        },
      },
      response: {
        type: 'object',
        properties: {
          id: callId,
          result: {
            type: 'object',
            properties: { content: { type: 'array' }, structuredContent: { type: 'object' }, isError: { type: 'boolean' } },
          },
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'integer' }, message: { type: 'string' } },
          },
        },
        oneOf: [{ required: ['result'] }, { required: ['error'] }],
      },
    },
  },
} as const;

const ajv = ajvFor('body');
const validators = {
  openai: ajv.compile(shapeSchemas.openai),
  anthropic: ajv.compile(shapeSchemas.anthropic),
  mcp: ajv.compile(shapeSchemas.mcp),
};

interface DerivedFields {
  tool: string;
  status: 'success' | 'error';
  arguments?: unknown;
  result?: unknown;
  error?: { type?: string; message: string; stack?: string };
  toolCallId?: string;
}

export type ProviderMapping = { event: unknown } | { errors: FieldError[] };

/**
 * Maps an event given in a provider's shape to our event fields; any other value is returned as it is, for the event
 * schema to judge. Paths of problems are rooted at `/events/<index>`.
 */
export function mapProviderShape(raw: unknown, index: number): ProviderMapping {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { event: raw };
  const record = raw as Record<string, unknown>;
  const present = PROVIDER_KEYS.filter((key) => key in record);
  if (present.length === 0) return { event: raw };
  const path = `/events/${index}`;
  if (present.length > 1) {
    return { errors: present.slice(1).map((key) => ({ path: `${path}/${key}`, message: `cannot be combined with ${present[0]}` })) };
  }
  const key = present[0];
  const conflicts = DERIVED_FIELDS.filter((field) => field in record).map((field) => ({
    path: `${path}/${field}`,
    message: `is taken from ${key}; leave it out`,
  }));
  const validate = validators[key];
  if (!validate(record[key])) {
    const errors = shapeErrors(validate.errors ?? [], `${path}/${key}`);
    return { errors: [...errors, ...conflicts].slice(0, MAX_ERRORS_PER_EVENT) };
  }
  if (conflicts.length > 0) return { errors: conflicts };
  const { [key]: shape, ...ours } = record;
  // `ours` is a fresh object: fields are added to it, not spread into a third (docs/perf.md)
  return { event: Object.assign(ours, deriveFields(key, shape)) };
}

/** The branches of MCP's result-or-error choice would each report a missing field; say it once instead. */
function shapeErrors(errors: ErrorObject[], prefix: string): FieldError[] {
  return errors
    .filter((error) => !error.schemaPath.includes('/oneOf/'))
    .map((error) =>
      error.keyword === 'oneOf'
        ? {
            path: prefix + error.instancePath,
            message: error.params.passingSchemas ? 'must hold result or error, not both' : 'must hold result or error',
          }
        : toFieldError(error, prefix),
    );
}

function deriveFields(key: ProviderKey, shape: unknown): DerivedFields {
  switch (key) {
    case 'openai':
      return fromOpenAi(shape as OpenAiShape);
    case 'anthropic':
      return fromAnthropic(shape as AnthropicShape);
    case 'mcp':
      return fromMcp(shape as McpShape);
  }
}

type ErrorValue = string | { type?: string; message: string; stack?: string };

interface OpenAiShape {
  toolCall: { id?: string; function: { name: string; arguments: string | Record<string, unknown> } };
  result?: unknown;
  error?: ErrorValue;
}

function fromOpenAi({ toolCall, result, error }: OpenAiShape): DerivedFields {
  const fields: DerivedFields = { tool: toolCall.function.name, status: error === undefined ? 'success' : 'error' };
  if (toolCall.id !== undefined) fields.toolCallId = toolCall.id;
  const parsed = parseJsonArguments(toolCall.function.arguments);
  fields.arguments = parsed.value;
  if (error !== undefined) fields.error = typeof error === 'string' ? { message: error } : error;
  // Arguments that are not JSON are the model's mistake whatever the hook did next: the call could not have run.
  if (parsed.parseError !== undefined) {
    fields.status = 'error';
    fields.error ??= { type: 'SyntaxError', message: parsed.parseError };
  } else if (result !== undefined && error === undefined) {
    fields.result = result;
  }
  return fields;
}

function parseJsonArguments(text: string | Record<string, unknown>): { value: unknown; parseError?: string } {
  if (typeof text !== 'string') return { value: text };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    // The text stays as the model wrote it; the JSON.parse message is what the categorizer reads. V8 quotes the
    // unexpected UTF-16 unit, which can be half of a surrogate pair: such a message could not be stored as it is.
    return { value: text, parseError: (error as Error).message.toWellFormed() };
  }
}

interface AnthropicShape {
  toolUse: { id?: string; name: string; input?: unknown };
  toolResult?: { content?: string | unknown[]; is_error?: boolean };
}

function fromAnthropic({ toolUse, toolResult }: AnthropicShape): DerivedFields {
  const fields: DerivedFields = { tool: toolUse.name, status: toolResult?.is_error ? 'error' : 'success' };
  if (toolUse.id !== undefined) fields.toolCallId = toolUse.id;
  if (toolUse.input !== undefined) fields.arguments = toolUse.input;
  if (toolResult?.is_error) fields.error = { message: contentText(toolResult.content) || 'Tool returned is_error without content' };
  else if (toolResult?.content !== undefined) fields.result = toolResult.content;
  return fields;
}

interface McpShape {
  request: { id?: string | number; params: { name: string; arguments?: Record<string, unknown> } };
  response?: {
    result?: { content?: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };
    error?: { code: number; message: string };
  };
}

function fromMcp({ request, response }: McpShape): DerivedFields {
  const fields: DerivedFields = { tool: request.params.name, status: 'success' };
  if (request.id !== undefined) fields.toolCallId = String(request.id);
  if (request.params.arguments !== undefined) fields.arguments = request.params.arguments;
  const rpcError = response?.error;
  const result = response?.result;
  if (rpcError) {
    fields.status = 'error';
    // The wording of the MCP SDKs' McpError, which the categorizer reads as a JSON-RPC error.
    fields.error = { type: 'McpError', message: `MCP error ${rpcError.code}: ${rpcError.message}` };
  } else if (result?.isError) {
    fields.status = 'error';
    fields.error = { message: contentText(result.content) || 'Tool returned isError without content' };
  } else if (result) {
    fields.result = result.structuredContent ?? result.content;
  }
  return fields;
}

/** The text blocks of an Anthropic or MCP content list, one per line; a plain string as it is. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is { type: 'text'; text: string } => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
}
