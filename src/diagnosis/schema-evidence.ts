import { MAX_MATCHED_UNKNOWN_NAMES } from './argument-name-matcher';
import { isPlainObject, valueAtPointer } from './argument-values';
import type { AjvLikeError, ArgumentSchema, Subtype } from './diagnosis.types';
import { type Finding, encodePointerSegment, selectPrimaryFinding } from './finding';
import { ownValue } from './own-value';

/** Ajv keyword -> subtype. Composite keywords (anyOf, oneOf, if, not) are absent: their leaf errors say more. */
export const SUBTYPE_BY_SCHEMA_KEYWORD: Readonly<Record<string, Subtype>> = {
  required: 'missing_argument',
  dependentRequired: 'missing_argument',
  dependencies: 'missing_argument',
  additionalProperties: 'unknown_argument',
  unevaluatedProperties: 'unknown_argument',
  type: 'type_mismatch',
  maximum: 'above_maximum',
  exclusiveMaximum: 'above_maximum',
  maxLength: 'above_maximum',
  maxItems: 'above_maximum',
  maxProperties: 'above_maximum',
  minimum: 'below_minimum',
  exclusiveMinimum: 'below_minimum',
  minLength: 'below_minimum',
  minItems: 'below_minimum',
  minProperties: 'below_minimum',
  enum: 'not_in_enum',
  const: 'not_in_enum',
  pattern: 'invalid_format',
  format: 'invalid_format',
};

const SCALAR_TYPES = new Set(['integer', 'number', 'string', 'boolean']);

/**
 * Validates the arguments against the registered schema. Returns null when they are valid or the schema cannot be
 * used (the message then decides), `too_expensive` when the schema could not check them within its budget, and a
 * malformed_arguments finding when they are not a JSON object at all.
 */
export function findSchemaEvidence(
  schema: ArgumentSchema,
  args: { kind: 'object'; value: Record<string, unknown> } | { kind: 'not-object' | 'unparseable' },
): Finding | null | 'too_expensive' {
  if (args.kind !== 'object') {
    return { category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null };
  }
  const check = schema.validate(args.value);
  if (check.status !== 'checked') return check.status === 'too_expensive' ? 'too_expensive' : null;
  const findings = check.errors.flatMap((error) => toFinding(error, args.value));
  findings.push(...undeclaredNamesBesideMissing(findings, args.value, schema.json));
  return selectPrimaryFinding(findings);
}

function toFinding(error: AjvLikeError, args: Record<string, unknown>): Finding[] {
  const subtype = ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword);
  if (!subtype) return [];
  const instancePath = typeof error.instancePath === 'string' ? error.instancePath : '';
  const category = categoryOfSubtype(subtype);

  if (subtype === 'missing_argument') {
    const name = stringParam(error.params, 'missingProperty') ?? stringParam(error.params, 'property');
    return [{ category, subtype, argumentPath: name === null ? instancePath || null : `${instancePath}/${encodePointerSegment(name)}` }];
  }
  if (subtype === 'unknown_argument') {
    const name = stringParam(error.params, 'additionalProperty') ?? stringParam(error.params, 'unevaluatedProperty');
    if (name === null) return [];
    return [{ category, subtype, argumentPath: `${instancePath}/${encodePointerSegment(name)}`, wrongArgument: name }];
  }

  const value = valueAtPointer(args, instancePath);
  if (subtype === 'type_mismatch') {
    if (instancePath === '') return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
    // The taxonomy counts null where a value is required as a missing argument, not a type problem.
    if (value === null) return [{ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: instancePath }];
    const expected = typesOf(error.params.type);
    const isArrayForScalar = Array.isArray(value) && expected.length > 0 && expected.every((type) => SCALAR_TYPES.has(type));
    return [{ category, subtype, argumentPath: instancePath, isArrayForScalar }];
  }
  return [{ category, subtype, argumentPath: instancePath || null }];
}

/**
 * Without additionalProperties:false Ajv reports only the missing name; an undeclared argument next to it is the
 * same mistake seen from the other side, so it is reported too and the pairing in selectPrimaryFinding joins them.
 */
function undeclaredNamesBesideMissing(
  findings: readonly Finding[],
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
): Finding[] {
  const reportsUnknown = findings.some((finding) => finding.subtype === 'unknown_argument');
  const missingParents = new Set(
    findings
      .filter((finding) => finding.subtype === 'missing_argument' && finding.argumentPath)
      .map((finding) => (finding.argumentPath ?? '').slice(0, (finding.argumentPath ?? '').lastIndexOf('/'))),
  );
  if (reportsUnknown || !missingParents.has('')) return [];
  const declared = new Set(declaredProperties(schemaJson));
  if (declared.size === 0) return [];
  // a primary finding needs only the first few: the rest would be compared with the missing names for nothing
  return undeclaredNames(args, declared, MAX_MATCHED_UNKNOWN_NAMES).map((name) => ({
    category: 'argument_mismatch' as const,
    subtype: 'unknown_argument' as const,
    argumentPath: `/${encodePointerSegment(name)}`,
    wrongArgument: name,
  }));
}

/** The first `max` argument names not in `declared`, in the arguments' order: one pass, whatever their number. */
export function undeclaredNames(args: Record<string, unknown>, declared: ReadonlySet<string>, max: number = Infinity): string[] {
  const names: string[] = [];
  for (const name of Object.keys(args)) {
    if (names.length >= max) break;
    if (!declared.has(name)) names.push(name);
  }
  return names;
}

/** Top-level property names the schema declares (the candidates for an intended argument). */
export function declaredProperties(schemaJson: Record<string, unknown> | undefined | null): string[] {
  const properties = schemaJson?.properties;
  return isPlainObject(properties) ? Object.keys(properties) : [];
}

export function requiredProperties(schemaJson: Record<string, unknown> | undefined | null): string[] {
  const required = schemaJson?.required;
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
}

/** The declared JSON types of a top-level property, e.g. ["integer"]; empty when unknown. */
export function declaredTypesOf(schemaJson: Record<string, unknown> | undefined | null, name: string): string[] {
  const properties = schemaJson?.properties;
  if (!isPlainObject(properties)) return [];
  const property = ownValue(properties, name);
  return isPlainObject(property) ? typesOf(property.type) : [];
}

function typesOf(type: unknown): string[] {
  if (typeof type === 'string') return type.split(',');
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

export function isScalarTypeList(types: readonly string[]): boolean {
  return types.length > 0 && types.every((type) => SCALAR_TYPES.has(type));
}

export function categoryOfSubtype(subtype: Subtype): 'argument_mismatch' | 'out_of_range' {
  return ['missing_argument', 'unknown_argument', 'type_mismatch', 'malformed_arguments'].includes(subtype)
    ? 'argument_mismatch'
    : 'out_of_range';
}

function stringParam(params: Record<string, unknown> | undefined, key: string): string | null {
  const value = params?.[key];
  return typeof value === 'string' ? value : null;
}
