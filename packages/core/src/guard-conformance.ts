// The shape of test/fixtures/guard-conformance.json, the guard's contract, and the one way every suite reads a verdict
// against it: the server's validate, both SDKs' guard and the gateway's check must each give the expected outcome.
import type { GuardVerdict } from './guard-verdict';
import type { GuardMode, GuardSection } from './wire';

export interface GuardConformanceCase {
  name: string;
  /** The tool's name, and the key of its schema in the table's `schemas`. */
  tool: string;
  mode: GuardMode;
  arguments: unknown;
  guard?: Pick<GuardSection, 'renames' | 'limits'>;
  expected: GuardOutcome;
}

export interface GuardConformanceTable {
  schemas: Record<string, Record<string, unknown>>;
  cases: GuardConformanceCase[];
}

/** What happened to a call: it ran as sent, ran corrected, or was refused with `text` for the model. */
export type GuardOutcome =
  | { valid: boolean; outcome: 'pass' }
  | { valid: false; outcome: 'corrected'; corrected: Record<string, unknown> }
  | { valid: false; outcome: 'refused'; text: string };

/** A verdict as the table states it; `valid` is whether the check found the arguments valid. */
export function guardOutcomeOf(verdict: GuardVerdict, valid: boolean): GuardOutcome {
  if (verdict.action === 'correct') return { valid: false, outcome: 'corrected', corrected: verdict.correction.corrected };
  if (verdict.action === 'refuse') return { valid: false, outcome: 'refused', text: verdict.message };
  return { valid, outcome: 'pass' };
}

/** The section a case's guard stands for, as the registry serves it. */
export function guardSectionOf(testCase: GuardConformanceCase): GuardSection {
  const { renames = [], limits = [] } = testCase.guard ?? {};
  return { version: 1, policy: testCase.mode, schema: 'parameters', renames, limits };
}
