import { type Cause, exceptionNamesIn, lastDottedSegment, readCauseChain, withoutStackFrames } from './cause-chain';
import { classifyTypeName, classifyWording } from './clause-classifier';
import type { ToolError } from './diagnosis.types';
import type { Finding } from './finding';
import { unwrap } from './message-wrappers';
import { readStructuredReport } from './structured-reports';

// Reads an error message the way a person would: peel off the framework's wrapper (message-wrappers.ts), read
// structured reports line by line (structured-reports.ts: pydantic, zod, Ajv, JSON Schema validators), and otherwise
// unwrap the chain of causes (cause-chain.ts) and match each, innermost first, against the rule table's wordings
// (clause-classifier.ts); when no wording matches, the exception type names decide, again innermost first (see
// exception-type-families.ts).

/** Only the head of a message is read: every report we know puts its substance first, and it bounds regex work. */
export const MAX_MESSAGE_CHARS = 8192;

export interface MessageEvidence {
  finding: Finding;
  /** The failing call's arguments when the wrapper printed them (LangGraph's "with kwargs {...}"). */
  printedArguments?: unknown;
}

/**
 * What a message says depends on its type and text alone, and agents repeat the same failures word for word: the
 * readings of recent messages are kept, so a repeated one costs a lookup instead of every rule's regex (issue 18).
 * Readings are shared between callers, which only read them. Bounded in entries and in the length of a kept message.
 */
const recentReadings = new Map<string, MessageEvidence | null>();
const MAX_RECENT_READINGS = 1000;
const MAX_REMEMBERED_MESSAGE_CHARS = 2048;

export function findMessageEvidence(error: ToolError | null | undefined): MessageEvidence | null {
  const message: unknown = error?.message;
  const type: unknown = error?.type;
  const isRemembered =
    typeof message === 'string' &&
    message.length + (typeof type === 'string' ? type.length : 0) <= MAX_REMEMBERED_MESSAGE_CHARS &&
    (type === undefined || type === null || typeof type === 'string');
  if (!isRemembered) return readMessageEvidence(error);
  // the type's length first: no type and message can make the key of another pair
  const typeText = typeof type === 'string' ? type : '';
  const key = `${type === undefined ? 'u' : type === null ? 'n' : 's'}${typeText.length}:${typeText}${message}`;
  const known = recentReadings.get(key);
  if (known !== undefined) return known;
  const reading = readMessageEvidence(error);
  if (recentReadings.size >= MAX_RECENT_READINGS) recentReadings.delete(recentReadings.keys().next().value!);
  recentReadings.set(key, reading);
  return reading;
}

function readMessageEvidence(error: ToolError | null | undefined): MessageEvidence | null {
  const raw = toText(error?.message).slice(0, MAX_MESSAGE_CHARS);
  const typeNames = new Set<string>();
  const declaredType = toText(error?.type).trim();
  if (declaredType) typeNames.add(lastDottedSegment(declaredType));

  const { text, printedArguments, hasLocLines } = unwrap(raw, typeNames);
  for (const name of exceptionNamesIn(text)) typeNames.add(name);
  const types = [...typeNames];

  const structured = readStructuredReport(text, types, hasLocLines === true);
  if (structured) return { finding: structured, printedArguments };
  const causes = readCauseChain(withoutStackFrames(text));
  // The declared type and the names a wrapper's repr gave belong to the outermost exception.
  const outermost = causes[causes.length - 1];
  if (declaredType) outermost.typeNames.push(declaredType);
  for (const name of typeNames) if (!outermost.typeNames.some((known) => lastDottedSegment(known) === name)) outermost.typeNames.push(name);
  const finding = decideOnCauses(causes, types);
  return finding ? { finding, printedArguments } : null;
}

/**
 * Wordings first, then type names; among the causes that decide, the most specific one, the root cause on a tie.
 * The innermost cause is not always the telling one: zoneinfo handles a missing tzdata module and then raises "No
 * time zone found", so the environment failure underneath is context and the unknown zone is the problem.
 */
function decideOnCauses(causes: readonly Cause[], types: readonly string[]): Finding | null {
  const byWording = causes.flatMap((cause) => classifyWording({ text: cause.text, path: null }, types) ?? []);
  if (byWording.length > 0) return mostSpecific(byWording);
  const byType = causes.flatMap((cause) => {
    for (const name of cause.typeNames) {
      const found = classifyTypeName(name, { text: cause.text, path: null });
      if (found) return [found];
    }
    return [];
  });
  return byType.length > 0 ? mostSpecific(byType) : null;
}

/**
 * runtime_error is the taxonomy's catch-all for "not the call's fault", so any other reading is more specific, and a
 * reading with a subtype more specific than one without. Findings come root cause first; the first of the best wins.
 */
function mostSpecific(findings: readonly Finding[]): Finding {
  const specificity = (finding: Finding): number => (finding.category === 'runtime_error' ? 0 : 2) + (finding.subtype === null ? 0 : 1);
  return findings.reduce((best, finding) => (specificity(finding) > specificity(best) ? finding : best));
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  try {
    return typeof value === 'object' ? (JSON.stringify(value) ?? '') : String(value);
  } catch {
    return '';
  }
}
