// What Postgres can store, checked at the edge: a value accepted here never makes a query or a batch fail later.

/**
 * Instants we accept, in requests and in events. Postgres has no year 0 and our ISO-8601 text has four-digit years, so
 * the outer bounds are hard ones; the 1970 floor is ours: a tool call before the Unix epoch is a clock or a parsing bug.
 */
export const EARLIEST_INSTANT = new Date('1970-01-01T00:00:00.000Z');
export const LATEST_INSTANT = new Date('9999-12-31T23:59:59.999Z');
export const INSTANT_RANGE_TEXT = 'between 1970-01-01 and 9999-12-31 (UTC)';

export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST_INSTANT.getTime() && time <= LATEST_INSTANT.getTime();
}

/**
 * Why Postgres cannot store this text unchanged, or null when it can: text and jsonb cannot hold U+0000, and jsonb
 * refuses a lone UTF-16 surrogate. Changing either would make two different values equal, so they are refused.
 */
export function unstorableTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate';
  return null;
}

/** A key or parameter name as it can be shown in a JSON Pointer of an error: escaped, and printable. */
export function pointerSegment(name: string): string {
  return name.toWellFormed().replaceAll('\u0000', '\\u0000').replaceAll('~', '~0').replaceAll('/', '~1');
}
