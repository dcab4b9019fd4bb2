/**
 * Repeated calls: a session that makes the same call (tool and canonical arguments) more than MAX_IDENTICAL_CALLS times,
 * whether the calls succeed or fail, spends steps and tokens on an answer it already has. Counted per tool, day and
 * description version (daily_session_rollups); a tool whose sessions keep repeating gets a warning that says the
 * answer does not change on retry, measured like every other warning (metric: repeated calls per call, with repeats
 * per session beside it). Failing repeats beyond MAX_IDENTICAL_FAILURES are also a loop (loop-rules.ts). Pure.
 */

import { UntrustedFragments } from '@toolcoach/core';
import { type RecommendationDraft, reviewMark } from './recommendation-drafts';
import type { RepeatedFailure } from './loop-rules';

/** A session may make one call twice (one retry is normal); each identical call beyond the second is a repeat. */
export const MAX_IDENTICAL_CALLS = 2;
/** Days of session rollups a repeated_call recommendation is drawn from, ending with the nightly's day. */
export const REPEAT_WINDOW_DAYS = 7;
/** Fewer sessions with repeats than this are one agent's habit, not something the description can fix. */
export const MIN_SESSIONS_WITH_REPEATS = 3;
/** The declared arguments named in "once per ..." at most. */
const MAX_NAMED_ARGUMENTS = 3;

/** One tool's session rollups summed over the window. */
export interface ToolRepeats {
  tool: string;
  sessions: number;
  calls: number;
  steps: number;
  repeatedCalls: number;
  sessionsWithRepeats: number;
  firstDay: Date;
  lastDay: Date;
}

/** A tool's repeats and what the draft needs besides: its registered schema and the day's most repeated calls. */
export interface RepeatEvidence {
  repeats: ToolRepeats;
  schema: Record<string, unknown> | null;
  /** The day's calls a session repeated beyond MAX_IDENTICAL_CALLS (successful or not), most repeated first. */
  examples: readonly RepeatedFailure[];
}

export function repeatsPerSession(repeatedCalls: number, sessions: number): number | null {
  return sessions > 0 ? round(repeatedCalls / sessions) : null;
}

/** A repeated_call draft for a tool whose sessions repeat calls often enough; null otherwise. */
export function deriveRepeatRecommendation({ repeats, schema, examples }: RepeatEvidence): RecommendationDraft | null {
  if (repeats.sessionsWithRepeats < MIN_SESSIONS_WITH_REPEATS || repeats.repeatedCalls === 0) return null;
  const fragments = new UntrustedFragments();
  const names = requiredArguments(schema).slice(0, MAX_NAMED_ARGUMENTS);
  const unit = names.length > 0 ? names.map((name) => fragments.name('argument name', name)).join(' and ') : 'set of arguments';
  const sorted = [...examples].sort((a, b) => b.count - a.count || a.sessionId.localeCompare(b.sessionId));
  const share = repeats.calls > 0 ? round(repeats.repeatedCalls / repeats.calls) : 0;
  return {
    tool: repeats.tool,
    kind: 'repeated_call',
    evidenceKey: 'repeated_call:',
    text: `Call this tool once per ${unit}; the answer does not change on retry.`,
    confidence: round(Math.min(0.99, 0.5 + 0.05 * repeats.sessionsWithRepeats)),
    evidence: {
      count: repeats.repeatedCalls,
      share,
      firstSeen: repeats.firstDay.toISOString(),
      lastSeen: new Date(Math.max(repeats.lastDay.getTime(), ...sorted.map((e) => e.lastSeen.getTime()))).toISOString(),
      exampleEventIds: sorted.slice(0, 5).map((example) => example.exampleEventId),
      errorGroupIds: [],
      match: { categories: [], subtypes: [], argumentPaths: [], isRepeatedCall: true },
      sessions: repeats.sessions,
      sessionsWithRepeats: repeats.sessionsWithRepeats,
      repeatsPerSession: repeatsPerSession(repeats.repeatedCalls, repeats.sessions),
      sessionIds: [...new Set(sorted.map((example) => example.sessionId))].slice(0, 20),
      maxIdenticalCalls: MAX_IDENTICAL_CALLS,
      ...reviewMark(fragments),
    },
  };
}

/** The schema's required top-level arguments, in their declared order: what one call is "per". */
function requiredArguments(schema: Record<string, unknown> | null): string[] {
  const required = schema?.required;
  if (!Array.isArray(required)) return [];
  const properties = (schema?.properties ?? {}) as Record<string, unknown>;
  return required.filter((name): name is string => typeof name === 'string' && Object.hasOwn(properties, name));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
