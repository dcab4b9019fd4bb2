/**
 * Turns a tool's error groups and the evidence the worker extracted into recommendations: short warnings an LLM reads
 * well, each with the evidence behind it. Pure: data in, drafts out.
 */

import { argumentName, declaredLimit, enumOf, propertyOf, typeLabel } from './declared-argument';
import { escapePointerSegment } from '@toolcoach/core';
import {
  type ArgumentRange,
  type GroupEvidence,
  type RecommendationDraft,
  type RecommendationKind,
  confidenceOf,
  evidenceOf,
  reviewMark,
} from './recommendation-drafts';
import { quoteValue, UntrustedFragments } from '@toolcoach/core';

// The nightly imports the rules and the draft types it stores from here.

export interface ToolDayStats {
  calls: number;
  successRate: number | null;
  prev7SuccessRate: number | null;
}

export interface ToolEvidence {
  tool: string;
  /** The registered JSON Schema of the arguments, if any. */
  schema: Record<string, unknown> | null;
  groups: GroupEvidence[];
  argumentRanges: ArgumentRange[];
  /** Arguments of the groups' sample events, by event id (a handful per group, never a scan). */
  sampleArguments: ReadonlyMap<string, unknown>;
  stats: ToolDayStats | null;
}

export const LOW_SUCCESS_RATE = 0.8;
export const FALLING_SUCCESS_RATE = 0.1;
export const MIN_CALLS_FOR_REVIEW = 20;

export function deriveRecommendations(input: ToolEvidence): RecommendationDraft[] {
  const totalErrors = input.groups.reduce((sum, group) => sum + group.count, 0);
  const buckets = new Map<string, { kind: RecommendationKind; path: string; groups: GroupEvidence[] }>();
  for (const group of input.groups) {
    const target = classify(group, input);
    if (!target) continue;
    const key = `${target.kind}:${target.path}`;
    const bucket = buckets.get(key) ?? { ...target, groups: [] };
    bucket.groups.push(group);
    buckets.set(key, bucket);
  }

  const drafts: RecommendationDraft[] = [];
  for (const [evidenceKey, bucket] of buckets) {
    const fragments = new UntrustedFragments();
    const rendered = render(bucket.kind, bucket.path, bucket.groups, input, fragments);
    if (!rendered) continue;
    const evidence = evidenceOf(bucket.groups, totalErrors);
    drafts.push({
      tool: input.tool,
      kind: bucket.kind,
      evidenceKey,
      text: rendered.text,
      confidence: confidenceOf(evidence.count, totalErrors, rendered.confidenceBoost ?? 1),
      evidence: { ...evidence, ...rendered.details, ...reviewMark(fragments) },
    });
  }
  const review = reviewDescription(input, drafts.length, totalErrors);
  if (review) drafts.push(review);
  return drafts.sort((a, b) => b.evidence.count - a.evidence.count || a.evidenceKey.localeCompare(b.evidenceKey));
}

function classify(group: GroupEvidence, input: ToolEvidence): { kind: RecommendationKind; path: string } | null {
  const path = group.argumentPath ?? '';
  switch (`${group.category}/${group.subtype ?? ''}`) {
    case 'argument_mismatch/unknown_argument':
      return path ? { kind: 'wrong_argument_name', path } : null;
    case 'argument_mismatch/missing_argument':
      return path ? { kind: 'missing_argument', path } : null;
    case 'argument_mismatch/type_mismatch':
      return path ? { kind: 'type_mismatch', path } : null;
    case 'argument_mismatch/malformed_arguments':
      return { kind: 'malformed_arguments', path: '' };
    case 'out_of_range/not_in_enum':
      return path ? { kind: 'enum_values', path } : null;
    case 'out_of_range/above_maximum':
    case 'out_of_range/below_minimum': {
      const limitPath = path || numericArgumentOf(group, input);
      if (!limitPath) return null;
      const direction = group.subtype === 'above_maximum' ? 'max' : 'min';
      return declaredLimit(input.schema, limitPath, direction) !== null
        ? { kind: 'declared_limit', path: limitPath }
        : { kind: 'learned_limit', path: limitPath };
    }
    case 'overflow/': {
      const limitPath = path || numericArgumentOf(group, input);
      return limitPath ? { kind: 'learned_limit', path: limitPath } : null;
    }
    default:
      return null;
  }
}

interface Rendered {
  text: string;
  details?: Record<string, unknown>;
  confidenceBoost?: number;
}

function render(
  kind: RecommendationKind,
  path: string,
  groups: GroupEvidence[],
  input: ToolEvidence,
  text: UntrustedFragments,
): Rendered | null {
  const rawName = argumentName(path);
  // judged only when the text quotes it: a malformed-JSON warning names no argument (its path is ''), so it must not
  // wait for review because of a name it never shows (issue 34)
  let quotedName: string | undefined;
  const name = () => (quotedName ??= text.name('argument name', rawName));
  const property = propertyOf(input.schema, path);
  switch (kind) {
    case 'wrong_argument_name': {
      const intended = mostCommon(groups.flatMap((g) => (g.intendedArgument ? [g.intendedArgument] : [])));
      const arrays = groups.reduce((n, g) => n + g.arrayForScalarCount, 0);
      const details = { wrongArgument: rawName, intendedArgument: intended ?? null, arrayForScalarCount: arrays };
      if (!intended) return { text: `Do not pass ${name()}; it is not a parameter of this tool.`, details };
      const intendedName = text.name('intended argument name', intended);
      const intendedType = typeLabel(propertyOf(input.schema, `/${escapePointerSegment(intended)}`));
      const sentence =
        arrays > 0
          ? `Do not pass ${name()}. The parameter is ${intendedName} (one ${intendedType ?? 'value'}); call this tool once per ${intendedType ? intended : 'value'}.`
          : `Do not pass ${name()}. The parameter is ${intendedName}.`;
      return { text: sentence, details };
    }
    case 'missing_argument': {
      const type = typeLabel(property);
      return { text: `Always pass ${name()}${type ? ` (${withArticle(type)})` : ''}.` };
    }
    case 'type_mismatch': {
      const expected = typeLabel(property);
      const seen = mostCommon(sampleValues(groups, path, input).map(jsonTypeOf));
      if (!expected) return null;
      const arrays = seen === 'array' && expected !== 'array';
      const sentence = arrays
        ? `${name()} must be ${withArticle(`single ${expected}`)}, not an array; call this tool once per value.`
        : `${name()} must be ${withArticle(expected)}${seen && seen !== expected ? `, not ${withArticle(seen)}` : ''}.`;
      return { text: sentence, details: { expectedType: expected, seenType: seen ?? null } };
    }
    case 'malformed_arguments':
      return { text: 'Pass the arguments as one valid JSON object matching the parameters.' };
    case 'enum_values': {
      const allowed = enumOf(property);
      if (!allowed) return null;
      const wrong = mostCommonValues(
        sampleValues(groups, path, input).filter((v) => !allowed.some((a) => a === v)),
        3,
      );
      // the allowed values are the tool owner's (the registered schema); the wrong ones were sent by agents
      const wrongText = wrong.map((value) => text.value('rejected value', value));
      const sentence = `${name()} must be one of ${allowed.map(quoteValue).join(', ')}${wrong.length ? `; not ${wrongText.join(', ')}` : ''}.`;
      return { text: sentence, details: { allowedValues: allowed, commonWrongValues: wrong } };
    }
    case 'declared_limit': {
      const above = groups.some((g) => g.subtype === 'above_maximum');
      const limit = declaredLimit(input.schema, path, above ? 'max' : 'min')!;
      return {
        text: `${name()} must be ${above ? 'at most' : 'at least'} ${formatNumber(limit.value)}${limit.unit}.`,
        details: { limit: limit.value },
      };
    }
    case 'learned_limit':
      return renderLearnedLimit(name(), path, groups, input);
    default:
      return null;
  }
}

/**
 * A learned limit as data, kept in the warning's evidence so validate can apply it: a value beyond `value` fails
 * (`isInclusive`: `value` itself fails too). Mirrors the registry's reading of it (src/registry/guard/learned-limits.ts).
 */
export interface LearnedLimit {
  argumentPath: string;
  bound: 'upper' | 'lower';
  value: number;
  isInclusive: boolean;
  reason: 'overflow' | 'out of range';
}

/**
 * The limit a model cannot see in the schema: between the largest value known to succeed and the smallest that failed.
 * Stated only when the two do not overlap, so the warning never forbids values that work.
 */
function renderLearnedLimit(name: string, path: string, groups: GroupEvidence[], input: ToolEvidence): Rendered | null {
  const failedValues = groups.flatMap((g) => [g.minOffendingValue, g.maxOffendingValue]).filter((v): v is number => v !== null);
  const isBelow = groups.every((g) => g.subtype === 'below_minimum');
  const reason = groups.some((g) => g.category === 'overflow') ? 'overflow' : 'out of range';
  const range = input.argumentRanges.find((r) => r.argumentPath === path);
  if (failedValues.length === 0) return null;
  if (isBelow) {
    const largestFailed = Math.max(...failedValues);
    if (range && range.minValue <= largestFailed) return null;
    const text = range
      ? `${name} below ${formatNumber(range.minValue)} fails (${reason}).`
      : `${name} of ${formatNumber(largestFailed)} or less fails (${reason}).`;
    const learnedLimit: LearnedLimit = range
      ? { argumentPath: path, bound: 'lower', value: range.minValue, isInclusive: false, reason }
      : { argumentPath: path, bound: 'lower', value: largestFailed, isInclusive: true, reason };
    return { text, details: { smallestSucceeded: range?.minValue ?? null, largestFailed, learnedLimit }, confidenceBoost: range ? 1 : 0.8 };
  }
  const smallestFailed = Math.min(...failedValues);
  if (range && range.maxValue >= smallestFailed) return null;
  const text = range
    ? `${name} above ${formatNumber(range.maxValue)} fails (${reason}).`
    : `${name} of ${formatNumber(smallestFailed)} or more fails (${reason}).`;
  const learnedLimit: LearnedLimit = range
    ? { argumentPath: path, bound: 'upper', value: range.maxValue, isInclusive: false, reason }
    : { argumentPath: path, bound: 'upper', value: smallestFailed, isInclusive: true, reason };
  return { text, details: { largestSucceeded: range?.maxValue ?? null, smallestFailed, learnedLimit }, confidenceBoost: range ? 1 : 0.8 };
}

function reviewDescription(input: ToolEvidence, specificCount: number, totalErrors: number): RecommendationDraft | null {
  const stats = input.stats;
  if (specificCount > 0 || !stats || stats.calls < MIN_CALLS_FOR_REVIEW || stats.successRate === null) return null;
  const isLow = stats.successRate < LOW_SUCCESS_RATE;
  const isFalling = stats.prev7SuccessRate !== null && stats.prev7SuccessRate - stats.successRate >= FALLING_SUCCESS_RATE;
  if (!isLow && !isFalling) return null;
  // without an error group (a person ignored them all) there is nothing to name, and nothing a review would add
  const top = [...input.groups].sort((a, b) => b.count - a.count).slice(0, 3);
  if (top.length === 0) return null;
  const fragments = new UntrustedFragments();
  fragments.freeText('the error messages quoted');
  const trend = isFalling ? ` (down from ${percent(stats.prev7SuccessRate!)} over the previous 7 days)` : '';
  const seen = `no warning fits its errors, most often ${top.map((g) => `${g.category} "${g.messageTemplate.slice(0, 80)}" (${g.count})`).join('; ')}`;
  return {
    tool: input.tool,
    kind: 'review_description',
    evidenceKey: 'review_description:',
    text: `Success rate ${percent(stats.successRate)}${trend} in ${formatNumber(stats.calls)} calls; ${seen}. Review this tool's description.`,
    confidence: 0.5,
    evidence: {
      ...evidenceOf(top, totalErrors),
      successRate: stats.successRate,
      prev7SuccessRate: stats.prev7SuccessRate,
      calls: stats.calls,
      topErrorGroupIds: top.map((g) => g.id),
      ...reviewMark(fragments),
    },
  };
}

function numericArgumentOf(group: GroupEvidence, input: ToolEvidence): string | null {
  for (const id of group.sampleEventIds) {
    const args = input.sampleArguments.get(id);
    if (args === null || typeof args !== 'object' || Array.isArray(args)) continue;
    const numeric = Object.entries(args).filter(([, value]) => typeof value === 'number');
    if (numeric.length === 1) return `/${escapePointerSegment(numeric[0][0])}`;
  }
  return null;
}

function sampleValues(groups: GroupEvidence[], path: string, input: ToolEvidence): unknown[] {
  const name = argumentName(path);
  const values: unknown[] = [];
  for (const id of groups.flatMap((g) => g.sampleEventIds)) {
    const args = input.sampleArguments.get(id);
    if (args !== null && typeof args === 'object' && !Array.isArray(args) && Object.hasOwn(args, name)) {
      values.push((args as Record<string, unknown>)[name]);
    }
  }
  return values;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function mostCommon<T>(values: T[]): T | undefined {
  return mostCommonValues(values, 1)[0];
}

function mostCommonValues<T>(values: T[], limit: number): T[] {
  const counts = new Map<string, { value: T; count: number }>();
  for (const value of values) {
    const key = JSON.stringify(value) ?? String(value);
    const entry = counts.get(key) ?? { value, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, limit)
    .map((e) => e.value);
}

export function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
