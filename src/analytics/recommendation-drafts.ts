/**
 * What every recommendation rule (recommendation-rules, unknown-tool-rules, loop-rules, schema-quality-rules,
 * tool-confusion-rules) reads and writes: the evidence of the stored error groups, and the draft with its evidence,
 * confidence and review mark.
 */

import type { ErrorGroupRow } from '../categorize';
import type { UntrustedFragments } from '@toolcoach/core';

export const RECOMMENDATION_KINDS = [
  'wrong_argument_name',
  'missing_argument',
  'type_mismatch',
  'malformed_arguments',
  'enum_values',
  'declared_limit',
  'learned_limit',
  'misnamed_tool',
  'review_description',
  'schema_quality',
  'loop',
  'tool_confusion',
  'repeated_call',
] as const;
export type RecommendationKind = (typeof RECOMMENDATION_KINDS)[number];

/** An error group the worker stored: the evidence a recommendation is drawn from. */
export type GroupEvidence = ErrorGroupRow;

export interface ArgumentRange {
  argumentPath: string;
  successCount: number;
  minValue: number;
  maxValue: number;
}

/** Which stored mistakes a recommendation is about: used to count them before and after its warning. */
export interface MistakeMatch {
  categories: string[];
  /** '' stands for no subtype / no argument path, as in the mistake rollups. */
  subtypes: string[];
  argumentPaths: string[];
  /** Mistakes at any argument path count (a schema_quality warning cannot know the names a model invents). */
  isAnyArgumentPath?: boolean;
  /** For a misnamed_tool warning: the mistakes are calls to this name (not a registered tool), not to the tool itself. */
  calledTool?: string;
  /** For a tool_confusion warning: the mistakes are confusions of the tool for this one (see tool-confusion). */
  confusedWith?: string;
  /** For a repeated_call warning: the mistakes are repeated identical calls (daily_session_rollups), not categories. */
  isRepeatedCall?: boolean;
}

export interface RecommendationDraft {
  tool: string;
  kind: RecommendationKind;
  evidenceKey: string;
  text: string;
  confidence: number;
  evidence: {
    count: number;
    share: number;
    firstSeen: string;
    lastSeen: string;
    exampleEventIds: string[];
    errorGroupIds: string[];
    match: MistakeMatch;
    [detail: string]: unknown;
  };
}

/** Error groups not seen for this long no longer shape recommendations. */
export const RECOMMENDATION_WINDOW_DAYS = 30;

/** `requiresReview` in the evidence keeps a recommendation from being applied without a human (see untrusted-text). */
export function reviewMark(fragments: UntrustedFragments): { requiresReview?: string } {
  const reason = fragments.reviewReason();
  return reason ? { requiresReview: reason } : {};
}

export function evidenceOf(groups: GroupEvidence[], totalErrors: number): RecommendationDraft['evidence'] {
  const count = sum(groups);
  return {
    count,
    share: totalErrors > 0 ? round(count / totalErrors) : 0,
    firstSeen: new Date(Math.min(...groups.map((g) => g.firstSeen.getTime()))).toISOString(),
    lastSeen: new Date(Math.max(...groups.map((g) => g.lastSeen.getTime()))).toISOString(),
    exampleEventIds: groups.flatMap((g) => g.sampleEventIds).slice(0, 5),
    errorGroupIds: groups.map((g) => g.id),
    match: {
      categories: [...new Set(groups.map((g) => g.category))],
      subtypes: [...new Set(groups.map((g) => g.subtype ?? ''))],
      argumentPaths: [...new Set(groups.map((g) => g.argumentPath ?? ''))],
    },
  };
}

/** More occurrences and a larger share of the tool's errors make a recommendation more certain (0..0.99). */
export function confidenceOf(count: number, totalErrors: number, boost = 1): number {
  if (count <= 0 || totalErrors <= 0) return 0;
  const share = count / totalErrors;
  return round(Math.min(0.99, Math.sqrt(share) * (1 - 1 / Math.sqrt(count + 1)) * boost));
}

function sum(groups: GroupEvidence[]): number {
  return groups.reduce((n, g) => n + g.count, 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
