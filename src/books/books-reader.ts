/**
 * Reading a client's books (docs/books.md, "Reading"): a page of its orders newest first across its days
 * and their parts, and one order's row. The days come from D1's directory (`books_days`), so a day without
 * orders is never opened; a day's parts are asked at once and their rows merged by (createdAt, id), so the
 * cursor of the order index carries over unchanged and a walk neither repeats nor skips an order.
 */
import { booksDirectory, layoutsOf } from "./directory-store";
import { shardOf } from "./books-writer";
import { beforeDay, dayOf, mergeNewestFirst, partOf, partsOn, type BooksCursor, type Layout } from "./shard-rules";
import type { ShardQuery, StoredRow } from "./shard-store";

export type BooksEnv = Pick<Env, "DB" | "BOOKS">;

/** The filters of a list of one client's orders. */
export type BooksFilter = Omit<ShardQuery, "after" | "limit">;

/** The most days a page opens: past them a page is shorter than its limit and `next` starts before the last. */
export const DAYS_PER_PAGE = 31;
/** Days opened at once. */
const DAYS_AT_ONCE = 4;
function cursorOf(row: BooksCursor): BooksCursor {
  return { createdAt: row.createdAt, id: row.id };
}

/** After any day an order can have been created on. */
const LAST_DAY = 2 ** 31;

async function dayPage(
  env: BooksEnv,
  clientId: string,
  day: number,
  layouts: readonly Layout[],
  query: ShardQuery,
): Promise<StoredRow[]> {
  const parts = partsOn(layouts, day);
  const lists = await Promise.all(
    Array.from({ length: parts }, (_, part) => shardOf(env.BOOKS, { clientId, day, part }).page(query)),
  );
  return mergeNewestFirst(lists as StoredRow[][], query.limit);
}

/**
 * Up to `limit` of the client's orders after `after`, newest first, and the cursor of the next page (null:
 * none). Past DAYS_PER_PAGE days a page may hold fewer than `limit` with a `next`.
 */
export async function clientBooks(
  env: BooksEnv,
  clientId: string,
  filter: BooksFilter,
  after: BooksCursor | null,
  limit: number,
): Promise<{ rows: StoredRow[]; next: BooksCursor | null }> {
  const upper = Math.min(after?.createdAt ?? Infinity, filter.createdTo ?? Infinity);
  const toDay = Number.isFinite(upper) ? dayOf(upper) : LAST_DAY;
  const fromDay = filter.createdFrom === undefined ? 0 : dayOf(filter.createdFrom);
  const directory = await booksDirectory(env.DB, clientId, fromDay, toDay, DAYS_PER_PAGE + 1);
  const days = directory.days.slice(0, DAYS_PER_PAGE);
  const rows: StoredRow[] = [];
  for (let start = 0; start < days.length; start += DAYS_AT_ONCE) {
    const query: ShardQuery = { ...filter, after, limit: limit + 1 - rows.length };
    const pages = await Promise.all(
      days.slice(start, start + DAYS_AT_ONCE).map((day) => dayPage(env, clientId, day, directory.layouts, query)),
    );
    for (const page of pages) rows.push(...page.slice(0, limit + 1 - rows.length));
    if (rows.length > limit) {
      const shown = rows.slice(0, limit);
      return { rows: shown, next: cursorOf(shown[shown.length - 1]!) };
    }
  }
  if (directory.days.length <= DAYS_PER_PAGE) return { rows, next: null };
  return { rows, next: rows.length === limit ? cursorOf(rows[limit - 1]!) : beforeDay(days[days.length - 1]!) };
}

/** One order's row in its client's books (null: not there yet), with its webhook answers. */
export async function bookedRow(
  env: BooksEnv,
  order: { clientId: string; createdAt: number; id: string },
): Promise<StoredRow | null> {
  const day = dayOf(order.createdAt);
  const part = partOf(order.id, partsOn(await layoutsOf(env.DB, order.clientId), day));
  return (await shardOf(env.BOOKS, { clientId: order.clientId, day, part }).row(
    order.createdAt,
    order.id,
  )) as StoredRow | null;
}
