import { FieldError } from '../infra/http/api-error';
import { INSTANT_RANGE_TEXT, isStorableInstant, LATEST_INSTANT } from '../infra/http/storable-values';

export type Bucket = 'hour' | 'day';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 7;
/** Longest range per bucket: hourly series are read from hourly rollups, so they stay short. */
export const MAX_RANGE_DAYS: Readonly<Record<Bucket, number>> = { hour: 31, day: 400 };

export interface StatsRange {
  /** Inclusive start, aligned to the bucket. */
  from: Date;
  /** Exclusive end, aligned to the bucket. */
  to: Date;
  bucket: Bucket;
}

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A YYYY-MM-DD day (UTC midnight) or an ISO date-time; null when it is neither or not a real date. */
export function parseInstant(value: string): Date | null {
  if (DAY_ONLY.test(value)) {
    const date = new Date(`${value}T00:00:00.000Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) ? date : null;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function floorTo(date: Date, bucket: Bucket): Date {
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  return new Date(Math.floor(date.getTime() / size) * size);
}

export function ceilTo(date: Date, bucket: Bucket): Date {
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  return new Date(Math.ceil(date.getTime() / size) * size);
}

/**
 * Resolves `from`/`to` (default: the last 7 days up to `now`) into whole buckets: `from` is floored and `to` ceiled to
 * the bucket, so the answer covers today's partial day (or this partial hour). Returns the field errors instead when the
 * input is unusable, so the caller answers 400 naming the parameter.
 */
export function resolveRange(
  input: { from?: string; to?: string; bucket?: Bucket },
  now: Date,
): { range: StatsRange } | { errors: FieldError[] } {
  const bucket = input.bucket ?? 'day';
  const errors: FieldError[] = [];
  const to = input.to === undefined ? now : parseInstant(input.to);
  if (!to) errors.push({ path: '/query/to', message: 'must be an ISO date-time or YYYY-MM-DD' });
  let from = input.from === undefined ? null : parseInstant(input.from);
  if (input.from !== undefined && !from) errors.push({ path: '/query/from', message: 'must be an ISO date-time or YYYY-MM-DD' });
  if (errors.length > 0 || !to) return { errors };
  if (input.to !== undefined && !isStorableInstant(to)) errors.push({ path: '/query/to', message: `must be ${INSTANT_RANGE_TEXT}` });
  if (from && !isStorableInstant(from)) errors.push({ path: '/query/from', message: `must be ${INSTANT_RANGE_TEXT}` });
  if (errors.length > 0) return { errors };
  from ??= new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) return { errors: [{ path: '/query/from', message: 'must be before to' }] };
  const range = { from: floorTo(from, bucket), to: ceilTo(to, bucket), bucket };
  if (range.to.getTime() > LATEST_INSTANT.getTime()) {
    return { errors: [{ path: '/query/to', message: `rounded up to a whole ${bucket}, must be ${INSTANT_RANGE_TEXT}` }] };
  }
  const maxDays = MAX_RANGE_DAYS[bucket];
  if (range.to.getTime() - range.from.getTime() > maxDays * DAY_MS) {
    return { errors: [{ path: '/query/from', message: `must be at most ${maxDays} days before to for bucket=${bucket}` }] };
  }
  return { range };
}

/** The range of the same length right before `range`, for trends. */
export function previousRange(range: StatsRange): StatsRange {
  const span = range.to.getTime() - range.from.getTime();
  return { from: new Date(range.from.getTime() - span), to: range.from, bucket: range.bucket };
}

/** Start of every bucket in the range, oldest first. */
export function bucketStarts(range: StatsRange): Date[] {
  const size = range.bucket === 'hour' ? HOUR_MS : DAY_MS;
  const starts: Date[] = [];
  for (let t = range.from.getTime(); t < range.to.getTime(); t += size) starts.push(new Date(t));
  return starts;
}

/**
 * Splits a day-aligned range into the runs of days the nightly job has not computed, so those (and only those) are
 * read from the hourly rollups; each run is [from, to).
 */
export function uncoveredIntervals(range: StatsRange, coveredDays: ReadonlySet<number>): Array<{ from: Date; to: Date }> {
  const intervals: Array<{ from: Date; to: Date }> = [];
  let start: number | null = null;
  const first = floorTo(range.from, 'day').getTime();
  for (let t = first; t < range.to.getTime(); t += DAY_MS) {
    if (coveredDays.has(t)) {
      if (start !== null) intervals.push({ from: new Date(Math.max(start, range.from.getTime())), to: new Date(t) });
      start = null;
    } else if (start === null) {
      start = t;
    }
  }
  if (start !== null) intervals.push({ from: new Date(Math.max(start, range.from.getTime())), to: range.to });
  return intervals;
}
