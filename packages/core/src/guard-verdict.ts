// The guard's verdict on a call, from what a check found (the server's validate answer, or the same check made in the
// client), and the one text a model reads when a call is refused. Pure.
import {
  type ArgumentError,
  type CorrectionKind,
  type SchemaError,
  NOT_AN_OBJECT,
  correctArguments,
  describeSchemaErrors,
  isCorrectable,
  missingTopLevelNames,
  undeclaredArguments,
} from './argument-findings';
import { intendedArgumentOf, MAX_MATCHED_UNKNOWN_NAMES } from './argument-names';
import { checkLearnedLimits, type GuardLimit, type LearnedLimitFinding } from './learned-limits';
import { isObject, valueAtPointer } from './schema-properties';
import type { GuardMode } from './wire';

/** Errors a check lists at most, as the server's validate does. */
export const MAX_REPORTED_ARGUMENT_ERRORS = 100;

export interface Correction {
  original: Record<string, unknown>;
  corrected: Record<string, unknown>;
  kinds: CorrectionKind[];
}

/** run: call the tool with `args` as they are; correct: with `correction.corrected`; refuse: not at all, say `message`. */
export type GuardVerdict = { action: 'run' } | { action: 'correct'; correction: Correction } | { action: 'refuse'; message: string };

/** What a check found: validate's answer (its `suggestion` is the correction's arguments). */
export interface ArgumentAnswer {
  valid: boolean;
  errors: Array<ArgumentError | LearnedLimitFinding>;
  suggestion: Record<string, unknown> | null;
  /** How the suggestion corrects the arguments, when the check knows. */
  kinds?: CorrectionKind[];
}

export interface LocalCheckInput {
  args: unknown;
  schemaJson: Record<string, unknown>;
  /** The schema's errors for a value (Ajv's), or null when the schema cannot check it: then only limits are checked. */
  schemaErrorsOf: (value: Record<string, unknown>) => readonly SchemaError[] | null;
  /** wrong name -> intended name, learned from the tool's calls (the guard section's renames). */
  learnedRenames?: ReadonlyMap<string, string>;
  limits?: readonly GuardLimit[];
}

/**
 * validate's check, made where the call is (an SDK, the gateway): the same findings, words and correction, without
 * the server's budget (a client checks only its own calls).
 */
export function checkArgumentsLocally(input: LocalCheckInput): ArgumentAnswer {
  const { args, schemaJson } = input;
  if (!isObject(args)) return { valid: false, errors: [NOT_AN_OBJECT], suggestion: null };
  const schemaErrors = input.schemaErrorsOf(args) ?? [];
  const limits = input.limits ?? [];
  const beyond = checkLearnedLimits(args, limits);
  if (schemaErrors.length === 0) return { valid: beyond.length === 0, errors: beyond, suggestion: null };
  const strays = undeclaredArguments(args, schemaJson, MAX_REPORTED_ARGUMENT_ERRORS);
  const renames = new Map<string, string>();
  const context = { missing: missingTopLevelNames(schemaErrors), strayCount: strays.count };
  for (const wrong of strays.first.slice(0, MAX_MATCHED_UNKNOWN_NAMES)) {
    const free = strays.declared.filter((name) => !Object.hasOwn(args, name) && ![...renames.values()].includes(name));
    const intended = intendedArgumentOf(wrong, free, input.learnedRenames, context);
    if (intended !== null) renames.set(wrong, intended);
  }
  const { errors } = describeSchemaErrors(schemaErrors, args, schemaJson, strays, renames, MAX_REPORTED_ARGUMENT_ERRORS);
  const fixed = isCorrectable(schemaErrors, renames) ? correctArguments(args, schemaJson, renames) : null;
  const isFixed = fixed !== null && input.schemaErrorsOf(fixed.corrected)?.length === 0;
  // a correction of the names that keeps a value known to fail is no correction
  const kept = isFixed && checkLearnedLimits(fixed.corrected, limits).length === 0 ? fixed : null;
  return { valid: false, errors: [...errors, ...beyond], suggestion: kept?.corrected ?? null, ...(kept ? { kinds: kept.kinds } : {}) };
}

/**
 * Several values for one, a value beyond a bound or a learned limit, a missing argument: the tool would fail or do the
 * wrong thing, so even the `correct` mode refuses the call. Other problems (an unknown name, a wrong format) let it run.
 */
export function isUnsafe(error: ArgumentAnswer['errors'][number], args: unknown): boolean {
  if (error.subtype === 'missing_argument' || error.subtype === 'above_maximum' || error.subtype === 'below_minimum') return true;
  return error.subtype === 'type_mismatch' && Array.isArray(valueAtPointer(args, error.path));
}

/** What the guard does with a call in `mode`, given what the check found. */
export function guardVerdict(tool: string, args: unknown, answer: ArgumentAnswer, mode: GuardMode): GuardVerdict {
  if (mode === 'off' || mode === 'report' || answer.valid || !isObject(args)) return { action: 'run' };
  if (answer.suggestion !== null && mode === 'correct') {
    return { action: 'correct', correction: { original: args, corrected: answer.suggestion, kinds: answer.kinds ?? [] } };
  }
  if (mode === 'strict' || answer.errors.some((error) => isUnsafe(error, args))) {
    return { action: 'refuse', message: refusalText(tool, answer) };
  }
  return { action: 'run' };
}

/** The refusal a model reads: every finding once, in order, then the corrected call when there is one. */
export function refusalText(tool: string, answer: Pick<ArgumentAnswer, 'errors' | 'suggestion'>): string {
  const messages = [...new Set(answer.errors.map((error) => error.message))];
  const fix = answer.suggestion === null ? '' : `; call it as ${JSON.stringify(answer.suggestion)}`;
  return `${tool} was not called: ${messages.join('; ')}${fix}`;
}
