import type { FieldError } from './api-error';

// What Postgres can store, checked at the edge: a value accepted here never makes a query or a batch fail later.

/**
 * Instants we accept, in requests and in events. Postgres has no year 0 and our ISO-8601 text has four-digit years, so
 * the outer bounds are hard ones; the 1970 floor is ours: a tool call before the Unix epoch is a clock or a parsing bug.
 */
export const EARLIEST_INSTANT = new Date('1970-01-01T00:00:00.000Z');
export const LATEST_INSTANT = new Date('9999-12-31T23:59:59.999Z');
export const INSTANT_RANGE_TEXT = 'between 1970-01-01 and 9999-12-31 (UTC)';

/** Whether `text` is a UUID, the only thing a uuid column accepts: anything else would be a 500 from Postgres, not a 404. */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

const NOT_FINITE = 'must be a finite number (1e309 and larger overflow to Infinity, which JSON cannot carry)';

/**
 * The first value in a JSON body or an event that would not be kept as it was sent, as a field error at its path: text
 * with NUL or a lone surrogate (value or key), or a number that is not finite (JSON.parse reads 1e309 as Infinity, and
 * JSON.stringify writes Infinity as null). Null when everything is storable as it is.
 */
export function firstUnstorableValue(value: unknown, path: string): FieldError | null {
  // Nearly every value is storable: a walk that builds no paths says so; only a refusal pays for finding where.
  return isSurelyStorable(value, Infinity, false) ? null : locateUnstorableValue(value, path);
}

/**
 * Whether every value in `value` is storable as it is and no array or object in it lies more than `maxDepth` levels
 * below it; false when unsure. `isTextStorable`: the JSON text it was parsed from already showed that no string or key
 * holds NUL or a lone surrogate (json-body-parser), so only numbers are judged. Every value of every event passes here
 * (issue 18): iterative, level by level, so a body may nest deeper than the call stack allows and a depth costs no
 * bookkeeping per value; scalars are judged where they are found, only containers are kept for the next level.
 */
export function isSurelyStorable(value: unknown, maxDepth: number, isTextStorable: boolean): boolean {
  if (typeof value !== 'object' || value === null) return isSurelyStorableScalar(value, isTextStorable);
  let level: object[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > maxDepth) return false;
    const next: object[] = [];
    for (let at = 0; at < level.length; at++) {
      const node = level[at];
      if (Array.isArray(node)) {
        for (let index = 0; index < node.length; index++) {
          const child: unknown = node[index];
          if (typeof child === 'object' && child !== null) next.push(child);
          else if (!isSurelyStorableScalar(child, isTextStorable)) return false;
        }
      } else {
        const keys = Object.keys(node);
        for (let index = 0; index < keys.length; index++) {
          if (!isTextStorable && !isStorableText(keys[index])) return false;
          const child: unknown = (node as Record<string, unknown>)[keys[index]];
          if (typeof child === 'object' && child !== null) next.push(child);
          else if (!isSurelyStorableScalar(child, isTextStorable)) return false;
        }
      }
    }
    level = next;
  }
  return true;
}

function isSurelyStorableScalar(value: unknown, isTextStorable: boolean): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return isTextStorable || typeof value !== 'string' || isStorableText(value);
}

const isStorableText = (text: string) => !text.includes('\u0000') && text.isWellFormed();

function locateUnstorableValue(value: unknown, path: string): FieldError | null {
  const pending: Array<[unknown, string]> = [[value, path]];
  while (pending.length > 0) {
    const [node, at] = pending.pop()!;
    if (typeof node === 'string') {
      const reason = unstorableTextReason(node);
      if (reason) return { path: at, message: reason };
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) return { path: at, message: NOT_FINITE };
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push([node[index], `${at}/${index}`]);
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index];
        const childPath = `${at}/${pointerSegment(key)}`;
        const reason = unstorableTextReason(key);
        if (reason) return { path: childPath, message: `has a key that ${reason}` };
        pending.push([child, childPath]);
      }
    }
  }
  return null;
}

/** A key or parameter name as it can be shown in a JSON Pointer of an error: escaped, and printable. */
export function pointerSegment(name: string): string {
  return name.toWellFormed().replaceAll('\u0000', '\\u0000').replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Cuts at most `maxChars` UTF-16 units, never between the two halves of a surrogate pair (jsonb refuses a lone one). */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const isPairCut = /[\uD800-\uDBFF]/.test(text[maxChars - 1]);
  return text.slice(0, isPairCut ? maxChars - 1 : maxChars);
}
