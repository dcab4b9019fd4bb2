import { truncateText } from '../infra/http/storable-values';

/**
 * The most an event's `arguments` (and each side of its `correction`) takes at rest, as JSON text. The worker diagnoses
 * the whole arguments it took from the queue (an unknown name at the end of a large object is still found); only what
 * is stored is cut, so no stored event, and no page of them, costs more than this for its arguments. (Issue 33: 1 MB
 * arguments, 200 rows a page, and four list requests ended a 1 GB heap.)
 */
export const MAX_STORED_ARGUMENTS_BYTES = 8 * 1024;

/**
 * `json` (JSON.stringify of a value) when it takes at most `maxBytes` as UTF-8; else the JSON text of a marked
 * preview, as a result over its limit is kept: `{"$truncated": true, "bytes": <the whole text's>, "preview": <its start>}`.
 */
export function jsonWithin(json: string, maxBytes: number): string {
  // a UTF-16 unit takes at most 3 bytes of UTF-8: most texts are told apart without counting
  if (json.length * 3 <= maxBytes) return json;
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return json;
  return JSON.stringify({ $truncated: true, bytes, preview: truncateText(json, PREVIEW_CHARS) });
}

/** A quarter of the limit in characters: the preview, escaped inside the marker, stays within the limit. */
const PREVIEW_CHARS = MAX_STORED_ARGUMENTS_BYTES / 4;
