import {
  type ArgumentError,
  NOT_AN_OBJECT,
  correctArguments,
  describeSchemaErrors,
  intendedArgumentOf,
  isCorrectable,
  missingTopLevelNames,
  type StrayContext,
  undeclaredArguments,
  type UndeclaredArguments,
} from '@toolcoach/core';
import {
  type ArgumentSchema,
  ARGUMENT_VALIDATION_BUDGET_MS,
  MAX_MATCHED_UNKNOWN_NAMES,
  MAX_REPORTED_SCHEMA_ERRORS,
  declaredProperties,
  undeclaredNames,
} from '../../diagnosis/index';
import { checkLearnedLimits, LearnedLimit, LearnedLimitFinding } from '../guard/learned-limits';

// Pre-execution validation: checks arguments against a tool's registered schema with the worker's categories, and
// proposes a corrected argument object when a correction is safe. The findings, their words and the correction are
// the guard core's (@toolcoach/core), which the SDKs' guard and the gateway run too; this adds the budget, the
// learned renames and the categorizer's reading of the call. Pure.

export type { ArgumentError };

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
  // a correction that gives a value known to fail (a renamed one, a numeric string read) is no correction
  const isKept =
    suggestion !== null && (input.checks === 'schema' || checkLearnedLimits(suggestion, input.learnedLimits ?? []).length === 0);
  const kept = isKept ? suggestion : null;
  if (learned.length === 0) return { valid, errors: schemaErrors, suggestion: kept, checked, reason, ...incomplete };
  return { valid: false, errors: [...schemaErrors, ...learned], suggestion: kept, checked, reason, ...incomplete };
}

/**
 * The call's budget, ARGUMENT_VALIDATION_BUDGET_MS of its own work: a pause (other work running) moves the deadline.
 * Its own work is its wall time, unless the process spent less than half the budget in CPU meanwhile: then a machine
 * too busy to run it starved the call (as time-budget.ts's starved attempts), and what it spent is its CPU time, so a
 * busy host does not take every suggestion away.
 */
class CallBudget {
  private readonly startedAtMs = performance.now();
  private readonly cpuAtStart = process.cpuUsage();
  private pausedMs = 0;
  private pausedCpuUs = 0;

  remainingMs(): number {
    const wallMs = performance.now() - this.startedAtMs - this.pausedMs;
    const { user, system } = process.cpuUsage(this.cpuAtStart);
    const cpuMs = (user + system - this.pausedCpuUs) / 1000;
    const spentMs = cpuMs < ARGUMENT_VALIDATION_BUDGET_MS / 2 ? Math.min(wallMs, cpuMs) : wallMs;
    return ARGUMENT_VALIDATION_BUDGET_MS - spentMs;
  }

  *pause(): Generator<void, void, void> {
    const pausedAt = performance.now();
    const cpuAtPause = process.cpuUsage();
    yield;
    this.pausedMs += performance.now() - pausedAt;
    const { user, system } = process.cpuUsage(cpuAtPause);
    this.pausedCpuUs += user + system;
  }
}

function* checkSchema(
  input: ArgumentCheckInput,
  args: unknown,
  budget: CallBudget,
  omissions: string[],
): Generator<void, Omit<ArgumentCheck, 'errors'> & { errors: ArgumentError[] }, void> {
  if (!isObject(args)) return { valid: false, errors: [NOT_AN_OBJECT], suggestion: null, checked: true, reason: null };
  const check = input.schema.validate(args);
  if (check.status !== 'checked') return unchecked(check.status);
  if (check.errors.length === 0) return { valid: true, errors: [], suggestion: null, checked: true, reason: null };

  // Everything below shares the one validation budget: the intended names first, the suggestion gets the rest.
  // Nothing below walks every name of the call more than once (a 1 MB call holds 13,500 of them): the undeclared ones
  // are listed up to what is used and counted once.
  yield* budget.pause();
  const strays = undeclaredArguments(args, input.schema.json, MAX_REPORTED_SCHEMA_ERRORS);
  const context = { missing: missingTopLevelNames(check.errors), strayCount: strays.count };
  const renames = yield* resolveRenames(input, args, strays, context, budget, omissions);
  const described = describeSchemaErrors(check.errors, args, input.schema.json, strays, renames, MAX_REPORTED_SCHEMA_ERRORS);
  const unlisted = described.unlisted + (check.unlistedErrors ?? 0);
  if (unlisted > 0) omissions.push(`${unlisted} more errors not listed (at most ${MAX_REPORTED_SCHEMA_ERRORS} per answer)`);
  const errors = described.errors;
  if (!isCorrectable(check.errors, renames)) return { valid: false, errors, suggestion: null, checked: true, reason: null };
  yield* budget.pause();
  const remainingMs = budget.remainingMs();
  if (remainingMs < 1) omissions.push(`no suggestion: the ${ARGUMENT_VALIDATION_BUDGET_MS} ms budget of the call was spent`);
  const suggestion = remainingMs < 1 ? null : suggestCorrection(args, input.schema, renames, remainingMs);
  return { valid: false, errors, suggestion, checked: true, reason: null };
}

function unchecked(status: 'too_expensive' | 'unusable'): Omit<ArgumentCheck, 'errors'> & { errors: ArgumentError[] } {
  const reason =
    status === 'too_expensive'
      ? `schema too expensive: the tool's schema cannot check these arguments within ${ARGUMENT_VALIDATION_BUDGET_MS} ms; they were not checked`
      : "schema unusable: the tool's registered schema cannot be compiled; the arguments were not checked";
  return { valid: true, errors: [], suggestion: null, checked: false, reason };
}

/**
 * For each undeclared argument, the declared one it stands for (intendedArgumentOf): learned from events first, then
 * by the name itself, then beside the missing names.
 * Only the first MAX_MATCHED_UNKNOWN_NAMES unknown names are looked up, and none once the budget is spent.
 */
function* resolveRenames(
  input: ArgumentCheckInput,
  args: Record<string, unknown>,
  strays: UndeclaredArguments,
  context: StrayContext,
  budget: CallBudget,
  omissions: string[],
): Generator<void, Map<string, string>, void> {
  const { declared } = strays;
  const renames = new Map<string, string>();
  if (declared.length === 0 || strays.count === 0) return renames;
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
    const intended = intendedArgumentOf(wrong, free, input.learnedRenames, context);
    if (intended) {
      renames.set(wrong, intended);
      taken.add(intended);
    }
  }
  return renames;
}

/**
 * The corrected arguments (see correctArguments), only when the result validates within the budget; null otherwise.
 */
export function suggestCorrection(
  args: Record<string, unknown>,
  schema: ArgumentSchema,
  renames: ReadonlyMap<string, string>,
  budgetMs: number = ARGUMENT_VALIDATION_BUDGET_MS,
): Record<string, unknown> | null {
  const fixed = correctArguments(args, schema.json, renames);
  if (fixed === null || budgetMs < 1) return null;
  const check = schema.validate(fixed.corrected, budgetMs);
  return check.status === 'checked' && check.errors.length === 0 ? fixed.corrected : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
