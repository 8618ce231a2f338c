/**
 * The books in D1 (schema/migrations/0030_books.sql, 0032_books_retention.sql): `books_days`, each
 * shard's published figures per wallet, which is also the directory of the days a client has books on;
 * `books_layouts`, the parts of a client's days; and `books_retention`, how long the books are kept. Only
 * this module writes them.
 */
import { DAY_BUCKETS, type Counters } from "./counters-rules";
import { isRetention, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "./retention-rules";
import { firstLayoutDay, isPartCount, type Layout, type ShardAddress } from "./shard-rules";
import type { StoredCounters } from "./shard-store";

/**
 * Registers a shard's day for `wallet` in the directory, with no figures yet: the first write of the day
 * for a wallet makes it before its row is stored, so that a reader finds the day. A repeat writes nothing.
 */
export async function registerDay(db: D1Database, address: ShardAddress, wallet: string, now: number): Promise<number> {
  const result = await db
    .prepare(
      `INSERT INTO books_days (client_id, day, currency, part, orders, open, successful, partial, failed, rejected,
         total, charged, refunded, lines, changes, published_at)
       VALUES (?1, ?2, ?3, ?4, 0, 0, 0, 0, 0, 0, 0, 0, 0, '{}', 0, ?5)
       ON CONFLICT (client_id, day, currency, part) DO NOTHING`,
    )
    .bind(address.clientId, address.day, wallet, address.part, now)
    .run();
  return result.meta.rows_written ?? 0;
}

/** The statement that publishes a wallet's counters, passing only with more changes than the row has. */
export function publishStatement(
  db: D1Database,
  address: ShardAddress,
  stored: StoredCounters,
  now: number,
): D1PreparedStatement {
  const { counters } = stored;
  return db
    .prepare(
      `INSERT INTO books_days (client_id, day, currency, part, orders, open, successful, partial, failed, rejected,
         total, charged, refunded, lines, changes, published_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
       ON CONFLICT (client_id, day, currency, part) DO UPDATE SET orders = excluded.orders, open = excluded.open,
         successful = excluded.successful, partial = excluded.partial, failed = excluded.failed,
         rejected = excluded.rejected, total = excluded.total, charged = excluded.charged,
         refunded = excluded.refunded, lines = excluded.lines, changes = excluded.changes,
         published_at = excluded.published_at
       WHERE excluded.changes > books_days.changes`,
    )
    .bind(
      address.clientId,
      address.day,
      stored.wallet,
      address.part,
      counters.orders,
      ...DAY_BUCKETS.map((bucket) => counters.buckets[bucket]),
      counters.total,
      counters.charged,
      counters.refunded,
      JSON.stringify(counters.lines),
      stored.changes,
      now,
    );
}

/** A day's published figures of one client's wallet and part. */
export interface PublishedDay {
  clientId: string;
  day: number;
  currency: string;
  part: number;
  counters: Pick<Counters, "orders" | "buckets" | "total" | "charged" | "refunded" | "lines">;
  changes: number;
  publishedAt: number;
}

type DayRow = Record<string, unknown>;

export function publishedDayOf(row: DayRow): PublishedDay {
  return {
    clientId: row.client_id as string,
    day: row.day as number,
    currency: row.currency as string,
    part: row.part as number,
    counters: {
      orders: row.orders as number,
      buckets: Object.fromEntries(DAY_BUCKETS.map((bucket) => [bucket, row[bucket] as number])) as Counters["buckets"],
      total: row.total as number,
      charged: row.charged as number,
      refunded: row.refunded as number,
      lines: JSON.parse(row.lines as string) as Counters["lines"],
    },
    changes: row.changes as number,
    publishedAt: row.published_at as number,
  };
}

/** A client's published days from `fromDay` to `toDay`, every wallet and part. */
export async function publishedDays(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  fromDay: number,
  toDay: number,
): Promise<PublishedDay[]> {
  const { results } = await db
    .prepare(`SELECT * FROM books_days WHERE client_id = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day, currency, part`)
    .bind(clientId, fromDay, toDay)
    .all<DayRow>();
  return results.map(publishedDayOf);
}

/**
 * The days a client has books on, newest first, from `toDay` down to `fromDay`, at most `limit`, and its
 * layouts: what a list needs before it opens a shard, in one round trip.
 */
export async function booksDirectory(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  fromDay: number,
  toDay: number,
  limit: number,
): Promise<{ days: number[]; layouts: Layout[] }> {
  const [days, layouts] = await db.batch([
    db
      .prepare(
        `SELECT DISTINCT day FROM books_days WHERE client_id = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day DESC LIMIT ?4`,
      )
      .bind(clientId, fromDay, toDay, limit),
    layoutsStatement(db, clientId),
  ]);
  return {
    days: (days!.results as { day: number }[]).map((row) => row.day),
    layouts: (layouts!.results as { from_day: number; parts: number }[]).map(layoutOf),
  };
}

/**
 * Up to `limit` shards (client, day, part) with books between `fromDay` and `toDay`, newest day first (by
 * client and part within a day), read through the directory's day index: what a page of the books across
 * clients opens, in one statement.
 */
export async function shardsNewestFirst(
  db: D1Database | D1DatabaseSession,
  fromDay: number,
  toDay: number,
  limit: number,
): Promise<ShardAddress[]> {
  const { results } = await db
    .prepare(
      `SELECT DISTINCT client_id, day, part FROM books_days INDEXED BY books_days_by_day
        WHERE day >= ?1 AND day <= ?2 ORDER BY day DESC, client_id, part LIMIT ?3`,
    )
    .bind(fromDay, toDay, limit)
    .all<{ client_id: string; day: number; part: number }>();
  return results.map((row) => ({ clientId: row.client_id, day: row.day, part: row.part }));
}

/**
 * Up to `limit` shards of the days from `fromDay` on whose published figures count open orders, in
 * (day, client, part) order from `from` on (inclusive), read through the day index; and the D1 rows read.
 */
export async function shardsWithOpenOrders(
  db: D1Database,
  fromDay: number,
  from: ShardAddress | null,
  limit: number,
): Promise<{ shards: ShardAddress[]; rowsRead: number }> {
  const start = from ?? { day: fromDay, clientId: "", part: 0 };
  const { results, meta } = await db
    .prepare(
      `SELECT DISTINCT day, client_id, part FROM books_days INDEXED BY books_days_by_day
        WHERE day >= ?1 AND open > 0 AND (day, client_id, part) >= (?2, ?3, ?4)
        ORDER BY day, client_id, part LIMIT ?5`,
    )
    .bind(fromDay, start.day, start.clientId, start.part, limit)
    .all<{ client_id: string; day: number; part: number }>();
  return {
    shards: results.map((row) => ({ clientId: row.client_id, day: row.day, part: row.part })),
    rowsRead: meta.rows_read ?? 0,
  };
}

/**
 * The open orders of the days from `fromDay` on, as the shards last published them (a shard publishes
 * within an hour of a change), read through the day index: a range of days, not every day kept.
 */
export async function openOrdersSince(db: D1Database | D1DatabaseSession, fromDay: number): Promise<number> {
  const row = await db
    .prepare(`SELECT COALESCE(SUM(open), 0) AS n FROM books_days INDEXED BY books_days_by_day WHERE day >= ?1`)
    .bind(fromDay)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

function layoutsStatement(db: D1Database | D1DatabaseSession, clientId: string): D1PreparedStatement {
  return db.prepare(`SELECT from_day, parts FROM books_layouts WHERE client_id = ?1 ORDER BY from_day`).bind(clientId);
}

function layoutOf(row: { from_day: number; parts: number }): Layout {
  return { fromDay: row.from_day, parts: row.parts };
}

/** A client's layouts, oldest first. */
export async function layoutsOf(db: D1Database | D1DatabaseSession, clientId: string): Promise<Layout[]> {
  const { results } = await layoutsStatement(db, clientId).all<{ from_day: number; parts: number }>();
  return results.map(layoutOf);
}

/**
 * Sets a client's parts from `fromDay` on. Refused (an Error) for a day that may have started somewhere
 * (firstLayoutDay) or a count of parts a day cannot have: a day's layout never changes once it has begun.
 */
export async function setLayout(
  db: D1Database,
  layout: Layout & { clientId: string; setBy: string },
  now: number,
): Promise<void> {
  if (!isPartCount(layout.parts)) throw new Error(`${layout.parts} parts: a power of two from 1 to 64`);
  if (layout.fromDay < firstLayoutDay(now)) throw new Error(`day ${layout.fromDay} may have begun: too late to split`);
  await db
    .prepare(
      `INSERT INTO books_layouts (client_id, from_day, parts, set_at, set_by) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (client_id, from_day) DO UPDATE SET parts = excluded.parts, set_at = excluded.set_at,
         set_by = excluded.set_by`,
    )
    .bind(layout.clientId, layout.fromDay, layout.parts, now, layout.setBy)
    .run();
}

// ---- retention (retention-rules.ts)

/** The days the books are kept, or null: everything is kept. */
export async function retentionOf(db: D1Database): Promise<number | null> {
  const row = await db.prepare(`SELECT days FROM books_retention WHERE id = 1`).first<{ days: number }>();
  return row?.days ?? null;
}

/** The retention as set: its days, when and by whom; null while everything is kept. */
export async function retentionSetting(db: D1Database): Promise<{ days: number; setAt: number; setBy: string } | null> {
  const row = await db
    .prepare(`SELECT days, set_at, set_by FROM books_retention WHERE id = 1`)
    .first<{ days: number; set_at: number; set_by: string }>();
  return row === null ? null : { days: row.days, setAt: row.set_at, setBy: row.set_by };
}

/**
 * The statement that sets how many days the books are kept (null: everything, the default), to run in one
 * batch with its audit row; refused (an Error) outside its bounds.
 */
export function retentionStatement(
  db: D1Database,
  days: number | null,
  setBy: string,
  now: number,
): D1PreparedStatement {
  if (!isRetention(days))
    throw new Error(`a retention of ${days} days: ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}`);
  if (days === null) return db.prepare(`DELETE FROM books_retention WHERE id = 1`);
  return db
    .prepare(
      `INSERT INTO books_retention (id, days, set_at, set_by) VALUES (1, ?1, ?2, ?3)
       ON CONFLICT (id) DO UPDATE SET days = excluded.days, set_at = excluded.set_at, set_by = excluded.set_by`,
    )
    .bind(days, now, setBy);
}

/** Sets how many days the books are kept (null: everything, the default); refused outside its bounds. */
export async function setRetention(db: D1Database, days: number | null, setBy: string, now: number): Promise<void> {
  await retentionStatement(db, days, setBy, now).run();
}

/** Up to `limit` shards of days before `beforeDay`, oldest first (the directory's day index). */
export async function shardsBefore(db: D1Database, beforeDay: number, limit: number): Promise<ShardAddress[]> {
  const { results } = await db
    .prepare(
      `SELECT DISTINCT client_id, day, part FROM books_days INDEXED BY books_days_by_day WHERE day < ?1
        ORDER BY day, client_id, part LIMIT ?2`,
    )
    .bind(beforeDay, limit)
    .all<{ client_id: string; day: number; part: number }>();
  return results.map((row) => ({ clientId: row.client_id, day: row.day, part: row.part }));
}

/** Removes a dropped shard's rows from the directory. */
export async function forgetShard(db: D1Database, address: ShardAddress): Promise<void> {
  await db
    .prepare(`DELETE FROM books_days WHERE client_id = ?1 AND day = ?2 AND part = ?3`)
    .bind(address.clientId, address.day, address.part)
    .run();
}

// ---- the walk of an export across clients (src/exports/)

/** Where an export's walk of the directory stands: days newest first, then clients and parts ascending. */
export interface WalkFrom {
  /** The day to read shards of (or, when it has none left, the newest day before it that has). */
  day: number;
  /** Shards of `day` from this one on (null: from its first); ignored on an earlier day. */
  from: { clientId: string; part: number } | null;
  /** The oldest day walked. */
  fromDay: number;
  /** One client's shards only. */
  clientId?: string;
}

/**
 * Up to `limit` shards in the walk's order (client, then part): with a position, those of `walk.day` from
 * it on (a seek of the day index, or for one client of the key); without one, those of the newest day at
 * or before `walk.day` that has any. An empty answer: none left there (the caller then asks for the days
 * before, without a position), or no day left at all.
 */
export async function shardsOfNextDay(db: D1Database, walk: WalkFrom, limit: number): Promise<ShardAddress[]> {
  const params: (string | number)[] = [];
  const bind = (value: string | number): string => {
    params.push(value);
    return `?${params.length}`;
  };
  const index = walk.clientId === undefined ? "INDEXED BY books_days_by_day" : "";
  const client = walk.clientId === undefined ? () => "" : () => `AND client_id = ${bind(walk.clientId!)}`;
  const day =
    walk.from === null
      ? `(SELECT MAX(day) FROM books_days ${index} WHERE day >= ${bind(walk.fromDay)} AND day <= ${bind(walk.day)} ${client()})`
      : bind(walk.day);
  const position =
    walk.from === null
      ? ""
      : `AND (client_id > ${bind(walk.from.clientId)} OR (client_id = ?${params.length} AND part >= ${bind(walk.from.part)}))`;
  const { results } = await db
    .prepare(
      `SELECT DISTINCT day, client_id, part FROM books_days ${index}
        WHERE day = ${day} AND day >= ${bind(walk.fromDay)} ${client()} ${position}
        ORDER BY client_id, part LIMIT ${bind(limit)}`,
    )
    .bind(...params)
    .all<{ client_id: string; day: number; part: number }>();
  return results.map((row) => ({ clientId: row.client_id, day: row.day, part: row.part }));
}

/** The oldest day with books (of one client when given), or null: where an export with no start begins. */
export async function firstBooksDay(db: D1Database, clientId?: string): Promise<number | null> {
  const row =
    clientId === undefined
      ? await db.prepare(`SELECT MIN(day) AS day FROM books_days INDEXED BY books_days_by_day`).first<{ day: number }>()
      : await db
          .prepare(`SELECT MIN(day) AS day FROM books_days WHERE client_id = ?1`)
          .bind(clientId)
          .first<{ day: number }>();
  return row?.day ?? null;
}
