// What is wrong with a tool call's arguments, in the words a model reads (the server's validate, both SDKs' guard and
// the gateway say the same; test/fixtures/guard-conformance.json pins it), and the safe correction when there is one.
// The schema check itself is the caller's (Ajv, within the caller's budget): this reads its errors. Pure.
import {
  declaredProperties,
  declaredTypesOf,
  escapePointerSegment,
  isScalarTypeList,
  nameAtPointer,
  ownValue,
  setOwn,
  typeListOf,
  valueAtPointer,
} from './schema-properties';
import { quoteName } from './untrusted-text';

/** The subtypes a schema check finds (a subset of the server's taxonomy). */
export type SchemaSubtype =
  | 'missing_argument'
  | 'unknown_argument'
  | 'type_mismatch'
  | 'malformed_arguments'
  | 'above_maximum'
  | 'below_minimum'
  | 'not_in_enum'
  | 'invalid_format';

/** Ajv keyword -> subtype. Composite keywords (anyOf, oneOf, if, not) are absent: their leaf errors say more. */
export const SUBTYPE_BY_SCHEMA_KEYWORD: Readonly<Record<string, SchemaSubtype>> = {
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

export function categoryOfSubtype(subtype: string): 'argument_mismatch' | 'out_of_range' {
  return ['missing_argument', 'unknown_argument', 'type_mismatch', 'malformed_arguments'].includes(subtype)
    ? 'argument_mismatch'
    : 'out_of_range';
}

/** An error of a schema check, as Ajv reports one. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface ArgumentError {
  category: 'argument_mismatch' | 'out_of_range';
  subtype: SchemaSubtype | null;
  /** JSON Pointer into the arguments; "" for the arguments as a whole. */
  path: string;
  message: string;
}

export const NOT_AN_OBJECT: ArgumentError = {
  category: 'argument_mismatch',
  subtype: 'malformed_arguments',
  path: '',
  message: 'arguments must be a JSON object of argument names to values',
};

/** The top-level names the schema does not declare: the first `max`, and how many in all (one pass over the names). */
export interface UndeclaredArguments {
  declared: readonly string[];
  first: readonly string[];
  count: number;
}

export function undeclaredArguments(args: Record<string, unknown>, schemaJson: Record<string, unknown>, max: number): UndeclaredArguments {
  const declared = declaredProperties(schemaJson);
  if (declared.length === 0) return { declared, first: [], count: 0 };
  const declaredNames = new Set(declared);
  const first: string[] = [];
  let count = 0;
  for (const name of Object.keys(args)) {
    if (declaredNames.has(name)) continue;
    if (count++ < max) first.push(name);
  }
  return { declared, first, count };
}

/**
 * The errors in a model's words, at most `maxErrors` (an undeclared name beside a missing one adds one each), and how
 * many more there were. `renames`: undeclared name -> the declared one it stands for.
 */
export function describeSchemaErrors(
  schemaErrors: readonly SchemaError[],
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  strays: UndeclaredArguments,
  renames: ReadonlyMap<string, string>,
  maxErrors: number,
): { errors: ArgumentError[]; unlisted: number } {
  const errors: ArgumentError[] = [];
  const seen = new Set<string>();
  let unlisted = 0;
  const add = (error: ArgumentError) => {
    const key = `${error.subtype}\u0000${error.path}`;
    if (seen.has(key)) return;
    if (errors.length >= maxErrors) {
      unlisted++;
      return;
    }
    errors.push(error);
    seen.add(key);
  };
  for (const error of schemaErrors) {
    if (ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword) !== undefined) add(describeError(error, args, schemaJson, renames));
  }
  // Without additionalProperties:false a renamed argument shows only as a missing one; name the stray too, as the
  // worker's categorizer does.
  const reportsUnknown = errors.some((error) => error.subtype === 'unknown_argument');
  const reportsMissingAtTop = errors.some((error) => error.subtype === 'missing_argument' && error.path.lastIndexOf('/') === 0);
  if (!reportsUnknown && reportsMissingAtTop) {
    for (const name of strays.first) add(unknownArgumentError('', name, args, schemaJson, renames));
    unlisted += strays.count - strays.first.length;
  }
  // Composite keywords (anyOf, not, ...) explain nothing their leaves do not; alone, they are all there is.
  if (errors.length === 0) {
    for (const error of schemaErrors) {
      add({ category: 'argument_mismatch', subtype: null, path: error.instancePath, message: withName(error.instancePath, error.message) });
    }
  }
  return { errors, unlisted };
}

function describeError(
  error: SchemaError,
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  renames: ReadonlyMap<string, string>,
): ArgumentError {
  const subtype = ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword)!;
  const category = categoryOfSubtype(subtype);
  const at = error.instancePath;

  if (subtype === 'missing_argument') {
    const name = stringParam(error, 'missingProperty') ?? stringParam(error, 'property') ?? '';
    const sentAs = at === '' ? [...renames].find(([, intended]) => intended === name)?.[0] : undefined;
    const message = `${quoteName(name)} is required${sentAs === undefined ? '' : `; it was sent as ${quoteName(sentAs)}`}`;
    return { category, subtype, path: `${at}/${escapePointerSegment(name)}`, message };
  }
  if (subtype === 'unknown_argument') {
    const name = stringParam(error, 'additionalProperty') ?? stringParam(error, 'unevaluatedProperty') ?? '';
    return unknownArgumentError(at, name, args, schemaJson, renames);
  }
  if (subtype === 'type_mismatch') {
    if (at === '')
      return { category: 'argument_mismatch', subtype: 'malformed_arguments', path: '', message: 'arguments must be a JSON object' };
    const value = valueAtPointer(args, at);
    if (value === null) {
      return {
        category: 'argument_mismatch',
        subtype: 'missing_argument',
        path: at,
        message: withName(at, 'is required (null was given)'),
      };
    }
    const expected = typeListOf(error.params.type);
    if (Array.isArray(value) && isScalarTypeList(expected)) {
      const noun = expected.join(' or ');
      return { category, subtype, path: at, message: withName(at, `must be ${noun}, not an array${arrayAdvice(value, noun)}`) };
    }
  }
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
    return { category, subtype, path: at, message: withName(at, `must be one of ${listed(error.params.allowedValues)}`) };
  }
  return { category, subtype, path: at, message: withName(at, error.message) };
}

function unknownArgumentError(
  parent: string,
  name: string,
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  renames: ReadonlyMap<string, string>,
): ArgumentError {
  const intended = parent === '' ? renames.get(name) : undefined;
  let message = `${quoteName(name)} is not a parameter of this tool`;
  if (intended !== undefined) {
    message += `; the parameter is ${quoteName(intended)}`;
    const value = ownValue(args, name);
    const types = declaredTypesOf(schemaJson, intended);
    if (Array.isArray(value) && isScalarTypeList(types)) message += ` (one ${types.join(' or ')})${arrayAdvice(value, types.join(' or '))}`;
  }
  return { category: 'argument_mismatch', subtype: 'unknown_argument', path: `${parent}/${escapePointerSegment(name)}`, message };
}

// The values a model should call the tool with (one call each), or may choose from, as JSON; a long list is cut.
const MAX_LISTED_ITEMS = 10;
const MAX_ITEM_CHARS = 40;

function arrayAdvice(value: readonly unknown[], noun: string): string {
  if (value.length === 1) return '; pass the single item itself';
  return `: pass one ${noun} per call: call this tool once per item, for each of ${listed(value)}`;
}

function listed(values: readonly unknown[]): string {
  const items = values.slice(0, MAX_LISTED_ITEMS).map((item) => {
    const text = JSON.stringify(item) ?? String(item);
    return text.length <= MAX_ITEM_CHARS ? text : `${text.slice(0, MAX_ITEM_CHARS - 1)}…`;
  });
  const more = values.length > MAX_LISTED_ITEMS ? `, and ${values.length - MAX_LISTED_ITEMS} more` : '';
  return `${items.join(', ')}${more}`;
}

function withName(pointer: string, message = 'is invalid'): string {
  return pointer === '' ? `arguments ${message}` : `${quoteName(nameAtPointer(pointer))} ${message}`;
}

function stringParam(error: SchemaError, key: string): string | null {
  const value = error.params?.[key];
  return typeof value === 'string' ? value : null;
}

/** The required names a call lacks at its top level, as the schema check found them. */
export function missingTopLevelNames(schemaErrors: readonly SchemaError[]): string[] {
  const names: string[] = [];
  for (const error of schemaErrors) {
    if (error.instancePath !== '' || ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword) !== 'missing_argument') continue;
    const name = stringParam(error, 'missingProperty') ?? stringParam(error, 'property');
    if (name !== null && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * A correction renames only the names looked up and unwraps arrays: arguments that still hold an undeclared name the
 * schema refuses (one not renamed, or one below the top level) cannot become valid, and are not copied to find out.
 */
export function isCorrectable(schemaErrors: readonly SchemaError[], renames: ReadonlyMap<string, string>): boolean {
  return !schemaErrors.some((error) => {
    if (ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword) !== 'unknown_argument') return false;
    const name = stringParam(error, 'additionalProperty') ?? stringParam(error, 'unevaluatedProperty');
    return error.instancePath !== '' || name === null || !renames.has(name);
  });
}

export type CorrectionKind = 'rename' | 'unwrap_array' | 'numeric_string';

// An exact decimal: what the model meant as a number and wrote in quotes, with nothing a conversion would lose.
const EXACT_NUMBER = /^-?(?:0|[1-9]\d{0,14})(?:\.\d{1,15})?$/;

/**
 * Corrected arguments, only when every correction is safe: renamed arguments, one-element arrays unwrapped and exact
 * numeric strings read as numbers for scalar parameters. Several items for a scalar have no safe correction. Null when
 * nothing applies; whether the result is valid is the caller's to check.
 */
export function correctArguments(
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  renames: ReadonlyMap<string, string>,
): { corrected: Record<string, unknown>; kinds: CorrectionKind[] } | null {
  // built key by key, not cloned then deleted from: a clone that then changes shape costs V8 an old-space allocation
  // (docs/perf.md), and a deleted key turns the object into a dictionary
  const corrected: Record<string, unknown> = {};
  for (const name of Object.keys(args)) if (!renames.has(name)) setOwn(corrected, name, args[name]);
  const kinds = new Set<CorrectionKind>();
  for (const [wrong, intended] of renames) {
    setOwn(corrected, intended, args[wrong]);
    kinds.add('rename');
  }
  for (const name of declaredProperties(schemaJson)) {
    const types = declaredTypesOf(schemaJson, name);
    if (!Object.hasOwn(corrected, name) || !isScalarTypeList(types)) continue;
    const value = corrected[name];
    if (Array.isArray(value)) {
      if (value.length !== 1) return null;
      setOwn(corrected, name, value[0]);
      kinds.add('unwrap_array');
    }
    const scalar = corrected[name];
    if (typeof scalar === 'string' && !types.includes('string') && isExactNumber(scalar, types)) {
      setOwn(corrected, name, Number(scalar));
      kinds.add('numeric_string');
    }
  }
  return kinds.size === 0 ? null : { corrected, kinds: [...kinds] };
}

function isExactNumber(text: string, types: readonly string[]): boolean {
  if (!EXACT_NUMBER.test(text)) return false;
  const value = Number(text);
  if (String(value) !== text) return false;
  return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
}
