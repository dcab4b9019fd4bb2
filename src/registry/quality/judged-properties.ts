import { escapePointerSegment } from '@toolcoach/core';
import type { JsonObject } from '../registry.types';
import { isObject } from '../tools/tool-definition';
import { nameTokens } from './word-forms';

// A tool's arguments as the quality rubric reads them: each declared property with its place in the definition, its
// type and its description, cut to bounded sizes so judging stays cheap on any schema.

/** Properties judged per tool, at most; a larger schema is judged on its first ones (the work stays bounded). */
export const MAX_JUDGED_PROPERTIES = 200;
/** Characters of a description read, at most. */
export const MAX_TEXT_CHARS = 4096;

export interface JudgedProperty {
  name: string;
  path: string;
  schema: JsonObject;
  type: string | null;
  description: string;
  /** The name cut into lower-case words: maxResults, max_results -> ['max', 'results']. */
  tokens: string[];
}

export function propertiesOf(parameters: JsonObject): JudgedProperty[] {
  const properties = isObject(parameters.properties) ? parameters.properties : {};
  return Object.entries(properties)
    .slice(0, MAX_JUDGED_PROPERTIES)
    .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
    .map(([name, schema]) => ({
      name,
      path: `/parameters/properties/${escapePointerSegment(name)}`,
      schema,
      type: typeOf(schema),
      description: typeof schema.description === 'string' ? schema.description.slice(0, MAX_TEXT_CHARS) : '',
      tokens: nameTokens(name),
    }));
}

export function typeOf(schema: JsonObject): string | null {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t): t is string => typeof t === 'string' && t !== 'null') ?? null;
  if (Array.isArray(schema.enum)) return 'enum';
  return null;
}
