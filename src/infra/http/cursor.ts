import type { FieldError } from './api-error';
import { invalidQuery } from './query-validator';
import { isStorableInstant, isUuid, unstorableTextReason } from './storable-values';

/**
 * Opaque pagination cursors: base64url of a small JSON value. A cursor comes back from the client, so everything in it
 * is checked against what the column it is compared with can hold (a uuid column, a varchar(128), an int4, timestamps
 * Postgres stores): a forged cursor is a 400 naming /query/cursor, never a query Postgres refuses with a 500.
 */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Cursors the API issues are short; a longer one is forged and not worth decoding. */
const MAX_CURSOR_LENGTH = 1024;

export function decodeCursor(cursor: string): unknown {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]*={0,2}$/.test(cursor)) return undefined;
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

/** What the id of a keyset cursor is compared with: a uuid column, or a text id of at most 128 characters (events). */
export type CursorIdKind = 'uuid' | 'text';

const MAX_TEXT_ID_LENGTH = 128;

/** The keyset cursor of [ISO instant, id] that the list routes issue, or 400 invalid_query naming /query/cursor. */
export function readInstantCursor(cursor: string, idKind: CursorIdKind): { at: Date; id: string } {
  return readCursor(cursor, (value) => instantKeyOf(value, idKind));
}

/** As readInstantCursor, but undefined instead of a 400, for a reader that reports every bad parameter at once. */
export function decodeInstantCursor(cursor: string, idKind: CursorIdKind): { at: Date; id: string } | undefined {
  return instantKeyOf(decodeCursor(cursor), idKind);
}

/** The largest count or version a cursor may carry: what an int4 column (and any real offset) holds. */
export const MAX_CURSOR_INTEGER = 2_147_483_647;

/** `value` when it is a whole number from 1 to MAX_CURSOR_INTEGER, else undefined. */
export function cursorPositiveInteger(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_CURSOR_INTEGER ? (value as number) : undefined;
}

/** What a list route answers about a cursor it did not issue: forged, truncated, or from another list or sort. */
export function cursorProblem(message = 'is not a cursor this API issued'): FieldError {
  return { path: '/query/cursor', message };
}

function instantKeyOf(value: unknown, idKind: CursorIdKind): { at: Date; id: string } | undefined {
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return undefined;
  const [instant, id] = value as [string, string];
  const isId = idKind === 'uuid' ? isUuid(id) : id.length > 0 && id.length <= MAX_TEXT_ID_LENGTH && unstorableTextReason(id) === null;
  // only the form the API issues (toISOString): Date parses many others, some of them to surprising instants
  if (!isId || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/.test(instant)) return undefined;
  const at = new Date(instant);
  return isStorableInstant(at) && at.toISOString() === instant ? { at, id } : undefined;
}
