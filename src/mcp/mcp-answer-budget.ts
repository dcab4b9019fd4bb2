/**
 * What one tool answer may weigh as JSON: about 4,000 tokens, so a coding agent can call several tools in one turn
 * without its context filling up. Lists are cut from the end to fit, with `truncated: true` and a cursor to the rest.
 */
export const MAX_ANSWER_BYTES = 16 * 1024;

/** Texts that came from events (messages, argument values) are cut to this many characters, marked with "…". */
export const MAX_QUOTED_CHARS = 300;

/** A JSON value from an event (arguments, a result) larger than this is answered as a cut preview of its JSON text. */
export const MAX_QUOTED_JSON_CHARS = 600;

export function quoteText(text: string | null, maxChars = MAX_QUOTED_CHARS): string | null {
  if (text === null) return null;
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** The value itself when its JSON is short; else `{ preview, truncated: true }` with the start of its JSON text. */
export function quoteJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  if (text.length <= MAX_QUOTED_JSON_CHARS) return value;
  return { preview: quoteText(text, MAX_QUOTED_JSON_CHARS), truncated: true };
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * Fits `answer` within `maxBytes` by keeping the longest head of `answer[listKey]` that fits: `truncated` says whether
 * any item was left out, and `nextCursor` then points after the last item kept (`cursorAfter` of it; null when none
 * was kept, for a list that starts over). An answer that fits keeps its own nextCursor.
 */
export function fitAnswer<Item, Answer extends Record<string, unknown>>(
  answer: Answer & { nextCursor: string | null },
  listKey: keyof Answer & string,
  cursorAfter: (item: Item, index: number) => string | null,
  maxBytes = MAX_ANSWER_BYTES,
): Answer & { nextCursor: string | null; truncated: boolean } {
  const items = answer[listKey] as unknown as Item[];
  const whole = { ...answer, truncated: false };
  if (jsonBytes(whole) <= maxBytes) return whole;
  // the answer without its list, plus each item's bytes and a comma, tells how many fit without serializing each head
  const emptyBytes = jsonBytes({ ...answer, [listKey]: [], truncated: true, nextCursor: 'x'.repeat(200) });
  let bytes = emptyBytes;
  let kept = 0;
  while (kept < items.length) {
    bytes += jsonBytes(items[kept]) + (kept > 0 ? 1 : 0);
    if (bytes > maxBytes) break;
    kept++;
  }
  const nextCursor = kept > 0 ? cursorAfter(items[kept - 1], kept - 1) : null;
  return { ...answer, [listKey]: items.slice(0, kept), truncated: true, nextCursor };
}
