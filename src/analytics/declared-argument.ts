// What a tool's registered JSON Schema declares about one argument (a top-level property, named by its JSON Pointer):
// its schema, type, closed set of values and limits, as the warnings quote them.

export function argumentName(path: string): string {
  const first = path.split('/')[1] ?? '';
  return first.replaceAll('~1', '/').replaceAll('~0', '~');
}

export function propertyOf(schema: Record<string, unknown> | null, path: string): Record<string, unknown> | null {
  const properties = schema?.properties;
  if (!properties || typeof properties !== 'object') return null;
  const name = argumentName(path);
  // own properties only: an argument named `constructor` or `__proto__` must not find Object.prototype's
  const property = Object.hasOwn(properties, name) ? (properties as Record<string, unknown>)[name] : undefined;
  return property && typeof property === 'object' ? (property as Record<string, unknown>) : null;
}

/** The declared bound of that side, with the unit a warning states after it ('' for a plain number). */
export function declaredLimit(
  schema: Record<string, unknown> | null,
  path: string,
  direction: 'max' | 'min',
): { value: number; unit: string } | null {
  const property = propertyOf(schema, path);
  if (!property) return null;
  const keywords =
    direction === 'max'
      ? [
          ['maximum', ''],
          ['exclusiveMaximum', ' (exclusive)'],
          ['maxLength', ' characters'],
          ['maxItems', ' items'],
        ]
      : [
          ['minimum', ''],
          ['exclusiveMinimum', ' (exclusive)'],
          ['minLength', ' characters'],
          ['minItems', ' items'],
        ];
  for (const [keyword, unit] of keywords) {
    const value = property[keyword];
    if (typeof value === 'number') return { value, unit };
  }
  return null;
}

export function enumOf(property: Record<string, unknown> | null): unknown[] | null {
  if (!property) return null;
  if (Array.isArray(property.enum)) return property.enum;
  if ('const' in property) return [property.const];
  return null;
}

export function typeLabel(property: Record<string, unknown> | null): string | null {
  const type = property?.type;
  if (typeof type === 'string') return type === 'object' ? 'object' : type;
  if (Array.isArray(type)) return type.filter((t) => t !== 'null').join(' or ') || null;
  return null;
}
