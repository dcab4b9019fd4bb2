/**
 * Which daily partitions of `events` to create and which are past retention, from the clock and the catalog: pure, so
 * every rule is tested without a database. A partition holds the UTC day [day, day + 1) of received_at and is named
 * events_pYYYYMMDD; rows of a day without a partition wait in events_default.
 */

export const DAY_MS = 86_400_000;
/** Partitions exist this many days ahead of today, so a scheduler that is down for a week still loses no insert. */
export const PARTITION_DAYS_AHEAD = 7;
/** Rollups, error groups and daily stats (what the dashboard reads) are kept this long, whatever a project's raw retention. */
export const ROLLUP_RETENTION_DAYS = 400;
export const DEFAULT_PARTITION = 'events_default';
/** The bounds of a project's rawEventRetentionDays (a CHECK constraint in SQL says the same). */
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;

const PARTITION_NAME = /^events_p(\d{4})(\d{2})(\d{2})$/;

export interface ProjectRetention {
  projectId: string;
  rawEventRetentionDays: number;
}

/** Midnight UTC of the instant's day. */
export function startOfUtcDay(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / DAY_MS) * DAY_MS);
}

export function addDays(day: Date, days: number): Date {
  return new Date(day.getTime() + days * DAY_MS);
}

export function partitionNameOf(day: Date): string {
  return `events_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The day a partition name stands for, or null for a name that is not a daily partition (events_default). */
export function dayOfPartition(name: string): Date | null {
  const match = PARTITION_NAME.exec(name);
  if (!match) return null;
  const day = new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`);
  return Number.isNaN(day.getTime()) || partitionNameOf(day) !== name ? null : day;
}

/**
 * Before this instant a project's raw events are expired: the start of the UTC day `retentionDays` ago. Retention goes
 * by whole days, so an event is kept at least `retentionDays` and less than one day more, and an expired day is always
 * a whole partition.
 */
export function rawEventCutoff(now: Date, retentionDays: number): Date {
  return startOfUtcDay(addDays(now, -retentionDays));
}

export function rollupCutoff(now: Date): Date {
  return rawEventCutoff(now, ROLLUP_RETENTION_DAYS);
}

/** Whether every row of the day's partition is expired for this project. */
export function isDayExpired(day: Date, cutoff: Date): boolean {
  return addDays(day, 1).getTime() <= cutoff.getTime();
}

/**
 * The days that need a partition: today and PARTITION_DAYS_AHEAD after it, and every day waiting in the default
 * partition that some project still keeps; minus the days that have one.
 */
export function daysToCreate(
  now: Date,
  existingDays: readonly Date[],
  daysInDefault: readonly Date[],
  projects: readonly ProjectRetention[],
): Date[] {
  const today = startOfUtcDay(now);
  const wanted = Array.from({ length: PARTITION_DAYS_AHEAD + 1 }, (_, offset) => addDays(today, offset));
  const longestCutoff = rawEventCutoff(now, Math.max(0, ...projects.map((p) => p.rawEventRetentionDays)));
  wanted.push(...daysInDefault.map(startOfUtcDay).filter((day) => !isDayExpired(day, longestCutoff)));
  const existing = new Set(existingDays.map((day) => day.getTime()));
  const unique = new Map(wanted.filter((day) => !existing.has(day.getTime())).map((day) => [day.getTime(), day]));
  return [...unique.values()].sort((a, b) => a.getTime() - b.getTime());
}

export interface ExpiredPartition {
  name: string;
  day: Date;
  /** Projects whose rows in it are all expired; the others still keep some of the day. */
  expiredFor: string[];
  keptFor: string[];
}

/** Daily partitions that are expired for at least one project, oldest first. */
export function expiredPartitions(now: Date, partitionNames: readonly string[], projects: readonly ProjectRetention[]): ExpiredPartition[] {
  const result: ExpiredPartition[] = [];
  for (const name of partitionNames) {
    const day = dayOfPartition(name);
    if (day === null) continue;
    const expiredFor: string[] = [];
    const keptFor: string[] = [];
    for (const project of projects) {
      (isDayExpired(day, rawEventCutoff(now, project.rawEventRetentionDays)) ? expiredFor : keptFor).push(project.projectId);
    }
    if (expiredFor.length > 0) result.push({ name, day, expiredFor, keptFor });
  }
  return result.sort((a, b) => a.day.getTime() - b.day.getTime());
}
