import { asNumber, isPlainObject } from './argument-values';
import { classifyClause } from './clause-classifier';
import type { Subtype } from './diagnosis.types';
import { type Finding, toPointer } from './finding';
import { ownValue } from './own-value';
import { SUBTYPE_BY_SCHEMA_KEYWORD, categoryOfSubtype } from './schema-evidence';

// One issue of a validator's report (zod, Ajv or another JSON Schema validator, pydantic, FastAPI) read as findings:
// each validator's codes map onto the taxonomy's subtypes; a code without a mapping is read by its message.

/** An issue object of a JSON report: Ajv-like (keyword), pydantic/FastAPI (loc and type) or zod (code and path). */
export function issueToFindings(issue: Record<string, unknown>, types: readonly string[]): Finding[] {
  const message = typeof issue.message === 'string' ? issue.message : typeof issue.msg === 'string' ? issue.msg : '';
  if (typeof issue.keyword === 'string') {
    const instancePath =
      typeof issue.instancePath === 'string' ? issue.instancePath : typeof issue.dataPath === 'string' ? issue.dataPath : '';
    return ajvLikeToFindings(issue.keyword, instancePath, isPlainObject(issue.params) ? issue.params : {}, message, types);
  }
  if (Array.isArray(issue.loc) && typeof issue.type === 'string') {
    // FastAPI prefixes the request part; a tool's arguments are the body.
    const loc = issue.loc.filter((segment, index) => !(index === 0 && ['body', 'query', 'path'].includes(String(segment))));
    const path = toPointer(loc.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
    return compact([pydanticToFinding(issue.type, message, path, issue.input, undefined, types)]);
  }
  if (typeof issue.code === 'string' && Array.isArray(issue.path)) {
    const path = toPointer(issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
    return zodToFindings(issue, issue.code, message, path, types);
  }
  return message ? compact([classifyClause({ text: message, path: null }, types)]) : [];
}

function zodToFindings(
  issue: Record<string, unknown>,
  code: string,
  message: string,
  path: string | null,
  types: readonly string[],
): Finding[] {
  const subtype = ownValue(ZOD_SUBTYPE_BY_CODE, code);
  if (code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
    return issue.keys
      .filter((key): key is string => typeof key === 'string')
      .map((key) => ({
        category: 'argument_mismatch' as const,
        subtype: 'unknown_argument' as const,
        argumentPath: `${path ?? ''}/${key}`,
        wrongArgument: key,
      }));
  }
  if (code === 'invalid_type') {
    const received = typeof issue.received === 'string' ? issue.received : (/received (\w+)/i.exec(message)?.[1] ?? '');
    if (/^(?:undefined|null)$/i.test(received) || /^Required$/.test(message)) {
      return [{ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: path }];
    }
    if (path === null && /^object$/i.test(String(issue.expected))) {
      return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
    }
    const isArrayForScalar = /^array$/i.test(received) && SCALAR_WORDS.test(String(issue.expected ?? ''));
    return [{ category: 'argument_mismatch', subtype: 'type_mismatch', argumentPath: path, isArrayForScalar }];
  }
  if (subtype) {
    return [{ category: categoryOfSubtype(subtype), subtype, argumentPath: path, statedValue: asNumber(issue.input) }];
  }
  return compact([classifyClause({ text: message, path }, types)]);
}

const ZOD_SUBTYPE_BY_CODE: Readonly<Record<string, Subtype>> = {
  too_big: 'above_maximum',
  too_small: 'below_minimum',
  invalid_enum_value: 'not_in_enum',
  invalid_literal: 'not_in_enum',
  invalid_value: 'not_in_enum',
  invalid_string: 'invalid_format',
  invalid_format: 'invalid_format',
  invalid_date: 'invalid_format',
  unrecognized_keys: 'unknown_argument',
  invalid_union: 'type_mismatch',
};

const SCALAR_WORDS = /^(?:number|integer|int|float|string|str|boolean|bool|bigint|nan|date)$/i;

function ajvLikeToFindings(
  keyword: string,
  instancePath: string,
  params: Record<string, unknown>,
  message: string,
  types: readonly string[],
): Finding[] {
  const subtype = ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, keyword);
  if (!subtype) return message ? compact([classifyClause({ text: message, path: instancePath || null }, types)]) : [];
  if (subtype === 'missing_argument' && typeof params.missingProperty === 'string') {
    return [{ category: 'argument_mismatch', subtype, argumentPath: `${instancePath}/${params.missingProperty}` }];
  }
  if (subtype === 'unknown_argument' && typeof params.additionalProperty === 'string') {
    const name = params.additionalProperty;
    return [{ category: 'argument_mismatch', subtype, argumentPath: `${instancePath}/${name}`, wrongArgument: name }];
  }
  if (subtype === 'type_mismatch' && instancePath === '') {
    return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
  }
  return [{ category: categoryOfSubtype(subtype), subtype, argumentPath: instancePath || null }];
}

// pydantic-core error types (https://docs.pydantic.dev/latest/errors/validation_errors/).
const PYDANTIC_SUBTYPE_BY_TYPE: Readonly<Record<string, Subtype>> = {
  missing: 'missing_argument',
  missing_argument: 'missing_argument',
  missing_keyword_only_argument: 'missing_argument',
  missing_positional_only_argument: 'missing_argument',
  union_tag_not_found: 'missing_argument',
  extra_forbidden: 'unknown_argument',
  unexpected_keyword_argument: 'unknown_argument',
  unexpected_positional_argument: 'unknown_argument',
  no_such_attribute: 'unknown_argument',
  json_invalid: 'malformed_arguments',
  json_type: 'malformed_arguments',
  greater_than: 'below_minimum',
  greater_than_equal: 'below_minimum',
  string_too_short: 'below_minimum',
  too_short: 'below_minimum',
  bytes_too_short: 'below_minimum',
  date_future: 'below_minimum',
  datetime_future: 'below_minimum',
  less_than: 'above_maximum',
  less_than_equal: 'above_maximum',
  string_too_long: 'above_maximum',
  too_long: 'above_maximum',
  bytes_too_long: 'above_maximum',
  date_past: 'above_maximum',
  datetime_past: 'above_maximum',
  decimal_max_digits: 'above_maximum',
  decimal_max_places: 'above_maximum',
  enum: 'not_in_enum',
  literal_error: 'not_in_enum',
  union_tag_invalid: 'not_in_enum',
  string_pattern_mismatch: 'invalid_format',
  date_parsing: 'invalid_format',
  date_from_datetime_parsing: 'invalid_format',
  date_from_datetime_inexact: 'invalid_format',
  datetime_parsing: 'invalid_format',
  datetime_from_date_parsing: 'invalid_format',
  datetime_object_invalid: 'invalid_format',
  time_parsing: 'invalid_format',
  time_delta_parsing: 'invalid_format',
  uuid_parsing: 'invalid_format',
  uuid_version: 'invalid_format',
  url_parsing: 'invalid_format',
  url_syntax_violation: 'invalid_format',
  url_scheme: 'invalid_format',
  url_too_long: 'above_maximum',
  ip_v4_address: 'invalid_format',
  ip_v6_address: 'invalid_format',
  ip_any_address: 'invalid_format',
  ip_v4_network: 'invalid_format',
  ip_v6_network: 'invalid_format',
  ip_any_network: 'invalid_format',
  ip_v4_interface: 'invalid_format',
  ip_v6_interface: 'invalid_format',
  ip_any_interface: 'invalid_format',
  timezone_naive: 'invalid_format',
  timezone_aware: 'invalid_format',
};

/** Container types that make a scalar-typed error an array-for-scalar one. */
const ARRAY_INPUT_TYPES = /^(?:list|tuple|set|frozenset|array)$/i;

/** A pydantic-core error type with its message, location and input, as a finding. */
export function pydanticToFinding(
  type: string,
  message: string,
  path: string | null,
  input: unknown,
  inputType: string | undefined,
  types: readonly string[],
): Finding | null {
  if (type === 'value_error' || type === 'assertion_error') {
    const inner = message.replace(/^(?:Value error|Assertion failed), ?/, '');
    return classifyClause({ text: inner, path }, types);
  }
  if (type === 'recursion_loop' || type === 'int_parsing_size') return { category: 'overflow', subtype: null, argumentPath: path };
  if (/^(?:model_type|dict_type|model_attributes_type|dataclass_type|arguments_type)$/.test(type) && path === null) {
    return { category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null };
  }
  const subtype: Subtype | undefined =
    ownValue(PYDANTIC_SUBTYPE_BY_TYPE, type) ??
    (/_(?:type|parsing)$|^int_from_float$|^is_instance_of$|^is_subclass_of$|^finite_number$|^none_required$/.test(type)
      ? 'type_mismatch'
      : undefined);
  if (!subtype) return classifyClause({ text: message, path }, types);
  const isArray = Array.isArray(input) || (inputType !== undefined && ARRAY_INPUT_TYPES.test(inputType));
  const finding: Finding = {
    category: categoryOfSubtype(subtype),
    subtype,
    argumentPath: path,
    statedValue: asNumber(input),
    isArrayForScalar: subtype === 'type_mismatch' && isArray && !/^(?:list|tuple|set|frozenset|dict)_type$/.test(type),
  };
  if (subtype === 'unknown_argument' && path) finding.wrongArgument = path.slice(path.lastIndexOf('/') + 1);
  if (subtype === 'type_mismatch' && input === null) return { ...finding, subtype: 'missing_argument' };
  return finding;
}

function compact<T>(items: readonly (T | null | undefined)[]): T[] {
  return items.filter((item): item is T => item !== null && item !== undefined);
}
