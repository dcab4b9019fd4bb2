import { LATENCY_BUCKET_BOUNDS_MS, latencyBucketIndex } from '../diagnosis';
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

/**
 * Folds newly stored events into per-group and per-hour increments. Results are sorted by key, so concurrent
 * batches lock rows in the same order and cannot deadlock.
 */
export function aggregateBatch(rows: readonly StoredEventRow[]) {
  const groups = new Map<string, ErrorGroupDelta>();
  const hourly = new Map<string, HourlyRollupDelta>();
  const hourlyErrors = new Map<string, HourlyErrorRollupDelta>();

  for (const row of rows) {
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
      rollup.latencySumMs += row.durationMs;
      rollup.latencyBuckets[latencyBucketIndex(row.durationMs)] += 1;
    }
    const diagnosis = row.diagnosis;
    if (row.status !== 'error' || !diagnosis) continue;
    rollup.errors += 1;

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
      });
      continue;
    }
    group.count += 1;
    if (row.occurredAt < group.firstSeen) group.firstSeen = row.occurredAt;
    if (row.occurredAt > group.lastSeen) group.lastSeen = row.occurredAt;
    if (group.sampleEventIds.length < SAMPLE_EVENTS_PER_GROUP) group.sampleEventIds.push(row.id);
  }

  return {
    groups: sortedValues(groups),
    hourly: sortedValues(hourly),
    hourlyErrors: sortedValues(hourlyErrors),
  };
}

function sortedValues<T>(map: Map<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
}
