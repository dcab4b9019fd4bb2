import {
  type AjvLikeError,
  type ArgumentSchema,
  type Category,
  type SchemaCheck,
  type Subtype,
  ARGUMENT_VALIDATION_BUDGET_MS,
  MAX_MATCHED_UNKNOWN_NAMES,
  MAX_REPORTED_SCHEMA_ERRORS,
  SUBTYPE_BY_SCHEMA_KEYWORD,
  categoryOfSubtype,
  declaredProperties,
  declaredTypesOf,
  diagnose,
  isScalarTypeList,
  matchArgumentName,
  ownValue,
  undeclaredNames,
} from '../diagnosis';
import { checkLearnedLimits, LearnedLimit, LearnedLimitFinding } from './learned-limits';

// Pre-execution validation: checks arguments against a tool's registered schema with the worker's categories, and
// proposes a corrected argument object when a correction is safe. Pure.

export interface ArgumentError {
  category: Category;
  subtype: Subtype | null;
  /** JSON Pointer into the arguments; "" for the arguments as a whole. */
  path: string;
  message: string;
}

/** A finding as validate answers it: a schema violation, or a value beyond a limit learned from this tool's calls. */
export type ArgumentFinding = (ArgumentError & { kind: 'schema' }) | LearnedLimitFinding;

/** `schema`: only the registered schema; `all` (the default) also the limits learned from data. */
export type ValidationChecks = 'all' | 'schema';

export interface ArgumentCheck {
  valid: boolean;
  errors: ArgumentFinding[];
  suggestion: Record<string, unknown> | null;
  /** False when the schema could not check the arguments (then `valid` is true: the call is let through). */
  checked: boolean;
  /** Why the arguments were not checked; null when they were. */
  reason: string | null;
  /**
   * Only when the answer leaves something out to keep the call's work bounded (unknown names past the limit get no
   * intended name, errors past the limit are not listed, no suggestion once the budget is spent): what, and why.
   */
  incomplete?: string;
}

export interface ArgumentCheckInput {
  tool: string;
  arguments: unknown;
  schema: ArgumentSchema;
  /** wrong name -> intended name, as learned from this project's stored events for the tool. */
  learnedRenames: ReadonlyMap<string, string>;
  /** Limits of the tool's active learned_limit warnings. */
  learnedLimits?: readonly LearnedLimit[];
  checks?: ValidationChecks;
}

/** Arguments sent as a JSON string (as models produce them) are read as JSON; undefined when they cannot be. */
export function readArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** True when the arguments carry a name the schema does not declare: only then are learned renames worth fetching. */
export function hasUndeclaredArguments(args: unknown, schema: ArgumentSchema): boolean {
  const declared = new Set(declaredProperties(schema.json));
  return isObject(args) && declared.size > 0 && undeclaredNames(args, declared, 1).length > 0;
}

/**
 * The schema's findings, then (unless `checks` is `schema`) a finding per value beyond a learned limit: such a value
 * passes the schema yet failed every time it was tried, so the arguments are not valid. All of it shares one budget,
 * ARGUMENT_VALIDATION_BUDGET_MS: the schema check first, then the intended names, the wording and the suggestion with
 * what is left; what is cut short is said in `incomplete`.
 */
export function checkArguments(input: ArgumentCheckInput): ArgumentCheck {
  const steps = checkArgumentsInSteps(input);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * checkArguments, pausing where the caller may let other work run (between the schema check and each intended name
 * looked up): a whole budget at once would hold the event loop for 25 ms. The budget counts the call's own work only:
 * time spent paused moves its deadline.
 */
export function* checkArgumentsInSteps(input: ArgumentCheckInput): Generator<void, ArgumentCheck, void> {
  const omissions: string[] = [];
  // read once: arguments sent as a JSON string cost a parse of their whole text each time
  const args = readArguments(input.arguments);
  const result = yield* checkSchema(input, args, new CallBudget(), omissions);
  const schemaErrors: ArgumentFinding[] = result.errors.map((error) => ({ kind: 'schema', ...error }));
  const learned = input.checks !== 'schema' && isObject(args) ? checkLearnedLimits(args, input.learnedLimits ?? []) : [];
  const { valid, suggestion, checked, reason } = result;
  const incomplete = omissions.length > 0 ? { incomplete: omissions.join('; ') } : {};
  if (learned.length === 0) return { valid, errors: schemaErrors, suggestion, checked, reason, ...incomplete };
  // a correction of the names that keeps a value known to fail is no correction
  const kept = suggestion && checkLearnedLimits(suggestion, input.learnedLimits ?? []).length === 0 ? suggestion : null;
  return { valid: false, errors: [...schemaErrors, ...learned], suggestion: kept, checked, reason, ...incomplete };
}

/** The call's budget, ARGUMENT_VALIDATION_BUDGET_MS of its own work: a pause (other work running) moves the deadline. */
class CallBudget {
  private deadlineMs = performance.now() + ARGUMENT_VALIDATION_BUDGET_MS;

  remainingMs(): number {
    return this.deadlineMs - performance.now();
  }

  *pause(): Generator<void, void, void> {
    const pausedAt = performance.now();
    yield;
    this.deadlineMs += performance.now() - pausedAt;
  }
}

function* checkSchema(
  input: ArgumentCheckInput,
  args: unknown,
  budget: CallBudget,
  omissions: string[],
): Generator<void, Omit<ArgumentCheck, 'errors'> & { errors: ArgumentError[] }, void> {
  if (!isObject(args)) {
    const message = 'arguments must be a JSON object of argument names to values';
    return {
      valid: false,
      errors: [{ category: 'argument_mismatch', subtype: 'malformed_arguments', path: '', message }],
      suggestion: null,
      checked: true,
      reason: null,
    };
  }
  const check = input.schema.validate(args);
  if (check.status !== 'checked') return unchecked(check.status);
  if (check.errors.length === 0) return { valid: true, errors: [], suggestion: null, checked: true, reason: null };

  // Everything below shares the one validation budget: the diagnosis reuses this check, the suggestion gets the rest.
  // Nothing below walks every name of the call more than once (a 1 MB call holds 13,500 of them): the undeclared ones
  // are listed up to what is used and counted once.
  yield* budget.pause();
  const checkedOnce = reusingCheck(input.schema, args, check);
  const strays = undeclaredArguments(args, input.schema.json);
  const renames = yield* resolveRenames(input, args, strays, checkedOnce, budget, omissions);
  const errors = describeErrors(check, args, input.schema.json, strays, renames, omissions);
  if (!isCorrectable(check, renames)) return { valid: false, errors, suggestion: null, checked: true, reason: null };
  yield* budget.pause();
  const remainingMs = budget.remainingMs();
  if (remainingMs < 1) omissions.push(`no suggestion: the ${ARGUMENT_VALIDATION_BUDGET_MS} ms budget of the call was spent`);
  const suggestion = remainingMs < 1 ? null : suggestCorrection(args, input.schema, renames, remainingMs);
  return { valid: false, errors, suggestion, checked: true, reason: null };
}

/** The top-level names the schema does not declare: the first MAX_REPORTED_SCHEMA_ERRORS, and how many in all. */
interface UndeclaredArguments {
  declared: readonly string[];
  first: readonly string[];
  count: number;
}

function undeclaredArguments(args: Record<string, unknown>, schemaJson: Record<string, unknown>): UndeclaredArguments {
  const declared = declaredProperties(schemaJson);
  if (declared.length === 0) return { declared, first: [], count: 0 };
  const declaredNames = new Set(declared);
  const names = Object.keys(args);
  const first: string[] = [];
  let count = 0;
  for (let i = 0; i < names.length; i++) {
    if (declaredNames.has(names[i])) continue;
    if (count++ < MAX_REPORTED_SCHEMA_ERRORS) first.push(names[i]);
  }
  return { declared, first, count };
}

/**
 * A suggestion only renames the names looked up and unwraps arrays: arguments that still hold an undeclared name the
 * schema refuses (one not renamed, or one below the top level) cannot become valid, and are not copied to find out.
 */
function isCorrectable(check: Extract<SchemaCheck, { status: 'checked' }>, renames: ReadonlyMap<string, string>): boolean {
  return !check.errors.some((error) => {
    if (ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword) !== 'unknown_argument') return false;
    const name = stringParam(error, 'additionalProperty') ?? stringParam(error, 'unevaluatedProperty');
    return error.instancePath !== '' || name === null || !renames.has(name);
  });
}

function unchecked(status: 'too_expensive' | 'unusable'): Omit<ArgumentCheck, 'errors'> & { errors: ArgumentError[] } {
  const reason =
    status === 'too_expensive'
      ? `schema too expensive: the tool's schema cannot check these arguments within ${ARGUMENT_VALIDATION_BUDGET_MS} ms; they were not checked`
      : "schema unusable: the tool's registered schema cannot be compiled; the arguments were not checked";
  return { valid: true, errors: [], suggestion: null, checked: false, reason };
}

/** The schema, answering `args` with the check already made. */
function reusingCheck(schema: ArgumentSchema, args: unknown, check: SchemaCheck): ArgumentSchema {
  return { json: schema.json, validate: (value, budgetMs) => (value === args ? check : schema.validate(value, budgetMs)) };
}

/**
 * For each undeclared argument, the declared one it stands for: learned from events first, then by the name itself.
 * Only the first MAX_MATCHED_UNKNOWN_NAMES unknown names are looked up, and none once the budget is spent.
 */
function* resolveRenames(
  input: ArgumentCheckInput,
  args: Record<string, unknown>,
  strays: UndeclaredArguments,
  schema: ArgumentSchema,
  budget: CallBudget,
  omissions: string[],
): Generator<void, Map<string, string>, void> {
  const { declared } = strays;
  const renames = new Map<string, string>();
  if (declared.length === 0 || strays.count === 0) return renames;
  const primary = diagnose({ tool: input.tool, arguments: args, error: { message: '' }, schema });
  const taken = new Set<string>();
  for (let index = 0; index < strays.count; index++) {
    if (index >= MAX_MATCHED_UNKNOWN_NAMES) {
      omissions.push(`intended names looked up for the first ${index} of ${strays.count} unknown names only (at most ${index} per call)`);
      break;
    }
    if (index > 0) yield* budget.pause();
    if (budget.remainingMs() <= 0) {
      omissions.push(
        `intended names looked up for ${index} of ${strays.count} unknown names: the ${ARGUMENT_VALIDATION_BUDGET_MS} ms budget of the call was spent`,
      );
      break;
    }
    const wrong = strays.first[index];
    const free = declared.filter((name) => !Object.hasOwn(args, name) && !taken.has(name));
    const learned = input.learnedRenames.get(wrong);
    const intended =
      (learned !== undefined && free.includes(learned) ? learned : null) ??
      matchArgumentName(wrong, free) ??
      (primary.wrongArgument === wrong && primary.intendedArgument && free.includes(primary.intendedArgument)
        ? primary.intendedArgument
        : null);
    if (intended) {
      renames.set(wrong, intended);
      taken.add(intended);
    }
  }
  return renames;
}

/** At most MAX_REPORTED_SCHEMA_ERRORS, like the schema's own: an undeclared name beside a missing one adds one each. */
function describeErrors(
  check: Extract<SchemaCheck, { status: 'checked' }>,
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  strays: UndeclaredArguments,
  renames: ReadonlyMap<string, string>,
  omissions: string[],
): ArgumentError[] {
  const ajvErrors = check.errors;
  const errors: ArgumentError[] = [];
  const seen = new Set<string>();
  let unlisted = check.unlistedErrors ?? 0;
  const add = (error: ArgumentError) => {
    const key = `${error.subtype}\u0000${error.path}`;
    if (seen.has(key)) return;
    if (errors.length >= MAX_REPORTED_SCHEMA_ERRORS) {
      unlisted++;
      return;
    }
    errors.push(error);
    seen.add(key);
  };
  const leafErrors = ajvErrors.filter((error) => ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, error.keyword) !== undefined);

  for (const error of leafErrors) add(describeError(error, args, schemaJson, renames));
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
    for (const error of ajvErrors) {
      add({
        category: 'argument_mismatch',
        subtype: null,
        path: error.instancePath,
        message: withName(error.instancePath, error.message ?? 'is invalid'),
      });
    }
  }
  if (unlisted > 0) omissions.push(`${unlisted} more errors not listed (at most ${MAX_REPORTED_SCHEMA_ERRORS} per answer)`);
  return errors;
}

function describeError(
  error: AjvLikeError,
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
    const message = `'${name}' is required${sentAs ? `; it was sent as '${sentAs}'` : ''}`;
    return { category, subtype, path: `${at}/${escape(name)}`, message };
  }
  if (subtype === 'unknown_argument') {
    const name = stringParam(error, 'additionalProperty') ?? stringParam(error, 'unevaluatedProperty') ?? '';
    return unknownArgumentError(at, name, args, schemaJson, renames);
  }
  if (subtype === 'type_mismatch') {
    if (at === '')
      return { category: 'argument_mismatch', subtype: 'malformed_arguments', path: '', message: 'arguments must be a JSON object' };
    const value = valueAt(args, at);
    if (value === null)
      return {
        category: 'argument_mismatch',
        subtype: 'missing_argument',
        path: at,
        message: withName(at, 'is required (null was given)'),
      };
    const expected = typesOfParam(error.params.type);
    if (Array.isArray(value) && isScalarTypeList(expected)) {
      const noun = expected.join(' or ');
      return { category, subtype, path: at, message: withName(at, `must be ${noun}, not an array${arrayAdvice(value, noun)}`) };
    }
  }
  return { category, subtype, path: at, message: withName(at, error.message ?? 'is invalid') };
}

function unknownArgumentError(
  parent: string,
  name: string,
  args: Record<string, unknown>,
  schemaJson: Record<string, unknown>,
  renames: ReadonlyMap<string, string>,
): ArgumentError {
  const intended = parent === '' ? renames.get(name) : undefined;
  let message = `'${name}' is not a parameter of this tool`;
  if (intended) {
    message += `; the parameter is '${intended}'`;
    const value = ownValue(args, name);
    const types = declaredTypesOf(schemaJson, intended);
    if (Array.isArray(value) && isScalarTypeList(types)) message += ` (one ${types.join(' or ')})${arrayAdvice(value, types.join(' or '))}`;
  }
  return { category: 'argument_mismatch', subtype: 'unknown_argument', path: `${parent}/${escape(name)}`, message };
}

// The values a model should call the tool with, one call each, as JSON; a long list is cut. The SDKs' guard says the same.
const MAX_LISTED_ITEMS = 10;
const MAX_ITEM_CHARS = 40;

function arrayAdvice(value: readonly unknown[], noun: string): string {
  if (value.length === 1) return '; pass the single item itself';
  const listed = value.slice(0, MAX_LISTED_ITEMS).map((item) => {
    const text = JSON.stringify(item) ?? String(item);
    return text.length <= MAX_ITEM_CHARS ? text : `${text.slice(0, MAX_ITEM_CHARS - 1)}…`;
  });
  const more = value.length > MAX_LISTED_ITEMS ? `, and ${value.length - MAX_LISTED_ITEMS} more` : '';
  return `: pass one ${noun} per call: call this tool once per item, for each of ${listed.join(', ')}${more}`;
}

/**
 * A corrected argument object, only when every correction is safe and the result validates: renamed arguments,
 * one-element arrays unwrapped for scalar parameters. Several items for a scalar have no safe correction.
 */
export function suggestCorrection(
  args: Record<string, unknown>,
  schema: ArgumentSchema,
  renames: ReadonlyMap<string, string>,
  budgetMs: number = ARGUMENT_VALIDATION_BUDGET_MS,
): Record<string, unknown> | null {
  // built key by key, not cloned then deleted from: a clone that then changes shape costs V8 an old-space allocation
  // (docs/perf.md), and a deleted key turns the object into a dictionary
  const corrected: Record<string, unknown> = {};
  for (const name of Object.keys(args)) if (!renames.has(name)) setOwn(corrected, name, args[name]);
  let isChanged = false;
  for (const [wrong, intended] of renames) {
    setOwn(corrected, intended, args[wrong]);
    isChanged = true;
  }
  for (const name of declaredProperties(schema.json)) {
    const value = ownValue(corrected, name);
    if (!Array.isArray(value) || !isScalarTypeList(declaredTypesOf(schema.json, name))) continue;
    if (value.length !== 1) return null;
    setOwn(corrected, name, value[0]);
    isChanged = true;
  }
  if (!isChanged || budgetMs < 1) return null;
  const check = schema.validate(corrected, budgetMs);
  return check.status === 'checked' && check.errors.length === 0 ? corrected : null;
}

function withName(pointer: string, message: string): string {
  if (pointer === '') return `arguments ${message}`;
  const name = pointer
    .slice(pointer.lastIndexOf('/') + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  return `'${name}' ${message}`;
}

function valueAt(args: Record<string, unknown>, pointer: string): unknown {
  let current: unknown = args;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null) return undefined;
    current = ownValue(current as Record<string, unknown>, key);
  }
  return current;
}

function typesOfParam(type: unknown): string[] {
  if (typeof type === 'string') return type.split(',');
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

function stringParam(error: AjvLikeError, key: string): string | null {
  const value = error.params?.[key];
  return typeof value === 'string' ? value : null;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Assignment would call the `__proto__` setter for a parameter of that name; a defined property is plain data. */
function setOwn(target: Record<string, unknown>, name: string, value: unknown) {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
