import { MAX_MATCHED_UNKNOWN_NAMES, matchArgumentName } from '@toolcoach/core';
import { type ParsedArguments, asNumber, isPlainObject, parseArguments, singleNumericArgument, valueAtPointer } from './argument-values';
import type { ArgumentSchema, Diagnosis, DiagnosisInput, EvidenceSource } from './diagnosis.types';
import { type Finding, lastSegment } from './finding';
import { escapePointerSegment } from '@toolcoach/core';
import { rangeDirection } from './clause-classifier';
import { findMessageEvidence } from './message-evidence';
import {
  declaredProperties,
  declaredTypesOf,
  findSchemaEvidence,
  isScalarTypeList,
  requiredProperties,
  undeclaredNames,
} from './schema-evidence';
import { ownValue } from './own-value';
import { SHIPPED_FALLBACK_MODEL, decideByModel } from './fallback/fallback';
import type { FallbackModel } from './fallback/linear-model';

// Evidence precedence (shared/taxonomy.md): the arguments checked against the registered schema decide first;
// when they pass, the error message decides; with neither, the learned fallback model may decide when it is confident
// enough (fallback/fallback.ts), and otherwise the call is `unknown`.

const UNKNOWN: Diagnosis = Object.freeze({
  category: 'unknown',
  subtype: null,
  argumentPath: null,
  evidence: 'none',
  wrongArgument: null,
  intendedArgument: null,
  offendingValue: null,
  arrayForScalar: false,
});

/** `fallback`: the model consulted for what the rules leave unknown (the shipped one; null: rules only). */
export function diagnose(input: DiagnosisInput, fallback: FallbackModel | null = SHIPPED_FALLBACK_MODEL): Diagnosis {
  try {
    return diagnoseOrThrow(input, fallback);
  } catch {
    // Input is arbitrary user telemetry; a diagnosis we cannot make must never fail the batch it belongs to.
    return { ...UNKNOWN };
  }
}

function diagnoseOrThrow(input: DiagnosisInput, fallback: FallbackModel | null): Diagnosis {
  const args = parseArguments(input?.arguments);
  const schema = isUsableSchema(input?.schema) ? input.schema : null;
  // A schema too expensive to check leaves the decision to the message, and the stored evidence says why.
  let messageEvidence: EvidenceSource = 'message';

  if (schema && args.kind !== 'absent') {
    const finding = findSchemaEvidence(schema, args);
    if (finding === 'too_expensive') messageEvidence = 'schema_too_expensive';
    else if (finding) return complete(finding, 'schema', args, schema);
  }

  const evidence = findMessageEvidence(input?.error);
  if (!evidence) return decideUnexplained(input, fallback, args, schema, messageEvidence === 'message' ? 'none' : messageEvidence);
  const effectiveArgs =
    args.kind === 'absent' && evidence.printedArguments !== undefined ? parseArguments(evidence.printedArguments) : args;
  const messageText = toMessageText(input?.error?.message);
  const placed = placeUnlocatedFinding(resolveKeyLookup(evidence.finding, effectiveArgs, schema), effectiveArgs, schema, messageText);
  const finding = resolveValueShape(
    resolveComputedValue(resolveNumericOverflow(resolveRename(placed, effectiveArgs, schema, messageText), effectiveArgs), effectiveArgs),
    effectiveArgs,
    messageText,
  );
  return complete(finding, messageEvidence, effectiveArgs, schema);
}

/** What neither the schema nor a rule explains: the fallback model's reading when it is confident enough, else unknown. */
function decideUnexplained(
  input: DiagnosisInput,
  fallback: FallbackModel | null,
  args: ParsedArguments,
  schema: ArgumentSchema | null,
  evidence: EvidenceSource,
): Diagnosis {
  const decision = fallback ? decideByModel(input, fallback) : null;
  if (!decision) return { ...UNKNOWN, evidence };
  const finding: Finding = { category: decision.category, subtype: decision.subtype, argumentPath: null };
  return { ...complete(finding, 'model', args, schema), modelConfidence: Math.round(decision.confidence * 1000) / 1000 };
}

function isUsableSchema(schema: ArgumentSchema | null | undefined): schema is ArgumentSchema {
  return typeof schema?.validate === 'function' && isPlainObject(schema.json);
}

/**
 * KeyError('n') is the tool's own lookup failing: a missing argument when the tool expected `n` from the call
 * (declared by the schema, or simply absent from the arguments), an internal bug otherwise.
 */
function resolveKeyLookup(finding: Finding, args: ParsedArguments, schema: ArgumentSchema | null): Finding {
  if (finding.keyName === undefined) return finding;
  const key = finding.keyName;
  if (!key || args.kind !== 'object' || Object.prototype.hasOwnProperty.call(args.value, key)) return finding;
  // The tool looked up the model's value in its own table (KeyError: 'Atlantis'): a value it does not support.
  const holder = Object.entries(args.value).find(([, value]) => value === key);
  if (holder) {
    return { category: 'out_of_range', subtype: 'not_in_enum', argumentPath: `/${escapePointerSegment(holder[0])}` };
  }
  const declared = schema ? declaredProperties(schema.json) : [];
  if (schema && declared.length > 0 && !declared.includes(key)) return finding;
  return { category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: `/${escapePointerSegment(key)}` };
}

/**
 * A message that reports `number` missing while the call carried `numbers` describes one mistake, a rename: the
 * same reading the schema path gives (see selectPrimaryFinding).
 */
function resolveRename(finding: Finding, args: ParsedArguments, schema: ArgumentSchema | null, message: string): Finding {
  if (finding.subtype !== 'missing_argument' || args.kind !== 'object') return finding;
  if (finding.argumentPath?.lastIndexOf('/') !== 0 && finding.argumentPath !== null) return finding;
  const missingName = lastSegment(finding.argumentPath);
  const declared = new Set(schema ? declaredProperties(schema.json) : []);
  declared.add(missingName);
  const strangers = undeclaredNames(args.value, declared);
  const renamed =
    strangers.slice(0, MAX_MATCHED_UNKNOWN_NAMES).find((key) => matchArgumentName(key, [missingName]) === missingName) ??
    unrelatedRename(missingName, strangers, args.value, schema, message);
  if (!renamed) return finding;
  return {
    category: 'argument_mismatch',
    subtype: 'unknown_argument',
    argumentPath: `/${escapePointerSegment(renamed)}`,
    wrongArgument: renamed,
    intendedArgument: missingName || null,
  };
}

// Names a model puts where the declared one belongs when it ignores the tool's names ({"value": 4} for {"x": 4}).
const PLACEHOLDER_NAMES = new Set(['value', 'values', 'val', 'input', 'inputs', 'arg', 'args', 'argument', 'param', 'params', 'payload']);

/**
 * A rename whose names share nothing, read with less evidence than a near-miss name: with a schema, the only
 * undeclared argument when the missing one is required and its value fits the missing one's declared type; without
 * one, the only argument with a placeholder name, when its value fits the type the message expected.
 */
function unrelatedRename(
  missingName: string,
  strangers: readonly string[],
  args: Record<string, unknown>,
  schema: ArgumentSchema | null,
  message: string,
): string | undefined {
  if (!schema || declaredProperties(schema.json).length === 0) {
    const placeholders = strangers.filter((name) => PLACEHOLDER_NAMES.has(name.toLowerCase()));
    const expected = /\bexpected (\w{1,20}), received (?:undefined|none|nothing)\b/i.exec(message)?.[1]?.toLowerCase();
    const fits = placeholders.length === 1 && (!expected || fitsJsonType(ownValue(args, placeholders[0]), expected));
    return fits ? placeholders[0] : undefined;
  }
  if (strangers.length !== 1) return undefined;
  const [stranger] = strangers;
  if (!requiredProperties(schema.json).includes(missingName)) return undefined;
  const declaredTypes = declaredTypesOf(schema.json, missingName);
  return declaredTypes.length === 0 || declaredTypes.some((type) => fitsJsonType(ownValue(args, stranger), type)) ? stranger : undefined;
}

function fitsJsonType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isPlainObject(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A report that names no argument (zod 4's first issue alone: "Invalid input: expected number, received string") is
 * placed by the call: the one argument of the type it says arrived, or with a schema, the one declared property the
 * problem can be about (the one required property absent, the one enum or format the value breaks).
 */
function placeUnlocatedFinding(finding: Finding, args: ParsedArguments, schema: ArgumentSchema | null, message: string): Finding {
  if (finding.argumentPath || args.kind !== 'object' || (finding.category !== 'argument_mismatch' && finding.category !== 'out_of_range')) {
    return finding;
  }
  const values = args.value;
  const present = (name: string): boolean => Object.prototype.hasOwnProperty.call(values, name);
  const declared = schema ? declaredProperties(schema.json) : [];
  const required = new Set(schema ? requiredProperties(schema.json) : []);
  const only = (names: readonly string[]): string | null => (names.length === 1 ? names[0] : null);
  let name: string | null = null;
  if (finding.subtype === 'missing_argument') {
    name = only([...required].filter((property) => !present(property)));
  } else if (finding.subtype === 'type_mismatch') {
    const received = /\breceived (\w{1,20})/i.exec(message)?.[1]?.toLowerCase();
    if (received) name = only(Object.keys(values).filter((key) => jsonTypeOf(values[key]) === received));
  } else if (finding.subtype === 'not_in_enum' || finding.subtype === 'invalid_format') {
    const keyword = finding.subtype === 'not_in_enum' ? /"enum"|"const"/ : /"format"|"pattern"/;
    const constrained = declared.filter((property) =>
      keyword.test(JSON.stringify(ownValue(schema?.json.properties as Record<string, unknown>, property)) ?? ''),
    );
    name = schema ? only(constrained.filter((property) => present(property) || required.has(property))) : null;
    if (!schema) name = only(Object.keys(values).filter((key) => Array.isArray(values[key]) || isPlainObject(values[key])));
    const hasCandidate = Object.values(values).some((value) => typeof value === 'string' || Array.isArray(value) || isPlainObject(value));
    if (!schema && name === null && !hasCandidate && enumOptionKind(message) === 'string') {
      return { category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: null };
    }
  }
  return name === null ? finding : { ...finding, argumentPath: `/${escapePointerSegment(name)}` };
}

/** "Invalid time value" for a call that sent only numbers: a timestamp past the runtime's range, not a bad string. */
function resolveNumericOverflow(finding: Finding, args: ParsedArguments): Finding {
  if (!finding.isOverflowForNumbers || args.kind !== 'object') return finding;
  const values = Object.values(args.value);
  const hasNumber = values.some((value) => typeof value === 'number');
  const hasText = values.some((value) => typeof value === 'string');
  return hasNumber && !hasText ? { category: 'overflow', subtype: null, argumentPath: finding.argumentPath } : finding;
}

/**
 * A range message about a value the call never sent ("Invalid value for Year (valid values ...): 2000002024" for
 * plusYears(2000000000)) is about a value the tool computed from the call: the computation left the representable
 * range, an overflow, not an argument outside its declared domain.
 */
function resolveComputedValue(finding: Finding, args: ParsedArguments): Finding {
  const isRange = finding.subtype === 'above_maximum' || finding.subtype === 'below_minimum';
  if (finding.category !== 'out_of_range' || !isRange || !finding.isValueCaptured || args.kind !== 'object') return finding;
  const stated = finding.statedValue;
  if (stated === null || stated === undefined) return finding;
  const values = Object.values(args.value);
  if (!values.some((value) => typeof value === 'number')) return finding;
  const statedText = String(stated);
  const isSent = values.some((value) => asNumber(value) === stated || (typeof value === 'string' && value.includes(statedText)));
  return isSent ? finding : { category: 'overflow', subtype: null, argumentPath: finding.argumentPath };
}

/**
 * A closed set or a format checked before the type (pydantic's Literal and IPv4Address, zod's enum) reports every wrong
 * value as "not one of the options" or "not a valid address". The value the call sent tells what kind of mistake it
 * was: nothing or null is a missing argument, an array or object (or, for a closed set, a number where the options are
 * quoted strings, and the reverse) is the wrong type.
 */
function resolveValueShape(finding: Finding, args: ParsedArguments, message: string): Finding {
  const isClosedSetOrFormat = finding.subtype === 'not_in_enum' || finding.subtype === 'invalid_format';
  if (!isClosedSetOrFormat || !finding.argumentPath || args.kind !== 'object') return finding;
  const isTopLevel = finding.argumentPath.lastIndexOf('/') === 0;
  const value = valueAtPointer(args.value, finding.argumentPath);
  const optionKind = enumOptionKind(message);
  // Only a validator's report (one that lists the options) names the argument itself; a runtime's "(Parameter 'name')"
  // names its own parameter. An empty object is often arguments nobody recorded, not a call that sent nothing.
  const isAbsent = value === undefined && isTopLevel && optionKind !== null && Object.keys(args.value).length > 0;
  if (isAbsent || value === null) {
    return { category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: finding.argumentPath };
  }
  if (finding.subtype === 'invalid_format' && !Array.isArray(value) && !isPlainObject(value)) return finding;
  const isWrongShape =
    Array.isArray(value) ||
    isPlainObject(value) ||
    (optionKind === 'string' && (typeof value === 'number' || typeof value === 'boolean')) ||
    (optionKind === 'number' && typeof value === 'string' && asNumber(value) === null);
  return isWrongShape ? { category: 'argument_mismatch', subtype: 'type_mismatch', argumentPath: finding.argumentPath } : finding;
}

/** What the listed options are: quoted strings ("should be 'celsius' or ...", 'expected one of "a"|"b"') or numbers. */
function enumOptionKind(message: string): 'string' | 'number' | null {
  const options =
    /\b(?:should be|expected one of|must be one of|one of the following|allowed values(?: are)?)[:\s]{1,3}(?:\[\s?)?\\?(['"`-]|\d)/i.exec(
      message.slice(0, 2000),
    );
  if (!options) return null;
  return /['"`]/.test(options[1]) ? 'string' : 'number';
}

function toMessageText(message: unknown): string {
  return typeof message === 'string' ? message : '';
}

function complete(finding: Finding, evidence: EvidenceSource, args: ParsedArguments, schema: ArgumentSchema | null): Diagnosis {
  const argsObject = args.kind === 'object' ? args.value : null;
  let argumentPath = finding.argumentPath;
  let wrongArgument: string | null = null;
  let intendedArgument: string | null = null;
  let offendingValue: number | null = null;
  let arrayForScalar = false;
  let subtype = finding.subtype;

  if (finding.subtype === 'unknown_argument') {
    wrongArgument = finding.wrongArgument ?? (argumentPath ? lastSegment(argumentPath) : null);
    if (!wrongArgument && argsObject && schema) {
      wrongArgument = firstUndeclaredArgument(argsObject, schema) ?? null;
      if (wrongArgument) argumentPath = `/${escapePointerSegment(wrongArgument)}`;
    }
    intendedArgument = finding.intendedArgument ?? (wrongArgument ? intendedFromSchema(wrongArgument, argsObject, schema) : null);
    const wrongValue = argsObject && wrongArgument ? ownValue(argsObject, wrongArgument) : undefined;
    if (Array.isArray(wrongValue) && intendedArgument) {
      const intendedTypes = schema ? declaredTypesOf(schema.json, intendedArgument) : [];
      arrayForScalar =
        intendedTypes.length > 0
          ? isScalarTypeList(intendedTypes)
          : matchArgumentName(wrongArgument ?? '', [intendedArgument]) === intendedArgument && wrongArgument !== intendedArgument;
    }
  }

  if (finding.subtype === 'type_mismatch') {
    const value = argumentPath ? valueAtPointer(argsObject, argumentPath) : undefined;
    // The taxonomy counts null where a value is required as missing, whichever library reported it as a type.
    if (value === null) subtype = 'missing_argument';
    const declaredTypes = schema && argumentPath ? declaredTypesOf(schema.json, lastSegment(argumentPath)) : [];
    arrayForScalar =
      finding.isArrayForScalar === true || (Array.isArray(value) && (declaredTypes.length === 0 || isScalarTypeList(declaredTypes)));
  }

  if (finding.category === 'out_of_range' || finding.category === 'overflow') {
    const located = locateOffendingValue(finding, argumentPath, argsObject);
    offendingValue = located.value;
    argumentPath = located.path;
    if (finding.rangeText !== undefined) subtype = rangeDirection(finding.rangeText, offendingValue);
  }

  return {
    category: finding.category,
    subtype,
    argumentPath,
    evidence,
    wrongArgument,
    intendedArgument,
    offendingValue,
    arrayForScalar,
  };
}

/** The value at the reported path; else the only numeric argument (and its path); else a value the message states. */
function locateOffendingValue(
  finding: Finding,
  path: string | null,
  args: Record<string, unknown> | null,
): { value: number | null; path: string | null } {
  if (path && args) {
    const atPath = valueAtPointer(args, path);
    if (atPath !== undefined) return { value: asNumber(atPath), path };
  }
  if (args && finding.impliedValue !== undefined) {
    const holders = Object.entries(args).filter(([, value]) => asNumber(value) === finding.impliedValue);
    if (holders.length === 1) return { value: finding.impliedValue, path: path ?? `/${escapePointerSegment(holders[0][0])}` };
  }
  // Only numeric limits read the lone number in the call; an enum or format problem is about some other value.
  const isNumericLimit = finding.category === 'overflow' || finding.subtype === 'above_maximum' || finding.subtype === 'below_minimum';
  if (args && !path && isNumericLimit) {
    const single = singleNumericArgument(args);
    if (single) return { value: single[1], path: `/${escapePointerSegment(single[0])}` };
  }
  return { value: finding.statedValue ?? null, path };
}

function firstUndeclaredArgument(args: Record<string, unknown>, schema: ArgumentSchema): string | undefined {
  const declared = new Set(declaredProperties(schema.json));
  return declared.size === 0 ? undefined : undeclaredNames(args, declared, 1)[0];
}

/** Prefers declared names the call left out (a rename leaves its target missing), then any declared name. */
function intendedFromSchema(wrong: string, args: Record<string, unknown> | null, schema: ArgumentSchema | null): string | null {
  if (!schema) return null;
  const declared = declaredProperties(schema.json);
  const absent = declared.filter((name) => !args || !Object.prototype.hasOwnProperty.call(args, name));
  const absentNames = new Set(absent);
  const missingRequired = requiredProperties(schema.json).filter((name) => absentNames.has(name));
  return matchArgumentName(wrong, missingRequired) ?? matchArgumentName(wrong, absent) ?? matchArgumentName(wrong, declared);
}
