// What the guard reads of a tool's JSON Schema and of the arguments: declared names and their types, values at a JSON
// Pointer. Names come from models and schemas from users, so nothing here reads what objects inherit. Pure.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `record[key]` when `key` is the record's own property, else undefined. Names that come from events or user schemas
 * ("constructor", "toString", "__proto__") must never read what every object inherits from Object.prototype.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Assignment would call the `__proto__` setter for a parameter of that name; a defined property is plain data. */
export function setOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

const SCALAR_TYPES = new Set(['integer', 'number', 'string', 'boolean']);

/** Top-level property names the schema declares (the candidates for an intended argument). */
export function declaredProperties(schemaJson: Record<string, unknown> | undefined | null): string[] {
  const properties = schemaJson?.properties;
  return isObject(properties) ? Object.keys(properties) : [];
}

/** The declared JSON types of a top-level property, e.g. ["integer"]; empty when unknown. */
export function declaredTypesOf(schemaJson: Record<string, unknown> | undefined | null, name: string): string[] {
  const properties = schemaJson?.properties;
  if (!isObject(properties)) return [];
  const property = ownValue(properties, name);
  return isObject(property) ? typeListOf(property.type) : [];
}

/** A `type` keyword or an Ajv `type` param ("integer,null") as a list of type names. */
export function typeListOf(type: unknown): string[] {
  if (typeof type === 'string') return type.split(',');
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

export function isScalarTypeList(types: readonly string[]): boolean {
  return types.length > 0 && types.every((type) => SCALAR_TYPES.has(type));
}

/** The value a JSON Pointer names in `args`, own properties only; undefined when there is none. */
export function valueAtPointer(args: unknown, pointer: string): unknown {
  let current: unknown = args;
  for (const segment of pointer.split('/').slice(1)) {
    if (!isObject(current)) return undefined;
    current = ownValue(current, unescapePointerSegment(segment));
  }
  return current;
}

export function escapePointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The last name of a JSON Pointer: "/items/0/unit" -> "unit". */
export function nameAtPointer(pointer: string): string {
  return unescapePointerSegment(pointer.slice(pointer.lastIndexOf('/') + 1));
}
