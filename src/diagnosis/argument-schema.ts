import type { ErrorObject, ValidateFunction } from 'ajv';
import { isPlainObject } from './argument-values';
import type { AjvLikeError, ArgumentSchema, SchemaCheck } from './diagnosis.types';
import { discardInterruptedPattern, LinearPatterns } from './linear-regex';
import { MAX_COUNTED_DEPTH, measureSchemaCost, type SchemaCost } from './schema-cost';
import { runWithinBudget } from './time-budget';
import { compileUserSchema, SCHEMA_COMPILE_BUDGET_MS, SCHEMA_COMPILE_STARVED_RETRIES } from './user-schema-compiler';

/**
 * What one argument validation may cost. A user's schema never decides how long the worker or the validate
 * endpoint runs: past the budget the validation is cut off and counts as too expensive for those arguments (the
 * categorizer then reads the error message instead). The cool-down that follows is the call's, not the tool's: for
 * its duration, arguments at least as large (in argument units) as the ones cut off are skipped at once, so that a
 * batch of 1,000 identical hostile events pays the budget once rather than 1,000 times, while smaller calls of any
 * caller are still checked. Another cut-off within the cool-down halves the size skipped from (below the smaller
 * call's), so a run of ever smaller hostile calls pays the budget at most about log2(its size) times per cool-down.
 * Memory is bounded with time: Ajv allocates its errors at most for the budget (tens of MB), and only the first
 * MAX_REPORTED_SCHEMA_ERRORS are kept.
 */
export const ARGUMENT_VALIDATION_BUDGET_MS = 25;
/** Attempts cut off after less than half the budget in this thread's CPU time, run again (time-budget.ts). */
const STARVED_VALIDATION_RETRIES = 2;
export const EXPENSIVE_SCHEMA_COOLDOWN_MS = 60_000;
export const MAX_REPORTED_SCHEMA_ERRORS = 100;
// Work (schema weight at one place x size of the arguments) small enough to run without the watchdog, which costs
// ~0.1 ms a call on an idle machine and more on a busy one (a thread each time): about 1 µs per unit at worst (every
// unit an Ajv error; a pattern weighs its program size, and RE2 spends well under that per instruction and
// character), measured; typical tool calls are a few hundred units.
const CHEAP_WORK_UNITS = 2000;

export interface ArgumentSchemaOptions {
  /** The clock for the cool-down; tests inject their own. */
  nowMs?: () => number;
}

type Prepared =
  | { status: 'ready'; validate: ValidateFunction; cost: SchemaCost | null; patterns: LinearPatterns }
  /** `isRetried`: cut off by the clock (a busy machine can do that), not refused by measure, so tried again later. */
  | { status: 'too_expensive'; isRetried: boolean }
  | { status: 'unusable' };

/**
 * A schema that measured small but whose compile ran out of time is compiled again on a call at least this long
 * after, the wait doubling each time up to MAX_EXPENSIVE_COMPILE_RETRY_MS: a compile cut short while the machine was
 * busy (another project's load, say) must not switch a tool's validation off for good, and a schema that is really
 * slow to compile costs its compile budget only a few times an hour.
 */
export const EXPENSIVE_COMPILE_RETRY_MS = 5_000;
const MAX_EXPENSIVE_COMPILE_RETRY_MS = 10 * 60_000;

/** Compiles a tool's argument schema once (within SCHEMA_COMPILE_BUDGET_MS); `validate` never throws. */
export function compileArgumentSchema(json: Record<string, unknown>, options: ArgumentSchemaOptions = {}): ArgumentSchema {
  const nowMs = options.nowMs ?? (() => performance.now());
  let prepared = prepare(json);
  let retryAtMs = nowMs() + EXPENSIVE_COMPILE_RETRY_MS;
  let retryWaitMs = EXPENSIVE_COMPILE_RETRY_MS;
  let cooldown: ExpensiveCalls | null = null;
  const closedNames = closedTopLevelNames(json);
  return {
    json,
    patternBytes: prepared.status === 'ready' ? prepared.patterns.memoryBytes : 0,
    validate: (sentArgs: unknown, budgetMs = ARGUMENT_VALIDATION_BUDGET_MS): SchemaCheck => {
      if (prepared.status === 'too_expensive' && prepared.isRetried && nowMs() >= retryAtMs) {
        prepared = prepare(json);
        retryWaitMs = Math.min(2 * retryWaitMs, MAX_EXPENSIVE_COMPILE_RETRY_MS);
        retryAtMs = nowMs() + retryWaitMs;
      }
      if (prepared.status !== 'ready') return { status: prepared.status };
      const { args, uncheckedStrays } = closedNames
        ? withReportedStraysOnly(sentArgs, closedNames)
        : { args: sentArgs, uncheckedStrays: 0 };
      if (cooldown && nowMs() >= cooldown.untilMs) cooldown = null;
      if (cooldown && isAtLeast(args, cooldown.fromUnits)) return { status: 'too_expensive' };
      const check = validateWithin(prepared, args, budgetMs, uncheckedStrays);
      // a run cut off with less than the whole budget (what a call had left for its suggestion) says little of its cost
      if (check.status === 'too_expensive' && budgetMs >= ARGUMENT_VALIDATION_BUDGET_MS) {
        const units = argumentUnits(args, Infinity, 0);
        cooldown = cooldown
          ? { untilMs: cooldown.untilMs, fromUnits: Math.min(cooldown.fromUnits, Math.floor(units / 2)) }
          : { untilMs: nowMs() + EXPENSIVE_SCHEMA_COOLDOWN_MS, fromUnits: units };
      }
      return check;
    },
  };
}

/** During a cool-down: arguments of `fromUnits` argument units or more are too expensive for this schema. */
interface ExpensiveCalls {
  untilMs: number;
  fromUnits: number;
}

/** Counts only up to `units`: a small call costs what it is, never the size of the call that was cut off. */
function isAtLeast(args: unknown, units: number): boolean {
  return units <= 1 || argumentUnits(args, units - 1, 0) === Infinity;
}

function prepare(json: Record<string, unknown>): Prepared {
  // Ajv registers a schema under its $id; an id-less copy keeps two versions of one tool independent.
  const { $id: _ignoredId, ...schema } = json;
  // Schemas stored before the registration checks existed are measured here too, within the same budget.
  // One set of compiled patterns for the measure and the compile, kept by the validate function (never recompiled).
  const patterns = new LinearPatterns();
  const measured = runWithinBudget(() => measureSchemaCostSafely(schema, patterns), SCHEMA_COMPILE_BUDGET_MS, {
    starvedRetries: SCHEMA_COMPILE_STARVED_RETRIES,
  });
  // What registration now refuses as explosive is never run: no event pays the budget to learn it again.
  if (measured.timedOut || measured.value?.problems.some((problem) => problem.kind === 'explodes')) {
    return { status: 'too_expensive', isRetried: false };
  }
  const compiled = compileUserSchema(schema, 'draft7', { isStrict: false, patterns });
  // only a schema that measured without problems is worth compiling again (what measures badly stays refused)
  if (compiled.status === 'too_expensive') return { status: 'too_expensive', isRetried: measured.value?.problems.length === 0 };
  // An uncompilable schema gives no schema evidence; the categorizer falls back to the error message.
  if (compiled.status === 'refused') return { status: 'unusable' };
  return { status: 'ready', validate: compiled.validate, cost: measured.value, patterns };
}

function measureSchemaCostSafely(schema: Record<string, unknown>, patterns: LinearPatterns): SchemaCost | null {
  try {
    return measureSchemaCost(schema, patterns);
  } catch {
    // too deep to walk: not known to be cheap
    return null;
  }
}

/**
 * Top-level keywords that judge each property by its name alone, never the set of names (as maxProperties,
 * propertyNames, patternProperties, dependencies or a composition could): under them, which undeclared names a call
 * sends beyond the first few changes nothing Ajv reports before them.
 */
const NAME_BY_NAME_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'definitions',
  '$defs',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** The names a schema declares when its top level is closed (`additionalProperties: false`) name by name; else null. */
function closedTopLevelNames(json: Record<string, unknown>): ReadonlySet<string> | null {
  if (json.additionalProperties !== false || !isPlainObject(json.properties)) return null;
  if (Object.keys(json).some((keyword) => !NAME_BY_NAME_KEYWORDS.has(keyword))) return null;
  return new Set(Object.keys(json.properties));
}

/**
 * Under a closed top level every undeclared name is one error, and Ajv (allErrors) builds each: for a 1 MB call of
 * 13,500 stray names that took 2-12 ms on an idle machine and more than the whole budget on a busy one (the call
 * then went unchecked, and so did every call as large for the cool-down). Only the first MAX_REPORTED_SCHEMA_ERRORS
 * strays can ever be reported, so the schema checks the declared arguments and those, in the order sent (the same
 * errors come first), and counts the rest: one pass over the names, a fraction of what parsing them cost.
 */
function withReportedStraysOnly(args: unknown, declared: ReadonlySet<string>): { args: unknown; uncheckedStrays: number } {
  if (!isPlainObject(args)) return { args, uncheckedStrays: 0 };
  const names = Object.keys(args);
  let strays = 0;
  for (let i = 0; i < names.length; i++) if (!declared.has(names[i])) strays++;
  if (strays <= MAX_REPORTED_SCHEMA_ERRORS) return { args, uncheckedStrays: 0 };
  const checked: Record<string, unknown> = {};
  let kept = 0;
  for (let i = 0; i < names.length; i++) {
    const isDeclared = declared.has(names[i]);
    if (!isDeclared && kept === MAX_REPORTED_SCHEMA_ERRORS) continue;
    if (!isDeclared) kept++;
    // a defined property: assigning `__proto__` would set the prototype instead
    Object.defineProperty(checked, names[i], { value: args[names[i]], enumerable: true, writable: true, configurable: true });
  }
  return { args: checked, uncheckedStrays: strays - kept };
}

function validateWithin(
  prepared: Extract<Prepared, { status: 'ready' }>,
  args: unknown,
  budgetMs: number,
  uncheckedStrays: number,
): SchemaCheck {
  const run = (): SchemaErrors => (prepared.validate(args) ? { errors: [], unlistedErrors: 0 } : reportedErrors(prepared.validate.errors));
  const checked = ({ errors, unlistedErrors }: SchemaErrors, elapsedMs: number): SchemaCheck => {
    const unlisted = unlistedErrors + uncheckedStrays;
    return unlisted > 0 ? { status: 'checked', errors, elapsedMs, unlistedErrors: unlisted } : { status: 'checked', errors, elapsedMs };
  };
  try {
    if (isCheap(prepared.cost, args)) {
      const startedAt = performance.now();
      const errors = run();
      return checked(errors, performance.now() - startedAt);
    }
    // a cut-off puts the schema in its cool-down, every call of the tool then read by its message alone: an attempt
    // starved by a busy machine (not expensive) runs again, as the schema compile's do
    const budgeted = runWithinBudget(run, budgetMs, { starvedRetries: STARVED_VALIDATION_RETRIES });
    if (!budgeted.timedOut) return checked(budgeted.value, budgeted.elapsedMs);
    discardInterruptedPattern();
    return { status: 'too_expensive' };
  } catch {
    // a validation that throws (the call stack of a schema that refers to itself) did not finish either
    return { status: 'too_expensive' };
  }
}

interface SchemaErrors {
  errors: AjvLikeError[];
  unlistedErrors: number;
}

function reportedErrors(errors: readonly ErrorObject[] | null | undefined): SchemaErrors {
  const all = errors ?? [];
  return {
    errors: all.slice(0, MAX_REPORTED_SCHEMA_ERRORS).map(toAjvLikeError),
    unlistedErrors: Math.max(0, all.length - MAX_REPORTED_SCHEMA_ERRORS),
  };
}

/**
 * Runs without the watchdog only what the measured schema and the size of these arguments prove small (its patterns
 * were compiled with it); uniqueItems is quadratic.
 */
function isCheap(cost: SchemaCost | null, args: unknown): boolean {
  if (!cost || cost.problems.length > 0 || cost.hasUniqueItems) return false;
  const weight = Math.max(1, cost.maxWeight);
  return argumentUnits(args, Math.floor(CHEAP_WORK_UNITS / weight), 0) * weight <= CHEAP_WORK_UNITS;
}

/** Values, characters of strings and property names, counted up to `limit` (Infinity past it or too deep). */
function argumentUnits(value: unknown, limit: number, depth: number): number {
  if (depth > MAX_COUNTED_DEPTH) return Infinity;
  if (typeof value === 'string') return 1 + value.length;
  if (typeof value !== 'object' || value === null) return 1;
  let units = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && units <= limit; i++) units += argumentUnits(value[i], limit - units, depth + 1);
  } else {
    for (const key in value) {
      if (units > limit) break;
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      units += key.length + argumentUnits((value as Record<string, unknown>)[key], limit - units, depth + 1);
    }
  }
  return units > limit ? Infinity : units;
}

function toAjvLikeError(error: ErrorObject): AjvLikeError {
  return {
    keyword: error.keyword,
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    params: { ...error.params },
    message: error.message,
  };
}
