/**
 * Where an order's row lives in its client's books, and how a list walks them (docs/books.md, "Shards"):
 * the UTC day, the shard's name, the part of a day an order belongs to, the layout of a client's parts,
 * and the order of rows across shards. Pure.
 */

export const DAY_MS = 86_400_000;

/** The UTC day (days since 1970-01-01) of a unix-ms time: an order's day is the day it was created. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** One shard: a client's day, or one part of it. */
export interface ShardAddress {
  clientId: string;
  day: number;
  part: number;
}

/** The name of a shard's Durable Object. */
export function shardName(address: ShardAddress): string {
  return `${address.clientId}\u0000${address.day}\u0000${address.part}`;
}

/** The shard a name gives, or null for a name no shard has. */
export function addressOf(name: string): ShardAddress | null {
  const [clientId, day, part, ...rest] = name.split("\u0000");
  if (clientId === undefined || clientId === "" || rest.length > 0) return null;
  if (!/^\d{1,9}$/.test(day ?? "") || !/^\d{1,2}$/.test(part ?? "")) return null;
  return { clientId, day: Number(day), part: Number(part) };
}

/** The most parts a client's day is split into. */
export const MAX_PARTS = 64;

/** Whether `parts` is a number of parts a day can have: a power of two, 1 to MAX_PARTS. */
export function isPartCount(parts: number): boolean {
  return Number.isInteger(parts) && parts >= 1 && parts <= MAX_PARTS && (parts & (parts - 1)) === 0;
}

/**
 * A 32-bit FNV-1a hash of a text's UTF-16 code units, its bits mixed (MurmurHash3's finaliser) so that its
 * low bits, which pick a part, spread as well as its high ones.
 */
function spread32(text: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < text.length; at += 1) {
    hash ^= text.charCodeAt(at);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The part of a day of `parts` parts that holds the order `orderId`. */
export function partOf(orderId: string, parts: number): number {
  return parts <= 1 ? 0 : spread32(orderId) & (parts - 1);
}

/** One change of a client's layout: from this day on, its days have this many parts. */
export interface Layout {
  fromDay: number;
  parts: number;
}

/** The parts of a client's `day`: the layout in force that day (the latest from a day not after it), else 1. */
export function partsOn(layouts: readonly Layout[], day: number): number {
  let parts = 1;
  let from = -Infinity;
  for (const layout of layouts)
    if (layout.fromDay <= day && layout.fromDay > from) {
      parts = layout.parts;
      from = layout.fromDay;
    }
  return parts;
}

/**
 * How far ahead of its first day a layout must be set: every shard of a day reads its parts when its
 * instance starts, so a day's parts must be known before the day does.
 */
export const LAYOUT_LEAD_MS = 3_600_000;

/** The first day a layout set at `now` may take effect from. */
export function firstLayoutDay(now: number): number {
  return dayOf(now + LAYOUT_LEAD_MS) + 1;
}

/** Orders a second one part should take at most: a shard then takes a fraction of what one object can. */
export const PART_ORDERS_PER_SECOND = 60;

/** How long a part must have been writing before its rate asks for more parts (a burst is not a day). */
export const RATE_WINDOW_MS = 600_000;

/**
 * The parts the next day should have, from what one part of `parts` wrote: `orders` since `since` (its
 * first order's time) at `now`. Null when the day's parts are enough (or it is too soon to say).
 */
export function partsWanted(orders: number, since: number, now: number, parts: number): number | null {
  if (now - since < RATE_WINDOW_MS) return null;
  const perSecond = (orders * parts) / ((now - since) / 1000);
  let wanted = parts;
  while (wanted < MAX_PARTS && perSecond / wanted > PART_ORDERS_PER_SECOND) wanted *= 2;
  return wanted > parts ? wanted : null;
}

// ---- the order of rows across shards

/** Where a page of a client's books starts: after this order, newest first (createdAt, then id). */
export interface BooksCursor {
  createdAt: number;
  id: string;
}

/** Negative when `a` comes first newest first (created later, or at the same time with a greater id). */
export function newestFirst(a: BooksCursor, b: BooksCursor): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * The rows of several shards as one list, newest first, at most `limit`: each list already newest first
 * and after the same cursor, so the first `limit` of them merged are the first `limit` of the union.
 */
export function mergeNewestFirst<Row extends BooksCursor>(lists: readonly (readonly Row[])[], limit: number): Row[] {
  return lists.flat().sort(newestFirst).slice(0, Math.max(0, limit));
}

/** An id below every order id: the cursor `(start of day, LOWEST_ID)` passes every order of that day. */
export const LOWEST_ID = `ord_${"0".repeat(64)}`;

/** The cursor after which the days before `day` start: everything created before the day began. */
export function beforeDay(day: number): BooksCursor {
  return { createdAt: day * DAY_MS, id: LOWEST_ID };
}
