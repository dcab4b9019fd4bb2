import { MAX_MATCHED_UNKNOWN_NAMES, matchArgumentName, escapePointerSegment } from '@toolcoach/core';
import type { Category, Subtype } from './diagnosis.types';

/** One problem read from one piece of evidence (an Ajv error, a pydantic line, a zod issue, a message). */
export interface Finding {
  category: Category;
  subtype: Subtype | null;
  argumentPath: string | null;
  /** For unknown_argument: the name the tool does not accept. */
  wrongArgument?: string | null;
  /** A declared argument the evidence itself names as the expected one ("did you mean", serde's "expected"). */
  intendedArgument?: string | null;
  /** A failing value the evidence states (pydantic input_value, "Actual value was 25"). */
  statedValue?: number | null;
  /** The evidence itself says an array came where a scalar was wanted ("received array", input_type=list). */
  isArrayForScalar?: boolean;
  /** The value the wording implies failed (division by zero -> 0); locates the argument that holds it. */
  impliedValue?: number;
  /** For KeyError-like lookups: the key the tool looked for, which decides missing argument vs internal bug. */
  keyName?: string | null;
  /** For range wording that does not say which side: the text, re-read once the failing value is known. */
  rangeText?: string;
  /** The wording is a format problem for a string but an overflow for a number (see MessageRule). */
  isOverflowForNumbers?: boolean;
  /** The rule itself captured the failing value (not a number found elsewhere in the text), so it can be compared with the call. */
  isValueCaptured?: boolean;
}

// When several problems are reported at once, the one to coach on first. An unknown name usually explains a
// missing one (the model renamed it), a missing argument blocks every other check, and a wrong type makes range
// checks meaningless; among range problems the order is arbitrary but fixed so results are stable.
const SUBTYPE_PRIORITY: readonly (Subtype | null)[] = [
  'malformed_arguments',
  'unknown_argument',
  'missing_argument',
  'type_mismatch',
  'not_in_enum',
  'above_maximum',
  'below_minimum',
  'invalid_format',
  null,
];

/**
 * Picks the most useful finding. An unknown argument plus a missing one under the same parent is one mistake
 * (`numbers` sent for `number`): it becomes a single unknown_argument that names the intended argument.
 */
export function selectPrimaryFinding(findings: readonly Finding[]): Finding | null {
  if (findings.length === 0) return null;
  const renamed = pairUnknownWithMissing(findings);
  if (renamed) return renamed;
  const rank = (finding: Finding): number => {
    const position = SUBTYPE_PRIORITY.indexOf(finding.subtype);
    return position === -1 ? SUBTYPE_PRIORITY.length : position;
  };
  return findings.reduce((best, finding) => (rank(finding) < rank(best) ? finding : best));
}

function pairUnknownWithMissing(findings: readonly Finding[]): Finding | null {
  const unknowns = findings.filter((finding) => finding.subtype === 'unknown_argument' && finding.wrongArgument);
  const missings = findings.filter((finding) => finding.subtype === 'missing_argument' && finding.argumentPath);
  if (unknowns.length === 0 || missings.length === 0) return null;

  // the names are compared with at most MAX_MATCHED_UNKNOWN_NAMES unknown ones: the pairing is for a renamed argument or two
  for (const unknown of unknowns.slice(0, MAX_MATCHED_UNKNOWN_NAMES)) {
    const siblings = missings.filter((missing) => parentOf(missing.argumentPath) === parentOf(unknown.argumentPath));
    const missingNames = siblings.map((missing) => lastSegment(missing.argumentPath));
    const intended = matchArgumentName(unknown.wrongArgument ?? '', missingNames);
    if (intended) return withIntendedArgument(unknown, intended);
  }
  // One unknown and one missing side by side, even with unrelated names, is still most likely a rename.
  if (unknowns.length === 1 && missings.length === 1) {
    const [unknown] = unknowns;
    const [missing] = missings;
    if (parentOf(missing.argumentPath) === parentOf(unknown.argumentPath)) {
      return withIntendedArgument(unknown, lastSegment(missing.argumentPath));
    }
  }
  return null;
}

/** A copy that names the intended argument (Object.assign into a fresh object: see docs/perf.md on `{ ...x, y }`). */
function withIntendedArgument(finding: Finding, intendedArgument: string): Finding {
  return Object.assign({}, finding, { intendedArgument });
}

export function parentOf(pointer: string | null): string {
  if (!pointer) return '';
  const cut = pointer.lastIndexOf('/');
  return cut <= 0 ? '' : pointer.slice(0, cut);
}

export function lastSegment(pointer: string | null): string {
  if (!pointer) return '';
  return decodePointerSegment(pointer.slice(pointer.lastIndexOf('/') + 1));
}

export function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Joins path segments (strings or indexes) into a JSON Pointer; null for the root. */
export function toPointer(segments: readonly (string | number)[]): string | null {
  if (segments.length === 0) return null;
  return segments.map((segment) => `/${escapePointerSegment(String(segment))}`).join('');
}
