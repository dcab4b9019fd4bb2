/**
 * Tool confusion (docs/tool-confusion.md): in one session, a call to tool A whose answer was an error, empty or
 * discarded, followed soon by a successful call to tool B with overlapping arguments (the same value under the same or
 * a matching name), is a confusion of A for B: the model picked the wrong one of two tools, then the right one.
 * Counted per ordered pair and description version of A, against the sessions that called A or B. Pure.
 */

import { matchArgumentName } from '@toolcoach/core';

/**
 * How soon B must follow A. A model's next step after a tool answer is one model turn (seconds, tens of seconds for a
 * slow model); two minutes covers that, while a later call with the same value is more likely a new task of a long
 * session than a second try at the same one.
 */
export const CONFUSION_WINDOW_MS = 120_000;
/** At most this many other calls between A and B: a retry comes within the next few steps, not ten calls later. */
export const MAX_CALLS_BETWEEN = 2;
/** Argument values compared per call: the work per pair of calls stays bounded whatever a call carries. */
export const MAX_COMPARED_VALUES = 32;
/** Sessions named per pair and version as examples (for people on the dashboard and in the evidence). */
export const MAX_EXAMPLE_SESSIONS = 5;

/** One call of a session as the nightly reads it. `result` is undefined when it was too large to read (not empty). */
export interface SessionCall {
  id: string;
  tool: string;
  sessionId: string;
  occurredAt: Date;
  isSuccess: boolean;
  descriptionVersion: number | null;
  arguments: unknown;
  result: unknown;
}

export type ConfusionReason = 'error' | 'empty' | 'discarded';

export interface Confusion {
  tool: string;
  confusedWith: string;
  sessionId: string;
  /** The description version of A the call reported (0: not reported). */
  version: number;
  eventId: string;
  confusedWithEventId: string;
  reason: ConfusionReason;
  /** B's argument names that carried one of A's values. */
  sharedArguments: string[];
}

/** One row of the day's counts: an ordered pair at one description version of A. */
export interface ConfusionCount {
  tool: string;
  confusedWith: string;
  descriptionVersion: number;
  confusions: number;
  confusedSessions: number;
  sessions: number;
  exampleSessionIds: string[];
}

/** The confusions of one session's calls, given in the order they happened. Only `registered` tools count. */
export function findSessionConfusions(calls: readonly SessionCall[], registered: ReadonlySet<string>): Confusion[] {
  const confusions: Confusion[] = [];
  for (let i = 0; i < calls.length; i++) {
    const first = calls[i];
    if (!registered.has(first.tool)) continue;
    const reason = answerReason(first);
    for (let j = i + 1; j < calls.length && j <= i + 1 + MAX_CALLS_BETWEEN; j++) {
      const next = calls[j];
      if (next.occurredAt.getTime() - first.occurredAt.getTime() > CONFUSION_WINDOW_MS) break;
      if (next.tool === first.tool || !next.isSuccess || !registered.has(next.tool)) continue;
      const shared = sharedArgumentNames(first.arguments, next.arguments);
      if (shared.length === 0) continue;
      const why = reason ?? (j === i + 1 && !usesAnswer(first, next) ? 'discarded' : null);
      if (why === null) continue;
      confusions.push({
        tool: first.tool,
        confusedWith: next.tool,
        sessionId: first.sessionId,
        version: first.descriptionVersion ?? 0,
        eventId: first.id,
        confusedWithEventId: next.id,
        reason: why,
        sharedArguments: shared,
      });
      // one confusion per call of A: the first B that fits is the tool the model meant
      break;
    }
  }
  return confusions;
}

/** 'error' or 'empty' when A's answer gave the model nothing; null for a useful answer (it may still be discarded). */
function answerReason(call: SessionCall): ConfusionReason | null {
  if (!call.isSuccess) return 'error';
  return isEmptyAnswer(call.result) ? 'empty' : null;
}

/**
 * An answer with nothing in it: null, blank text, [] or {}, or an object whose every field is such a value, 0 or false
 * (`{"orders": [], "total": 0}`), also as JSON text (frameworks hand tool results to the model as text), or a short
 * "no results" sentence. A result too large to read (undefined) is not empty.
 */
export function isEmptyAnswer(result: unknown, depth = 0): boolean {
  if (result === null) return true;
  if (typeof result === 'string') return isEmptyText(result, depth);
  if (Array.isArray(result)) return result.length === 0;
  if (typeof result === 'object' && result !== undefined) {
    const values = Object.values(result as Record<string, unknown>);
    if (values.length === 0) return true;
    if (depth > 0 || values.length > 8) return false;
    return values.every((value) => value === 0 || value === false || isEmptyAnswer(value, depth + 1));
  }
  return false;
}

// "No results.", "0 orders found", "None", "Not found": what tools answer in words when they found nothing
const NOTHING_FOUND =
  /^(?:(?:no|0|zero) (?:[a-z]+ )?(?:results?|matches|items|records|entries|rows|[a-z]+s)(?: found| were found)?|none|nothing found|not found)[.!]?$/i;
const MAX_PARSED_TEXT_CHARS = 2000;

function isEmptyText(text: string, depth: number): boolean {
  const trimmed = text.trim();
  if (trimmed === '' || NOTHING_FOUND.test(trimmed)) return true;
  if (depth > 0 || trimmed.length > MAX_PARSED_TEXT_CHARS || !/^[[{]/.test(trimmed)) return false;
  try {
    return isEmptyAnswer(JSON.parse(trimmed) as unknown, depth);
  } catch {
    return false;
  }
}

/**
 * The names of B's arguments that carry one of A's values, under the same name or a name @toolcoach/core's matcher
 * takes for it (orderId for order_id, order_ids for order_id). Only strings and numbers count: true or 10 in two
 * calls says nothing about the model meaning the same thing.
 */
export function sharedArgumentNames(first: unknown, next: unknown): string[] {
  const a = comparableValues(first);
  const b = comparableValues(next);
  if (a.length === 0 || b.length === 0) return [];
  const bNames = b.map(([name]) => name);
  const shared = new Set<string>();
  for (const [name, value] of a) {
    const sameName = b.find(([other]) => other === name);
    const matched = sameName ? name : matchArgumentName(name, bNames);
    if (matched === null) continue;
    const other = b.find(([candidate]) => candidate === matched);
    if (other && other[1] === value) shared.add(matched);
  }
  return [...shared].sort();
}

/** Top-level string (non-blank) and number values of an arguments object, at most MAX_COMPARED_VALUES. */
function comparableValues(args: unknown): Array<[string, string | number]> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  const values: Array<[string, string | number]> = [];
  for (const [name, value] of Object.entries(args as Record<string, unknown>)) {
    if (values.length >= MAX_COMPARED_VALUES) break;
    if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))) {
      values.push([name, value]);
    }
  }
  return values;
}

/** Whether B took a value from A's answer that A was not given: then B built on A's answer rather than replacing it. */
function usesAnswer(first: SessionCall, next: SessionCall): boolean {
  const given = new Set(comparableValues(first.arguments).map(([, value]) => String(value)));
  const answered = new Set<string>();
  collectScalars(first.result, answered, 0);
  return comparableValues(next.arguments).some(([, value]) => answered.has(String(value)) && !given.has(String(value)));
}

const MAX_ANSWER_SCALARS = 500;

function collectScalars(value: unknown, into: Set<string>, depth: number): void {
  if (into.size >= MAX_ANSWER_SCALARS || depth > 4) return;
  if (typeof value === 'string' || typeof value === 'number') into.add(String(value));
  else if (Array.isArray(value)) for (const item of value.slice(0, 50)) collectScalars(item, into, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value as Record<string, unknown>).slice(0, 50)) collectScalars(item, into, depth + 1);
  }
}

/**
 * The day's counts per pair and version of A, for the pairs confused today and the `tracked` ones (pairs a warning
 * or a proposal is about: their denominators are needed even on a day without a confusion). A session that called A
 * or B counts once per pair, at the version of A it saw: that of its first call of A; a session that never called A
 * (it went to B at once) at the version the project's call of A nearest in time reported, since an alternating
 * canary serves one version to every caller at a time; 0 when the day has no call of A.
 */
export function countConfusions(
  sessions: ReadonlyMap<string, readonly SessionCall[]>,
  registered: ReadonlySet<string>,
  tracked: ReadonlyArray<{ tool: string; confusedWith: string }>,
): { counts: ConfusionCount[]; confusions: Confusion[] } {
  const confusions = [...sessions.values()].flatMap((calls) => findSessionConfusions(calls, registered));
  const pairs = new Map<string, { tool: string; confusedWith: string }>();
  for (const pair of [...confusions, ...tracked])
    pairs.set(pairKey(pair.tool, pair.confusedWith), { tool: pair.tool, confusedWith: pair.confusedWith });
  const timelines = versionTimelines(sessions, new Set([...pairs.values()].map((pair) => pair.tool)));
  const rows = new Map<string, ConfusionCount>();
  const rowOf = (tool: string, confusedWith: string, version: number) => {
    const key = `${pairKey(tool, confusedWith)}\u0000${version}`;
    let row = rows.get(key);
    if (!row) {
      row = { tool, confusedWith, descriptionVersion: version, confusions: 0, confusedSessions: 0, sessions: 0, exampleSessionIds: [] };
      rows.set(key, row);
    }
    return row;
  };
  const bySession = new Map<string, Confusion[]>();
  for (const confusion of confusions) {
    const key = `${pairKey(confusion.tool, confusion.confusedWith)}\u0000${confusion.sessionId}`;
    bySession.set(key, [...(bySession.get(key) ?? []), confusion]);
  }
  for (const { tool, confusedWith } of pairs.values()) {
    for (const [sessionId, calls] of sessions) {
      const own = calls.filter((call) => call.tool === tool || call.tool === confusedWith);
      if (own.length === 0) continue;
      const version = sessionVersionOf(own, tool, timelines.get(tool) ?? []);
      const row = rowOf(tool, confusedWith, version);
      row.sessions += 1;
      const found = bySession.get(`${pairKey(tool, confusedWith)}\u0000${sessionId}`) ?? [];
      if (found.length === 0) continue;
      row.confusions += found.length;
      row.confusedSessions += 1;
      if (row.exampleSessionIds.length < MAX_EXAMPLE_SESSIONS) row.exampleSessionIds.push(sessionId);
    }
  }
  const counts = [...rows.values()].sort(
    (a, b) => a.tool.localeCompare(b.tool) || a.confusedWith.localeCompare(b.confusedWith) || a.descriptionVersion - b.descriptionVersion,
  );
  return { counts, confusions };
}

function pairKey(tool: string, confusedWith: string): string {
  return `${tool}\u0000${confusedWith}`;
}

type Timeline = Array<{ at: number; version: number }>;

/** Each tool's calls that reported a version, in time order. */
function versionTimelines(sessions: ReadonlyMap<string, readonly SessionCall[]>, tools: ReadonlySet<string>): Map<string, Timeline> {
  const timelines = new Map<string, Timeline>();
  for (const calls of sessions.values()) {
    for (const call of calls) {
      if (!tools.has(call.tool) || call.descriptionVersion === null) continue;
      const timeline = timelines.get(call.tool) ?? [];
      timeline.push({ at: call.occurredAt.getTime(), version: call.descriptionVersion });
      timelines.set(call.tool, timeline);
    }
  }
  for (const timeline of timelines.values()) timeline.sort((a, b) => a.at - b.at || a.version - b.version);
  return timelines;
}

function sessionVersionOf(calls: readonly SessionCall[], tool: string, timeline: Timeline): number {
  const own = calls.find((call) => call.tool === tool && call.descriptionVersion !== null);
  if (own) return own.descriptionVersion!;
  if (timeline.length === 0) return 0;
  const at = calls[0].occurredAt.getTime();
  // binary search for the first call at or after `at`; the nearer of it and the one before wins (the earlier on a tie)
  let low = 0;
  let high = timeline.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (timeline[mid].at < at) low = mid + 1;
    else high = mid;
  }
  const after = timeline[low];
  const before = timeline[low - 1];
  if (!before) return after.version;
  if (!after) return before.version;
  return at - before.at <= after.at - at ? before.version : after.version;
}
