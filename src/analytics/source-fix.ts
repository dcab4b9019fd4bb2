import { escapePointerSegment } from '@toolcoach/core';
import { argumentName, propertyOf } from './declared-argument';
import { RECOMMENDATION_KINDS } from './recommendation-drafts';

// The change to make in a tool's own definition so that it no longer needs toolcoach's warnings (docs/review-mode.md):
// its description with the warnings folded in as sentences, and a JSON Patch (RFC 6902) of its schema where the
// finding is structural. The same rules say whether a later registration carries a fix, so the nightly retires the
// warning it replaces. Pure and deterministic: the same findings and definition give the same export, byte for byte.

/** One operation of a JSON Patch (RFC 6902), as exported. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown };

/** A recommendation or an active warning, as far as its fix needs it. */
export interface FixFinding {
  recommendationId: string | null;
  warningId: string | null;
  kind: string;
  text: string;
  evidence: Record<string, unknown>;
}

/** The tool as registered (its own description, not the served one with toolcoach's warnings). */
export interface RegisteredDefinition {
  name: string;
  version: number;
  description: string;
  parameters: Record<string, unknown>;
}

/** How one finding is fixed in the source: in the schema (a patch), in the description (a sentence), or by a person. */
export type FindingChange =
  | { change: 'schema'; patch: JsonPatchOperation[] }
  | { change: 'description'; sentence: string }
  /** A schema change toolcoach cannot write itself (it does not know the values), or a review for a person. */
  | { change: 'by_hand'; instruction: string };

export type FindingFix = FixFinding & FindingChange;

export interface SourceFix {
  tool: string;
  /** The registered version the fix is computed against. */
  version: number;
  findings: FindingFix[];
  description: { current: string; rewritten: string };
  /** Every schema finding's operations, in order; [] when nothing structural is left to change. */
  schemaPatch: JsonPatchOperation[];
  /** The registered schema with `schemaPatch` applied. */
  parameters: Record<string, unknown>;
  /** Some finding quotes event data that is not plain (requiresReview): read it before pasting. */
  requiresReview: boolean;
}

/** A property name a rename may write into a schema and into source code: a plain identifier. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Sentences of these kinds say nothing the tool's own definition should carry (a trend, a loop for a person). */
const NOT_FOR_DESCRIPTION = new Set(['review_description', 'loop']);

/** The fix of each finding and the definition they make together. Findings whose fix the definition carries are left out. */
export function sourceFixOf(definition: RegisteredDefinition, findings: readonly FixFinding[]): SourceFix {
  const fixes = orderFindings(findings)
    .map((finding) => ({ ...finding, ...changeOf(finding, definition) }))
    .filter((fix) => !isCarriedChange(fix, definition));
  let parameters = structuredClone(definition.parameters);
  const schemaPatch: JsonPatchOperation[] = [];
  for (const fix of fixes) {
    if (fix.change !== 'schema') continue;
    // a later finding's patch is computed against the schema the earlier ones made (two limits of one property)
    const patch = changeOf(fix, { ...definition, parameters }) as FindingChange;
    if (patch.change !== 'schema' || patch.patch.length === 0) continue;
    parameters = applyJsonPatch(parameters, patch.patch);
    schemaPatch.push(...patch.patch);
  }
  const sentences = fixes.flatMap((fix) => (fix.change === 'description' ? [fix.sentence] : []));
  return {
    tool: definition.name,
    version: definition.version,
    findings: fixes,
    description: { current: definition.description, rewritten: foldSentences(definition.description, sentences) },
    schemaPatch,
    parameters,
    requiresReview: fixes.some((fix) => typeof fix.evidence.requiresReview === 'string'),
  };
}

/** Whether the registered definition already carries the finding's fix: its warning is no longer needed. */
export function isFixCarried(finding: FixFinding, definition: RegisteredDefinition): boolean {
  return isCarriedChange({ ...finding, ...changeOf(finding, definition) }, definition);
}

function isCarriedChange(fix: FindingFix, definition: RegisteredDefinition): boolean {
  if (fix.change === 'schema') return fix.patch.length === 0;
  if (fix.change === 'description') return normalized(definition.description).includes(normalized(fix.sentence));
  return false;
}

/** The schema change of a structural finding (empty when the schema already says it), else the sentence to fold in. */
function changeOf(finding: FixFinding, definition: RegisteredDefinition): FindingChange {
  const isPlain = typeof finding.evidence.requiresReview !== 'string';
  if (finding.kind === 'learned_limit' && isPlain) {
    const patch = limitPatch(finding.evidence.learnedLimit, definition.parameters);
    if (patch) return { change: 'schema', patch };
  }
  if (finding.kind === 'wrong_argument_name' && isPlain) {
    const patch = renamePatch(finding.evidence, definition.parameters);
    if (patch) return { change: 'schema', patch };
  }
  const proposalOnly = finding.evidence.proposalOnly;
  if (typeof proposalOnly === 'string' || NOT_FOR_DESCRIPTION.has(finding.kind)) {
    const fix = (finding.evidence.finding as { fix?: unknown } | undefined)?.fix;
    return { change: 'by_hand', instruction: typeof fix === 'string' ? fix : finding.text };
  }
  return { change: 'description', sentence: asSentence(finding.text) };
}

/**
 * A learned limit as the schema's own bound: `maximum` where the limit's value still works, `exclusiveMaximum` where it
 * fails (`maximum` one below for an integer). Null for a nested argument; [] when the schema already bounds it as tightly.
 */
function limitPatch(raw: unknown, parameters: Record<string, unknown>): JsonPatchOperation[] | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { argumentPath, bound, value, isInclusive } = raw as Record<string, unknown>;
  if (typeof argumentPath !== 'string' || !/^\/[^/]+$/.test(argumentPath) || typeof value !== 'number' || !Number.isFinite(value)) {
    return null;
  }
  const property = propertyOf(parameters, argumentPath);
  if (!property || (bound !== 'upper' && bound !== 'lower')) return null;
  const isUpper = bound === 'upper';
  const isInteger = property.type === 'integer';
  if (isBoundedAsTightly(property, isUpper, value, isInclusive === true, isInteger)) return [];
  const [keyword, limit] =
    isInclusive !== true
      ? [isUpper ? 'maximum' : 'minimum', value]
      : isInteger && Number.isInteger(value)
        ? [isUpper ? 'maximum' : 'minimum', isUpper ? value - 1 : value + 1]
        : [isUpper ? 'exclusiveMaximum' : 'exclusiveMinimum', value];
  const path = `/properties/${escapePointerSegment(argumentName(argumentPath))}/${keyword}`;
  return [{ op: keyword in property ? 'replace' : 'add', path, value: limit }];
}

/**
 * Whether the property's own bound keeps every failing value out: on the upper side, `maximum` at or below the last
 * working value (below the failing one when `isInclusive`), or `exclusiveMaximum` at or below the failing one.
 */
function isBoundedAsTightly(property: Record<string, unknown>, isUpper: boolean, value: number, isInclusive: boolean, isInteger: boolean) {
  // on the lower side the same comparisons hold on negated numbers
  const sign = isUpper ? 1 : -1;
  const limit = sign * value;
  const closed = property[isUpper ? 'maximum' : 'minimum'];
  const open = property[isUpper ? 'exclusiveMaximum' : 'exclusiveMinimum'];
  const isClosedTight = typeof closed === 'number' && (isInclusive ? sign * closed < limit : sign * closed <= limit);
  // an integer's exclusive bound one past the last working value says the same as the closed bound on it
  const isOpenTight = typeof open === 'number' && sign * open <= limit + (!isInclusive && isInteger ? 1 : 0);
  return isClosedTight || isOpenTight;
}

/**
 * Models call the argument by another name, one value at a time (no array for a scalar): the schema takes the name they
 * use. Null when the evidence does not say so plainly; [] once the schema has the new name and not the old one.
 */
function renamePatch(evidence: Record<string, unknown>, parameters: Record<string, unknown>): JsonPatchOperation[] | null {
  const { wrongArgument: used, intendedArgument: declared, arrayForScalarCount } = evidence;
  if (typeof used !== 'string' || typeof declared !== 'string' || arrayForScalarCount !== 0) return null;
  if (!PLAIN_NAME.test(used) || used === declared) return null;
  const hasUsed = propertyOf(parameters, `/${escapePointerSegment(used)}`) !== null;
  const hasDeclared = propertyOf(parameters, `/${escapePointerSegment(declared)}`) !== null;
  if (hasUsed && !hasDeclared) return [];
  if (hasUsed || !hasDeclared) return null;
  const patch: JsonPatchOperation[] = [
    { op: 'move', from: `/properties/${escapePointerSegment(declared)}`, path: `/properties/${escapePointerSegment(used)}` },
  ];
  const required = Array.isArray(parameters.required) ? parameters.required : [];
  const index = required.indexOf(declared);
  if (index >= 0) {
    patch.push({ op: 'test', path: `/required/${index}`, value: declared }, { op: 'replace', path: `/required/${index}`, value: used });
  }
  return patch;
}

/** The kinds' order in RECOMMENDATION_KINDS, then the text: the export does not depend on the order rows were read in. */
function orderFindings(findings: readonly FixFinding[]): FixFinding[] {
  const rank = (kind: string) => {
    const index = (RECOMMENDATION_KINDS as readonly string[]).indexOf(kind);
    return index < 0 ? RECOMMENDATION_KINDS.length : index;
  };
  const seen = new Set<string>();
  return [...findings]
    .sort((a, b) => rank(a.kind) - rank(b.kind) || compare(a.text, b.text) || compare(a.warningId ?? '', b.warningId ?? ''))
    .filter((finding) => {
      // a recommendation and the warning it became are one finding
      const key = `${finding.kind}\u0000${finding.text}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * The description with the sentences woven into its last paragraph, after what it says: prose, not a list. A sentence
 * the description already holds is not repeated.
 */
export function foldSentences(description: string, sentences: readonly string[]): string {
  const trimmed = description.trim();
  const base = trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
  const added = [...new Set(sentences.map(asSentence))].filter((sentence) => !normalized(base).includes(normalized(sentence)));
  if (added.length === 0) return description;
  return [base, ...added].filter((part) => part !== '').join(' ');
}

/** A warning's text as a sentence of prose: trimmed, a list marker dropped, ending in a full stop. */
function asSentence(text: string): string {
  const trimmed = text.trim().replace(/^[-*•]\s+/, '');
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Applies the operations this module writes (add, replace, move, test) to a copy of `document`. The export's own
 * consistency check, not a general RFC 6902 engine: an operation it cannot apply throws.
 */
export function applyJsonPatch(document: Record<string, unknown>, patch: readonly JsonPatchOperation[]): Record<string, unknown> {
  const result = structuredClone(document);
  for (const operation of patch) {
    if (operation.op === 'move') {
      const value = structuredClone(valueAt(result, operation.from));
      removeAt(result, operation.from);
      setAt(result, operation.path, value);
    } else if (operation.op === 'test') {
      if (JSON.stringify(valueAt(result, operation.path)) !== JSON.stringify(operation.value)) {
        throw new Error(`test failed at ${operation.path}`);
      }
    } else {
      setAt(result, operation.path, structuredClone(operation.value));
    }
  }
  return result;
}

function segments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function parentOf(document: Record<string, unknown>, pointer: string): { parent: Record<string, unknown> | unknown[]; key: string } {
  const keys = segments(pointer);
  const key = keys.pop();
  let parent: unknown = document;
  for (const segment of keys) parent = (parent as Record<string, unknown>)?.[segment];
  if (key === undefined || typeof parent !== 'object' || parent === null) throw new Error(`no parent at ${pointer}`);
  return { parent: parent as Record<string, unknown>, key };
}

function valueAt(document: Record<string, unknown>, pointer: string): unknown {
  const { parent, key } = parentOf(document, pointer);
  if (!Object.hasOwn(parent, key)) throw new Error(`nothing at ${pointer}`);
  return (parent as Record<string, unknown>)[key];
}

function setAt(document: Record<string, unknown>, pointer: string, value: unknown): void {
  const { parent, key } = parentOf(document, pointer);
  (parent as Record<string, unknown>)[key] = value;
}

function removeAt(document: Record<string, unknown>, pointer: string): void {
  const { parent, key } = parentOf(document, pointer);
  delete (parent as Record<string, unknown>)[key];
}
