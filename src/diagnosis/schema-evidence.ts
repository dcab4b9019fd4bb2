import {
  MAX_MATCHED_UNKNOWN_NAMES,
  SUBTYPE_BY_SCHEMA_KEYWORD,
  categoryOfSubtype,
  declaredProperties,
  isScalarTypeList,
  ownValue,
  typeListOf,
} from '@toolcoach/core';
import { valueAtPointer } from './argument-values';
import type { AjvLikeError, ArgumentSchema } from './diagnosis.types';
import { type Finding, selectPrimaryFinding } from './finding';
import { escapePointerSegment } from '@toolcoach/core';

// The schema's keywords and declared names are read by the guard core, which validate and the SDKs share.
export { SUBTYPE_BY_SCHEMA_KEYWORD, categoryOfSubtype, declaredProperties, declaredTypesOf, isScalarTypeList } from '@toolcoach/core';

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
    return [{ category, subtype, argumentPath: name === null ? instancePath || null : `${instancePath}/${escapePointerSegment(name)}` }];
  }
  if (subtype === 'unknown_argument') {
    const name = stringParam(error.params, 'additionalProperty') ?? stringParam(error.params, 'unevaluatedProperty');
    if (name === null) return [];
    return [{ category, subtype, argumentPath: `${instancePath}/${escapePointerSegment(name)}`, wrongArgument: name }];
  }

  const value = valueAtPointer(args, instancePath);
  if (subtype === 'type_mismatch') {
    if (instancePath === '') return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
    // The taxonomy counts null where a value is required as a missing argument, not a type problem.
    if (value === null) return [{ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: instancePath }];
    const isArrayForScalar = Array.isArray(value) && isScalarTypeList(typeListOf(error.params.type));
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
    argumentPath: `/${escapePointerSegment(name)}`,
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

export function requiredProperties(schemaJson: Record<string, unknown> | undefined | null): string[] {
  const required = schemaJson?.required;
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
}

function stringParam(params: Record<string, unknown> | undefined, key: string): string | null {
  const value = params?.[key];
  return typeof value === 'string' ? value : null;
}
