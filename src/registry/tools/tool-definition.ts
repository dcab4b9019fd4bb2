import type { FieldError } from '../../infra/http/api-error';
import type { JsonObject, ToolDefinition } from '../registry.types';

// Reads a tool definition in any shape users already have: ours {name, description, parameters, metadata?},
// OpenAI {type:'function', function:{...}} (and the Responses API's flat {type:'function', name, ...}),
// Anthropic {name, description, input_schema}, MCP {name, description, inputSchema}. Pure.

/** Names that are safe in a URL path segment and accepted by every provider's tool-name rules we know of. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,200}$/;
export const MAX_DESCRIPTION_CHARS = 16_384;
export const MAX_METADATA_BYTES = 4096;

/** OpenAI accepts a function without parameters; the registry stores that as "takes no arguments". */
const NO_ARGUMENTS: JsonObject = { type: 'object', properties: {} };

// Fields of our own shape; `type` and `strict` are tolerated so OpenAI Responses-style tools read as ours.
const OWN_FIELDS = new Set(['name', 'description', 'parameters', 'metadata', 'type', 'strict']);

export type NormalizedDefinition = { ok: true; definition: ToolDefinition; parametersPath: string } | { ok: false; errors: FieldError[] };

export function normalizeToolDefinition(item: unknown, path: string): NormalizedDefinition {
  if (!isObject(item)) return { ok: false, errors: [{ path, message: 'must be a tool definition object' }] };

  if (item.type === 'function' && isObject(item.function)) {
    return readFields(item.function, `${path}/function`, 'parameters', false);
  }
  if ('input_schema' in item) return readFields(item, path, 'input_schema', false);
  if ('inputSchema' in item) return readFields(item, path, 'inputSchema', false);
  return readFields(item, path, 'parameters', true);
}

function readFields(source: JsonObject, path: string, schemaField: string, isOwnShape: boolean): NormalizedDefinition {
  const errors: FieldError[] = [];
  const { name, description, metadata } = source;
  const parameters = source[schemaField];

  if (typeof name !== 'string') errors.push({ path: `${path}/name`, message: 'is required and must be a string' });
  else if (!TOOL_NAME_PATTERN.test(name)) {
    errors.push({ path: `${path}/name`, message: 'must be 1 to 200 letters, digits, _ . or -' });
  }
  errors.push(...checkDescription(description, `${path}/description`, false));
  if (parameters !== undefined && !isObject(parameters)) {
    errors.push({ path: `${path}/${schemaField}`, message: 'must be a JSON Schema object' });
  }
  if (isOwnShape) {
    errors.push(...checkMetadata(metadata, `${path}/metadata`));
    for (const field of Object.keys(source)) {
      if (!OWN_FIELDS.has(field)) errors.push({ path: `${path}/${field}`, message: 'is not a known field' });
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const definition: ToolDefinition = {
    name: name as string,
    description: typeof description === 'string' ? description : '',
    parameters: isObject(parameters) ? parameters : NO_ARGUMENTS,
  };
  if (isOwnShape && metadata !== undefined) definition.metadata = metadata as JsonObject | null;
  return { ok: true, definition, parametersPath: `${path}/${schemaField}` };
}

export function checkDescription(description: unknown, path: string, isRequired: boolean): FieldError[] {
  if (description === undefined && !isRequired) return [];
  if (typeof description !== 'string') return [{ path, message: 'is required and must be a string' }];
  if (description.length > MAX_DESCRIPTION_CHARS) return [{ path, message: `must be at most ${MAX_DESCRIPTION_CHARS} characters` }];
  return [];
}

export function checkMetadata(metadata: unknown, path: string): FieldError[] {
  if (metadata === undefined || metadata === null) return [];
  if (!isObject(metadata)) return [{ path, message: 'must be an object' }];
  if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
    return [{ path, message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` }];
  }
  return [];
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
