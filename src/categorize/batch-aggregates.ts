import { LATENCY_BUCKET_BOUNDS_MS, latencyBucketIndex } from '../diagnosis';
import { COLUMN_CHARS, columnText } from './column-text';
import { StoredEventRow } from './stored-event';

export const SAMPLE_EVENTS_PER_GROUP = 5;

export interface ErrorGroupDelta {
  id: string;
  fingerprint: string;
  tool: string;
  category: string;
  subtype: string | null;
  argumentPath: string | null;
  messageTemplate: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  sampleEventIds: string[];
  intendedArgument: string | null;
  arrayForScalarCount: number;
  minOffendingValue: number | null;
  maxOffendingValue: number | null;
}

/** Numeric top-level arguments of successful calls: what a tool is known to accept (to learn unstated limits). */
export interface ArgumentRangeDelta {
  tool: string;
  argumentPath: string;
  successCount: number;
  minValue: number;
  maxValue: number;
}

/** Calls per description version and UTC day (version 0: not reported), to measure a warning's effect. */
export interface VersionRollupDelta {
  tool: string;
  day: string;
  descriptionVersion: number;
  calls: number;
  errors: number;
}

/** Mistakes (category, subtype, argument path) per description version and day. */
export interface MistakeRollupDelta {
  tool: string;
  day: string;
  descriptionVersion: number;
  category: string;
  subtype: string;
  argumentPath: string;
  count: number;
}

export interface HourlyRollupDelta {
  tool: string;
  hour: Date;
  calls: number;
  errors: number;
  latencyCount: number;
  latencySumMs: number;
  latencyBuckets: number[];
}

export interface HourlyErrorRollupDelta {
  tool: string;
  hour: Date;
  category: string;
  subtype: string;
  count: number;
}

/** Start of the UTC hour an instant falls in. */
export function hourOf(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / 3_600_000) * 3_600_000);
}

/** The UTC calendar day of an instant, as YYYY-MM-DD. */
export function dayOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

// bounds the work one odd event (hundreds of numeric arguments) can cause
const MAX_RANGED_ARGUMENTS_PER_EVENT = 20;

/**
 * A duration counts into latency sums as at most this (31 years): at most 2^31 of them per rollup row (an int count)
 * then sum to about 2e21, so a float8 sum can never overflow, whatever an event reports.
 */
export const MAX_ROLLUP_DURATION_MS = 1e12;

/**
 * Folds newly stored events into per-group and per-hour increments. Results are sorted by key, so concurrent
 * batches lock rows in the same order and cannot deadlock.
 */
export function aggregateBatch(rows: readonly StoredEventRow[]) {
  const groups = new Map<string, ErrorGroupDelta>();
  const hourly = new Map<string, HourlyRollupDelta>();
  const hourlyErrors = new Map<string, HourlyErrorRollupDelta>();
  const argumentRanges = new Map<string, ArgumentRangeDelta>();
  const versions = new Map<string, VersionRollupDelta>();
  const mistakes = new Map<string, MistakeRollupDelta>();

  for (const row of rows) {
    const day = dayOf(row.occurredAt);
    const descriptionVersion = row.descriptionVersion ?? 0;
    const versionKey = `${row.tool}\u0000${day}\u0000${descriptionVersion}`;
    const versionRollup = versions.get(versionKey) ?? { tool: row.tool, day, descriptionVersion, calls: 0, errors: 0 };
    versions.set(versionKey, versionRollup);
    versionRollup.calls += 1;
    if (row.status === 'success') addArgumentRanges(argumentRanges, row);

    const hour = hourOf(row.occurredAt);
    const hourKey = `${row.tool}\u0000${hour.getTime()}`;
    let rollup = hourly.get(hourKey);
    if (!rollup) {
      rollup = {
        tool: row.tool,
        hour,
        calls: 0,
        errors: 0,
        latencyCount: 0,
        latencySumMs: 0,
        latencyBuckets: new Array(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0),
      };
      hourly.set(hourKey, rollup);
    }
    rollup.calls += 1;
    if (row.durationMs !== null) {
      rollup.latencyCount += 1;
      rollup.latencySumMs += Math.min(Math.max(row.durationMs, 0), MAX_ROLLUP_DURATION_MS);
      rollup.latencyBuckets[latencyBucketIndex(row.durationMs)] += 1;
    }
    const diagnosis = row.diagnosis;
    if (row.status !== 'error' || !diagnosis) continue;
    rollup.errors += 1;
    versionRollup.errors += 1;

    const argumentPath = diagnosis.argumentPath ?? '';
    const mistakeKey = `${versionKey}\u0000${diagnosis.category}\u0000${diagnosis.subtype ?? ''}\u0000${argumentPath}`;
    const mistake = mistakes.get(mistakeKey);
    if (mistake) mistake.count += 1;
    else {
      mistakes.set(mistakeKey, {
        tool: row.tool,
        day,
        descriptionVersion,
        category: diagnosis.category,
        subtype: diagnosis.subtype ?? '',
        argumentPath,
        count: 1,
      });
    }

    const subtype = diagnosis.subtype ?? '';
    const errorKey = `${hourKey}\u0000${diagnosis.category}\u0000${subtype}`;
    const errorRollup = hourlyErrors.get(errorKey);
    if (errorRollup) errorRollup.count += 1;
    else hourlyErrors.set(errorKey, { tool: row.tool, hour, category: diagnosis.category, subtype, count: 1 });

    const group = groups.get(diagnosis.fingerprint);
    if (!group) {
      groups.set(diagnosis.fingerprint, {
        id: diagnosis.errorGroupId,
        fingerprint: diagnosis.fingerprint,
        tool: row.tool,
        category: diagnosis.category,
        subtype: diagnosis.subtype,
        argumentPath: diagnosis.argumentPath,
        messageTemplate: diagnosis.messageTemplate,
        count: 1,
        firstSeen: row.occurredAt,
        lastSeen: row.occurredAt,
        sampleEventIds: [row.id],
        intendedArgument: diagnosis.intendedArgument,
        arrayForScalarCount: diagnosis.arrayForScalar ? 1 : 0,
        minOffendingValue: diagnosis.offendingValue,
        maxOffendingValue: diagnosis.offendingValue,
      });
      continue;
    }
    group.count += 1;
    if (row.occurredAt < group.firstSeen) group.firstSeen = row.occurredAt;
    if (row.occurredAt > group.lastSeen) group.lastSeen = row.occurredAt;
    if (group.sampleEventIds.length < SAMPLE_EVENTS_PER_GROUP) group.sampleEventIds.push(row.id);
    group.intendedArgument ??= diagnosis.intendedArgument;
    if (diagnosis.arrayForScalar) group.arrayForScalarCount += 1;
    const value = diagnosis.offendingValue;
    if (value !== null) {
      group.minOffendingValue = group.minOffendingValue === null ? value : Math.min(group.minOffendingValue, value);
      group.maxOffendingValue = group.maxOffendingValue === null ? value : Math.max(group.maxOffendingValue, value);
    }
  }

  return {
    groups: sortedValues(groups),
    hourly: sortedValues(hourly),
    hourlyErrors: sortedValues(hourlyErrors),
    argumentRanges: sortedValues(argumentRanges),
    versions: sortedValues(versions),
    mistakes: sortedValues(mistakes),
  };
}

function addArgumentRanges(ranges: Map<string, ArgumentRangeDelta>, row: StoredEventRow) {
  const args = row.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return;
  let ranged = 0;
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (++ranged > MAX_RANGED_ARGUMENTS_PER_EVENT) return;
    const argumentPath = columnText(`/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, COLUMN_CHARS.argumentPath);
    const key = `${row.tool}\u0000${argumentPath}`;
    const range = ranges.get(key);
    if (!range) {
      ranges.set(key, { tool: row.tool, argumentPath, successCount: 1, minValue: value, maxValue: value });
      continue;
    }
    range.successCount += 1;
    range.minValue = Math.min(range.minValue, value);
    range.maxValue = Math.max(range.maxValue, value);
  }
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
}
