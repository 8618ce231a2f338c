/**
 * One way to page a list: ask the store for `limit + 1` rows; if the extra row came, there is a next page,
 * and its cursor is the cursor of the last row shown. Imports nothing.
 */

/** The page size when a request gives none. */
export const DEFAULT_PAGE_SIZE = 100;

/** How many rows to ask the store for: one more than the page, to learn whether another page follows. */
export function rowsToFetch(limit: number): number {
  return limit + 1;
}

/** The first `limit` rows and the cursor of the next page (null on the last page). */
export function pageOf<Row, Cursor>(
  rows: readonly Row[],
  limit: number,
  cursorOf: (row: Row) => Cursor,
): { items: Row[]; next: Cursor | null } {
  const items = rows.slice(0, limit);
  return { items, next: rows.length > limit ? cursorOf(items[items.length - 1]!) : null };
}
