/**
 * Loops: a session that repeats the same failing call (same tool, same arguments) more than MAX_IDENTICAL_FAILURES
 * times is a mistake of its own kind: the model is not reading the error, so the error message does not tell it how to
 * fix the call. One recommendation per tool, for a person to review (never applied to a description). Pure.
 */

import type { RecommendationDraft } from './recommendation-drafts';

/** A session may repeat one failing call this many times; one more is a loop (6 identical failures by default). */
export const MAX_IDENTICAL_FAILURES = 5;
/** Loops read per project and day, most repeated first: the work stays bounded whatever the agents did. */
export const MAX_LOOPS_PER_DAY = 200;
const MAX_EVIDENCE_SESSIONS = 20;
/** The looping call's error message, as evidence for the person who fixes it: data, never rendered for a model. */
export const MAX_LOOP_MESSAGE_CHARS = 300;

/** Why a loop recommendation is never applied as a warning (kept in the evidence as `proposalOnly`). */
export const LOOP_REVIEW_ONLY = "a review for people: the fix is in the tool's error message, not in its description";

/** One session's repeats of one failing call, as the nightly finds them in the day's events. */
export interface RepeatedFailure {
  tool: string;
  sessionId: string;
  /** md5 of the arguments as stored (jsonb text: key order normalized). */
  argumentsHash: string;
  count: number;
  exampleEventId: string;
  category: string | null;
  /** One of the identical calls' error messages (they are usually the same), cut to MAX_LOOP_MESSAGE_CHARS. */
  errorMessage: string | null;
  firstSeen: Date;
  lastSeen: Date;
}

/** One draft per tool that looped, its sessions as evidence (most repeats first). */
export function deriveLoopRecommendations(loops: readonly RepeatedFailure[]): RecommendationDraft[] {
  const byTool = new Map<string, RepeatedFailure[]>();
  for (const loop of loops) byTool.set(loop.tool, [...(byTool.get(loop.tool) ?? []), loop]);
  const drafts: RecommendationDraft[] = [];
  for (const [tool, list] of byTool) {
    const sorted = [...list].sort((a, b) => b.count - a.count || a.sessionId.localeCompare(b.sessionId));
    const calls = sorted.reduce((n, loop) => n + loop.count, 0);
    const longest = sorted[0].count;
    const sessions = new Set(sorted.map((loop) => loop.sessionId));
    drafts.push({
      tool,
      kind: 'loop',
      evidenceKey: 'loop:',
      text:
        `The error message of this tool does not tell the model how to fix the call: ${sessions.size} ` +
        `${sessions.size === 1 ? 'session' : 'sessions'} repeated the same failing call (up to ${longest} times). ` +
        'Make the error say what was wrong and what a correct call looks like.',
      confidence: Math.min(0.99, 0.5 + 0.1 * sessions.size),
      evidence: {
        count: calls,
        share: 0,
        firstSeen: new Date(Math.min(...sorted.map((loop) => loop.firstSeen.getTime()))).toISOString(),
        lastSeen: new Date(Math.max(...sorted.map((loop) => loop.lastSeen.getTime()))).toISOString(),
        exampleEventIds: sorted.slice(0, 5).map((loop) => loop.exampleEventId),
        errorGroupIds: [],
        match: { categories: [...new Set(sorted.map((loop) => loop.category ?? ''))], subtypes: [], argumentPaths: [] },
        sessionIds: [...sessions].slice(0, MAX_EVIDENCE_SESSIONS),
        loops: sorted.slice(0, MAX_EVIDENCE_SESSIONS).map((loop) => ({
          sessionId: loop.sessionId,
          argumentsHash: loop.argumentsHash,
          repeats: loop.count,
          errorMessage: loop.errorMessage,
        })),
        maxIdenticalFailures: MAX_IDENTICAL_FAILURES,
        proposalOnly: LOOP_REVIEW_ONLY,
      },
    });
  }
  return drafts;
}
