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

/**
 * A keyset cursor of [ISO instant, id], as the list routes issue them; undefined when the text is not one, or when its
 * instant lies outside what we store (a forged cursor must be a 400, not a query Postgres refuses).
 */
export function decodeInstantCursor(cursor: string): { at: Date; id: string } | undefined {
  const value = decodeCursor(cursor);
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return undefined;
  if (unstorableTextReason(value[1]) !== null) return undefined;
  const at = new Date(value[0]);
  return isStorableInstant(at) ? { at, id: value[1] } : undefined;
}
