/**
 * A shard's events (docs/books.md, "Events"): one row per event of the client on the shard's day, keyed
 * by (at, event id) without a rowid, so that the list newest first is a walk of the key and no index entry
 * is written. The table is the events' own, created with the shard's first event (a shard of orders alone
 * never has it; a shard of a wallet's events alone has no orders table), and a row is never changed: an
 * event stored again is a repeat and writes nothing.
 */
import type { BookEvent, EventCursor } from "./event-rules";

/** What a page of a shard's events is filtered by. */
export interface EventQuery {
  /** Only events after this one, newest first. */
  after?: EventCursor | null;
  /** Only these types (absent: every type). */
  types?: readonly string[];
  /** Unix ms, inclusive. */
  from?: number;
  to?: number;
  limit: number;
}

type Row = Record<string, SqlStorageValue>;

/** Ids of events recorded again with another time (a delivery's failure): found by id, a walk of the day. */
const FOUND_BY_ID = /^evt_df_/;

const CREATE = `CREATE TABLE IF NOT EXISTS events (
  at INTEGER NOT NULL, event_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
  PRIMARY KEY (at, event_id)
) WITHOUT ROWID`;

/** The SQL of a page of `query`, newest first. */
export function eventPageQuery(query: EventQuery): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const bind = (value: string | number): string => {
    params.push(value);
    return `?${params.length}`;
  };
  if (query.after != null) where.push(`(at, event_id) < (${bind(query.after.at)}, ${bind(query.after.id)})`);
  if (query.from !== undefined) where.push(`at >= ${bind(query.from)}`);
  if (query.to !== undefined) where.push(`at <= ${bind(query.to)}`);
  if (query.types !== undefined && query.types.length > 0)
    where.push(`type IN (${query.types.map((type) => bind(type)).join(", ")})`);
  const sql =
    `SELECT payload FROM events` +
    (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "") +
    ` ORDER BY at DESC, event_id DESC LIMIT ${bind(query.limit)}`;
  return { sql, params };
}

export class EventStore {
  /** Whether this instance knows the table exists (it then neither creates nor looks for it again). */
  private exists = false;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Whether the table exists: a shard that never stored an event answers reads with nothing. */
  private hasTable(): boolean {
    if (this.exists) return true;
    const found = this.storage.sql
      .exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`)
      .toArray();
    this.exists = found.length > 0;
    return this.exists;
  }

  /** Forgets what this instance knew (the shard's storage was deleted under it). */
  forget(): void {
    this.exists = false;
  }

  /** Whether the shard holds any event (its day is then registered in D1 already). */
  any(): boolean {
    return this.hasTable() && this.storage.sql.exec(`SELECT 1 FROM events LIMIT 1`).toArray().length > 0;
  }

  /** The events of `events` the shard does not hold yet. */
  missing<Event extends Pick<BookEvent, "id" | "createdAt">>(events: readonly Event[]): Event[] {
    if (!this.hasTable()) return [...events];
    return events.filter((event) => !this.holds(event));
  }

  /**
   * Whether the shard holds the event: by its key, or for an event whose time is not its own to repeat (a
   * delivery's failure, timed when it was recorded: FOUND_BY_ID) by its id within the day.
   */
  private holds(event: Pick<BookEvent, "id" | "createdAt">): boolean {
    const found = FOUND_BY_ID.test(event.id)
      ? this.storage.sql.exec(`SELECT 1 FROM events WHERE event_id = ?1 LIMIT 1`, event.id)
      : this.storage.sql.exec(`SELECT 1 FROM events WHERE at = ?1 AND event_id = ?2`, event.createdAt, event.id);
    return found.toArray().length > 0;
  }

  /** Stores the events it does not hold, in one transaction; answers the rows written (a repeat writes none). */
  store(events: readonly BookEvent[]): number {
    if (events.length === 0) return 0;
    const sql = this.storage.sql;
    return this.storage.transactionSync(() => {
      let written = 0;
      if (!this.hasTable()) {
        const created = sql.exec(CREATE);
        created.toArray();
        written += created.rowsWritten;
        this.exists = true;
      }
      for (const event of events) {
        const cursor = sql.exec(
          `INSERT OR IGNORE INTO events (at, event_id, type, payload) VALUES (?1, ?2, ?3, ?4)`,
          event.createdAt,
          event.id,
          event.type,
          JSON.stringify(event),
        );
        cursor.toArray();
        written += cursor.rowsWritten;
      }
      return written;
    });
  }

  /** A page of the shard's events, newest first. */
  page(query: EventQuery): BookEvent[] {
    if (!this.hasTable()) return [];
    const { sql, params } = eventPageQuery(query);
    return this.storage.sql
      .exec(sql, ...params)
      .toArray()
      .map((row: Row) => JSON.parse(row.payload as string) as BookEvent);
  }

  /** The time of the shard's oldest event (null: none). */
  oldest(): number | null {
    if (!this.hasTable()) return null;
    const found = this.storage.sql.exec(`SELECT at FROM events ORDER BY at LIMIT 1`).toArray()[0];
    return found === undefined ? null : (found.at as number);
  }

  /** Deletes every event before `before` (past retention); answers the rows deleted. */
  deleteBefore(before: number): number {
    if (!this.hasTable()) return 0;
    const cursor = this.storage.sql.exec(`DELETE FROM events WHERE at < ?1`, before);
    cursor.toArray();
    return cursor.rowsWritten;
  }
}
