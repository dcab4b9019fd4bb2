import { createHash } from 'node:crypto';

/** A strong validator for an exact body: its sha256, quoted as RFC 9110 wants. */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
}

/**
 * If-None-Match uses the weak comparison (RFC 9110 13.1.2): W/"x" matches "x". The header may list several
 * validators or be "*".
 */
export function matchesIfNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = stripWeak(etag);
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((candidate) => stripWeak(candidate) === opaque);
}

function stripWeak(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
