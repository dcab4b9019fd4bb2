import { type JudgedProperty, typeOf } from './judged-properties';
import type { JsonObject } from '../registry.types';
import type { QualityFinding } from './tool-quality.types';

// A description with no example call: the finding carries one built from the schema alone, when every value can be
// known (examples, defaults, enums, bounds), so it can be applied as a warning.

const EXAMPLE = /\b(e\.g\.|for example|for instance|example|such as|like)\b|\{\s*"/i;

export function judgeExample(properties: readonly JudgedProperty[], description: string): QualityFinding[] {
  if (properties.length === 0 || EXAMPLE.test(description)) return [];
  const call = exampleCall(properties);
  return [
    {
      kind: 'no_usage_example',
      path: '/description',
      severity: 'low',
      message: 'The description shows no example of a correct call.',
      fix: 'Add one example call with realistic values.',
      ...(call ? { addition: `Example call: ${call}` } : {}),
    },
  ];
}

const EVERYDAY_NUMBER = 12;

/** A call built from the schema alone (examples, defaults, enums, bounds), or null when a value cannot be known. */
function exampleCall(properties: readonly JudgedProperty[]): string | null {
  const call: Record<string, unknown> = {};
  for (const property of properties.slice(0, 6)) {
    const value = exampleValue(property.schema);
    if (value === undefined) return null;
    call[property.name] = value;
  }
  return JSON.stringify(call);
}

function exampleValue(schema: JsonObject): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'integer':
    case 'number': {
      // a small everyday value inside the bounds: the middle of a wide range (2^52 for a factorial) is no example
      const step = typeOf(schema) === 'integer' ? 1 : 0.5;
      const low =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + step
            : -Infinity;
      const high =
        typeof schema.maximum === 'number'
          ? schema.maximum
          : typeof schema.exclusiveMaximum === 'number'
            ? schema.exclusiveMaximum - step
            : Infinity;
      if (low > high) return undefined;
      const value = Math.min(Math.max(EVERYDAY_NUMBER, low), high);
      return typeOf(schema) === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}
