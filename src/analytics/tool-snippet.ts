// A tool definition written out in the shape it is registered from, ready to paste into the tool's source: the JSON of
// an OpenAI function tool, an Anthropic tool or an MCP tool, or TypeScript with a zod schema. Every string from the
// definition is written as a JSON string literal, so no name or description can break out of it. Pure.

export const SNIPPET_FORMATS = ['openai', 'anthropic', 'mcp', 'zod'] as const;
export type SnippetFormat = (typeof SNIPPET_FORMATS)[number];

export interface Snippet {
  format: SnippetFormat;
  language: 'json' | 'typescript';
  text: string;
  /** Schema keywords the zod source does not express (written as z.unknown() or left out); [] for JSON. */
  notConverted: string[];
}

interface Definition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** zod has no counterpart for deeper nesting than this many levels here: deeper values are z.unknown(). */
const MAX_ZOD_DEPTH = 16;

export function toolSnippet(format: SnippetFormat, tool: Definition): Snippet {
  switch (format) {
    case 'openai':
      return json(format, { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } });
    case 'anthropic':
      return json(format, { name: tool.name, description: tool.description, input_schema: tool.parameters });
    case 'mcp':
      return json(format, { name: tool.name, description: tool.description, inputSchema: tool.parameters });
    case 'zod':
      return zodSnippet(tool);
  }
}

function json(format: SnippetFormat, value: unknown): Snippet {
  return { format, language: 'json', text: `${JSON.stringify(value, null, 2)}\n`, notConverted: [] };
}

function zodSnippet(tool: Definition): Snippet {
  const notConverted = new Set<string>();
  const schema = zodOf(tool.parameters, 1, notConverted, '');
  const text = [
    "import { z } from 'zod';",
    '',
    'export const tool = {',
    `  name: ${JSON.stringify(tool.name)},`,
    `  description: ${JSON.stringify(tool.description)},`,
    `  inputSchema: ${schema},`,
    '};',
    '',
  ].join('\n');
  return { format: 'zod', language: 'typescript', text, notConverted: [...notConverted].sort() };
}

const HANDLED = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  '$schema',
  'title',
]);

function zodOf(schema: unknown, depth: number, notConverted: Set<string>, path: string): string {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_ZOD_DEPTH) {
    if (depth > MAX_ZOD_DEPTH) notConverted.add(`${path || '/'} (nested too deep)`);
    return 'z.unknown()';
  }
  const node = schema as Record<string, unknown>;
  for (const keyword of Object.keys(node)) if (!HANDLED.has(keyword)) notConverted.add(`${path}/${keyword}`);
  const types = Array.isArray(node.type)
    ? node.type.filter((t) => typeof t === 'string')
    : typeof node.type === 'string'
      ? [node.type]
      : [];
  const isNullable = types.includes('null');
  const type = types.find((t) => t !== 'null');
  let base = baseOf(node, type, depth, notConverted, path);
  if (typeof node.description === 'string') base += `.describe(${JSON.stringify(node.description)})`;
  return isNullable ? `${base}.nullable()` : base;
}

function baseOf(node: Record<string, unknown>, type: string | undefined, depth: number, notConverted: Set<string>, path: string): string {
  if (Array.isArray(node.enum)) {
    const values = node.enum;
    if (values.length > 0 && values.every((v) => typeof v === 'string')) return `z.enum(${JSON.stringify(values)})`;
    return values.length === 1
      ? `z.literal(${JSON.stringify(values[0])})`
      : `z.union([${values.map((v) => `z.literal(${JSON.stringify(v)})`).join(', ')}])`;
  }
  if ('const' in node) return `z.literal(${JSON.stringify(node.const)})`;
  switch (type) {
    case 'string':
      return `z.string()${bounds(node, { minLength: 'min', maxLength: 'max' })}${typeof node.pattern === 'string' ? `.regex(new RegExp(${JSON.stringify(node.pattern)}))` : ''}`;
    case 'integer':
    case 'number':
      return `z.number()${type === 'integer' ? '.int()' : ''}${bounds(node, { minimum: 'min', maximum: 'max', exclusiveMinimum: 'gt', exclusiveMaximum: 'lt' })}`;
    case 'boolean':
      return 'z.boolean()';
    case 'array':
      return `z.array(${zodOf(node.items, depth + 1, notConverted, `${path}/items`)})${bounds(node, { minItems: 'min', maxItems: 'max' })}`;
    case 'object':
      return objectOf(node, depth, notConverted, path);
    default:
      if (type !== undefined) notConverted.add(`${path}/type`);
      return 'z.unknown()';
  }
}

function objectOf(node: Record<string, unknown>, depth: number, notConverted: Set<string>, path: string): string {
  const properties = typeof node.properties === 'object' && node.properties !== null ? (node.properties as Record<string, unknown>) : {};
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const indent = '  '.repeat(depth + 1);
  const fields = Object.entries(properties).map(([name, property]) => {
    const value = zodOf(property, depth + 1, notConverted, `${path}/properties/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    return `${indent}${JSON.stringify(name)}: ${value}${required.has(name) ? '' : '.optional()'},`;
  });
  const body = fields.length === 0 ? 'z.object({})' : `z.object({\n${fields.join('\n')}\n${'  '.repeat(depth)}})`;
  return node.additionalProperties === false ? `${body}.strict()` : body;
}

function bounds(node: Record<string, unknown>, methods: Record<string, string>): string {
  return Object.entries(methods)
    .filter(([keyword]) => typeof node[keyword] === 'number')
    .map(([keyword, method]) => `.${method}(${String(node[keyword])})`)
    .join('');
}
