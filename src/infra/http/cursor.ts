import type { FieldError } from './api-error';
import { invalidQuery } from './query-validator';
import { isStorableInstant, unstorableTextReason } from './storable-values';

/** Opaque pagination cursors: base64url of a small JSON value. Undecodable input yields undefined. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Decodes a cursor and reads its value with `read`, or throws 400 invalid_query naming /query/cursor. */
export function readCursor<T>(cursor: string, read: (value: unknown) => T | undefined, message?: string): T {
  const value = read(decodeCursor(cursor));
  if (value === undefined) throw invalidQuery([cursorProblem(message)]);
  return value;
}

/** The keyset cursor of [ISO instant, id] that the list routes issue, or 400 invalid_query naming /query/cursor. */
export function readInstantCursor(cursor: string): { at: Date; id: string } {
  return readCursor(cursor, instantKeyOf);
}

/** As readInstantCursor, but undefined instead of a 400, for a reader that reports every bad parameter at once. */
export function decodeInstantCursor(cursor: string): { at: Date; id: string } | undefined {
  return instantKeyOf(decodeCursor(cursor));
}

/** What a list route answers about a cursor it did not issue: forged, truncated, or from another list or sort. */
export function cursorProblem(message = 'is not a cursor this API issued'): FieldError {
  return { path: '/query/cursor', message };
}

/** Its instant must lie inside what we store: a forged cursor must be a 400, not a query Postgres refuses. */
function instantKeyOf(value: unknown): { at: Date; id: string } | undefined {
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return undefined;
  if (unstorableTextReason(value[1]) !== null) return undefined;
  const at = new Date(value[0]);
  return isStorableInstant(at) ? { at, id: value[1] } : undefined;
}
