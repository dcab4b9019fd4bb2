/**
 * The most one page of a list answers with, as JSON, beside its row limit: a page of large rows ends early, with a
 * cursor to the rest. (Issue 33: 200 rows of large events a page made four list requests end a 1 GB heap.)
 */
export const MAX_PAGE_BYTES = 1024 * 1024;

/**
 * How many of `items`, from the first, fit in `maxBytes` of JSON together; always at least one (a single item is
 * bounded by what is stored of it), so a page never comes back empty while rows remain.
 */
export function countWithinBytes(items: readonly unknown[], maxBytes = MAX_PAGE_BYTES): number {
  let bytes = 0;
  for (let index = 0; index < items.length; index++) {
    bytes += Buffer.byteLength(JSON.stringify(items[index]) ?? '');
    if (bytes > maxBytes) return Math.max(index, 1);
  }
  return items.length;
}

/**
 * One page of a keyset list from `rows` (read with the limit plus one, to tell whether more follow): at most `limit`
 * items and MAX_PAGE_BYTES of JSON, and the cursor after the last item answered (`cursorOf` it) when rows remain.
 */
export function boundedPage<Row, View>(
  rows: readonly Row[],
  limit: number,
  toView: (row: Row) => View,
  cursorOf: (row: Row) => string,
): { items: View[]; nextCursor: string | null } {
  const views = rows.slice(0, limit).map(toView);
  const count = countWithinBytes(views);
  return { items: views.slice(0, count), nextCursor: rows.length > count ? cursorOf(rows[count - 1]) : null };
}
