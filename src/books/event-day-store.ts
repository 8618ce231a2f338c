/**
 * The directory of a client's days with events (D1 `books_event_days`,
 * schema/migrations/0070_books_event_days.sql): a shard registers its day before its first event, and a
 * list reads the days newest first. Only this module writes the table.
 */
import type { ShardAddress } from "./shard-rules";

/** Registers the shard's day as one with events; a repeat writes nothing. Answers the rows written. */
export async function registerEventDay(db: D1Database, address: ShardAddress): Promise<number> {
  const result = await db
    .prepare(`INSERT INTO books_event_days (client_id, day) VALUES (?1, ?2) ON CONFLICT DO NOTHING`)
    .bind(address.clientId, address.day)
    .run();
  return result.meta.rows_written ?? 0;
}

/** The client's days with events from `fromDay` to `toDay` (both inclusive), newest first, at most `limit`. */
export async function eventDays(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  fromDay: number,
  toDay: number,
  limit: number,
): Promise<number[]> {
  const { results } = await db
    .prepare(
      `SELECT day FROM books_event_days WHERE client_id = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day DESC LIMIT ?4`,
    )
    .bind(clientId, fromDay, toDay, limit)
    .all<{ day: number }>();
  return results.map((row) => row.day);
}
