import { escapePointerSegment } from '@toolcoach/core';
// Where each JSON Schema keyword's subschemas apply: at the same place of the arguments (allOf, anyOf, not, if,
// dependentSchemas, references), one level down (properties, items...), or nowhere until referenced (definitions).
// What schema-cost.ts walks; local JSON Pointers into a schema are resolved here too.

export type SchemaNode = Record<string, unknown> | boolean;

export const SINGLE_SAME_PLACE = ['not', 'if', 'then', 'else'];
export const LIST_SAME_PLACE = ['allOf', 'anyOf', 'oneOf'];
export const MAP_SAME_PLACE = ['dependentSchemas', 'dependencies'];
const DESCENDING = [
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'prefixItems',
  'items',
  'additionalItems',
  'contains',
  'unevaluatedItems',
];
const MAP_DEFINITIONS = ['$defs', 'definitions'];
export const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];

export function descends(node: Record<string, unknown>): boolean {
  return DESCENDING.some((keyword) => node[keyword] !== undefined);
}

/** What applies to a property of `name` (null: a name no schema here declares) besides `properties`. */
export function propertyWildcards(
  node: Record<string, unknown>,
  name: string | null,
  matchesName: (pattern: string, name: string) => boolean,
): unknown[] {
  const declared = name !== null && ownValue(node.properties, name) !== undefined;
  const patterns = isObject(node.patternProperties) ? Object.entries(node.patternProperties) : [];
  const patterned = patterns.filter(([pattern]) => name === null || matchesName(pattern, name)).map(([, schema]) => schema);
  return [...patterned, declared || patterned.length > 0 ? undefined : node.additionalProperties, node.unevaluatedProperties];
}

/** What applies to the item at `index` (null: an index past every tuple) besides the tuple's own schema. */
export function itemWildcards(node: Record<string, unknown>, index: number | null): unknown[] {
  const tupleLength = tupleOf(node).length;
  const isPastTuple = index === null || index >= tupleLength;
  // draft-07: items is the tuple and additionalItems the rest; 2020-12: prefixItems and items
  const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
  return [isPastTuple ? rest : undefined, node.contains, node.unevaluatedItems];
}

export function tupleOf(node: Record<string, unknown>): unknown[] {
  if (Array.isArray(node.prefixItems)) return node.prefixItems;
  return Array.isArray(node.items) ? node.items : [];
}

export function ownValue(map: unknown, key: string): unknown {
  return isObject(map) && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** Every direct subschema with its pointer: what Ajv compiles, not data keywords like enum or default. */
export function subschemas(node: Record<string, unknown>, pointer: string): Array<[SchemaNode, string]> {
  const found: Array<[SchemaNode, string]> = [];
  const single = (keyword: string) => {
    const value = node[keyword];
    if (isSchema(value)) found.push([value, `${pointer}/${keyword}`]);
  };
  const list = (keyword: string) => {
    const value = node[keyword];
    if (Array.isArray(value)) value.forEach((child, index) => isSchema(child) && found.push([child, `${pointer}/${keyword}/${index}`]));
  };
  const map = (keyword: string) => {
    const value = node[keyword];
    if (!isObject(value)) return;
    for (const [name, child] of Object.entries(value))
      if (isSchema(child)) found.push([child, `${pointer}/${keyword}/${escapePointerSegment(name)}`]);
  };
  [
    ...SINGLE_SAME_PLACE,
    'additionalProperties',
    'unevaluatedProperties',
    'propertyNames',
    'items',
    'additionalItems',
    'contains',
    'unevaluatedItems',
  ].forEach(single);
  [...LIST_SAME_PLACE, 'prefixItems', 'items'].forEach(list);
  [...MAP_SAME_PLACE, ...MAP_DEFINITIONS, 'properties', 'patternProperties'].forEach(map);
  return found;
}

export function decodeFragment(fragment: string): string | null {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return null;
  }
}

export function atPointer(document: unknown, pointer: string): unknown {
  let current = document;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function isSchema(value: unknown): value is SchemaNode {
  return typeof value === 'boolean' || isObject(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
