/**
 * Reading a client's books (docs/books.md, "Reading"): a page of its orders newest first across its days
 * and their parts, and one order's row. The days come from D1's directory (`books_days`), so a day without
 * orders is never opened; a day's parts are asked at once and their rows merged by (createdAt, id), so the
 * cursor of the order index carries over unchanged and a walk neither repeats nor skips an order.
 */
import { booksDirectory, layoutsOf, shardsNewestFirst } from "./directory-store";
import { shardOf } from "./books-writer";
import {
  beforeDay,
  dayOf,
  LOWEST_ID,
  mergeNewestFirst,
  partOf,
  partsOn,
  type BooksCursor,
  type Layout,
  type ShardAddress,
} from "./shard-rules";
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

/** The most shards a page across clients opens: a day with more needs its client named (TooManyShards). */
export const SHARDS_PER_PAGE = 256;
/** Shards asked at once. */
const SHARDS_AT_ONCE = 32;

/** A day of more clients (or parts) than a page across clients opens: the search must name its client. */
export class TooManyShards extends Error {
  constructor(readonly day: number) {
    super(`day ${day} has books of more shards than a page reads across clients: name a client`);
  }
}

/** The first `limit` rows of one day's shards after the query's cursor, newest first. */
async function shardsPage(env: BooksEnv, shards: readonly ShardAddress[], query: ShardQuery): Promise<StoredRow[]> {
  const lists: StoredRow[][] = [];
  for (let start = 0; start < shards.length; start += SHARDS_AT_ONCE)
    lists.push(
      ...((await Promise.all(
        shards.slice(start, start + SHARDS_AT_ONCE).map((address) => shardOf(env.BOOKS, address).page(query)),
      )) as StoredRow[][]),
    );
  return mergeNewestFirst(lists, query.limit);
}

/**
 * Up to `limit` orders of every client after `after`, newest first, and the cursor of the next page (null:
 * none): the operator's search without a client, read in bounded steps. One D1 statement reads the
 * directory's shards of the newest days (its day index) up to SHARDS_PER_PAGE; a page opens at most those,
 * over at most DAYS_PER_PAGE days, a day at a time and a day's shards at once, and merges them by
 * (createdAt, id): the cursor is the one of a client's list. A page that stops at its bound may hold fewer
 * than `limit` with a `next`; a single day of more than SHARDS_PER_PAGE shards throws TooManyShards.
 */
export async function booksAcrossClients(
  env: BooksEnv,
  filter: BooksFilter,
  after: BooksCursor | null,
  limit: number,
  shardsPerPage = SHARDS_PER_PAGE,
): Promise<{ rows: StoredRow[]; next: BooksCursor | null }> {
  // A cursor before a day (beforeDay) passes nothing of that day: the walk goes on from the day before it.
  const cursorAt = after === null ? Infinity : after.id === LOWEST_ID ? after.createdAt - 1 : after.createdAt;
  const upper = Math.min(cursorAt, filter.createdTo ?? Infinity);
  const toDay = Number.isFinite(upper) ? dayOf(upper) : LAST_DAY;
  const fromDay = filter.createdFrom === undefined ? 0 : dayOf(filter.createdFrom);
  const found = await shardsNewestFirst(env.DB, fromDay, toDay, shardsPerPage + 1);
  const cut = found.length > shardsPerPage;
  // The last day read may be cut short by the bound: it is left whole to the next page.
  const whole = cut ? found.filter((shard) => shard.day !== found[found.length - 1]!.day) : found;
  if (cut && whole.length === 0) throw new TooManyShards(found[0]!.day);
  const days = [...new Set(whole.map((shard) => shard.day))];
  const opened = days.slice(0, DAYS_PER_PAGE);
  const rows: StoredRow[] = [];
  for (const day of opened) {
    const query: ShardQuery = { ...filter, after, limit: limit + 1 - rows.length };
    rows.push(
      ...(await shardsPage(
        env,
        whole.filter((shard) => shard.day === day),
        query,
      )),
    );
    if (rows.length > limit) {
      const shown = rows.slice(0, limit);
      return { rows: shown, next: cursorOf(shown[shown.length - 1]!) };
    }
  }
  if (!cut && days.length <= DAYS_PER_PAGE) return { rows, next: null };
  return { rows, next: rows.length === limit ? cursorOf(rows[limit - 1]!) : beforeDay(opened[opened.length - 1]!) };
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
