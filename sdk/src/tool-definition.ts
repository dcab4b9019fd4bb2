import { ToolDefinition } from '@toolcoach/core';

/**
 * What `loadTools` needs of a tool: LangChain tools (zod or JSON Schema in `schema`), OpenAI-style function objects
 * (`parameters`) and plain objects all fit.
 */
export interface ToolLike {
  name: string;
  description: string;
  schema?: unknown;
  parameters?: unknown;
}

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} };

/** The registry's shape of a tool; the JSON Schema comes from zod's Standard JSON Schema interface or is used as is. */
export function toToolDefinition(tool: ToolLike, baseDescription = tool.description): ToolDefinition {
  return { name: tool.name, description: baseDescription, parameters: jsonSchemaOf(tool.schema ?? tool.parameters) };
}

function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  if (schema === null || typeof schema !== 'object') return EMPTY_OBJECT_SCHEMA;
  const standard = (schema as { '~standard'?: { jsonSchema?: { input?: (options: { target: string }) => unknown } } })['~standard'];
  if (standard?.jsonSchema?.input) return standard.jsonSchema.input({ target: 'draft-2020-12' }) as Record<string, unknown>;
  // zod 3 and other validators without a JSON Schema export: the registry still learns the name and description.
  if ('_def' in schema || '~standard' in schema) return EMPTY_OBJECT_SCHEMA;
  return schema as Record<string, unknown>;
}
