import type { WebhookMessage } from "../webhooks/events";
import type { OrderRecord } from "./order-record";

/**
 * The order object's SQLite storage: the order document, the due times behind its one alarm, and the
 * outbox of webhook events. The schema carries a version stored in the object and is brought up to date by
 * ordered migrations, once per instance and only when an order is first stored, so that probing an unknown
 * order id stores nothing and a later change of a table has a path for every order already stored.
 */

/** Work the order's alarm stands for; each kind has at most one due time. */
export type TimerKind = "expire" | "process" | "outbox" | "settle";

export interface Timer {
  kind: TimerKind;
  dueAt: number;
  /** Runs of this timer that failed in a row; 0 once it succeeds. */
  failures: number;
  lastError: string | null;
}

/**
 * Migration N takes the schema from version N to N + 1. Version 0 is an order stored before the schema
 * was versioned: its order_record and timers (and maybe outbox) tables exist, hence IF NOT EXISTS.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
   CREATE TABLE IF NOT EXISTS outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);`,
  // A failing timer is retried with backoff for as long as it takes; these count its failures in a row.
  `ALTER TABLE timers ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE timers ADD COLUMN last_error TEXT;`,
];

export const ORDER_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The schema at ORDER_SCHEMA_VERSION, for a new order: what the migrations above add up to. A test checks
 * that both roads end in the same tables.
 */
const CURRENT_SCHEMA = `
  CREATE TABLE schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
  CREATE TABLE order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
  CREATE TABLE timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0, last_error TEXT);
  CREATE TABLE outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);`;

export class OrderStore {
  private readonly sql: SqlStorage;
  /** Whether this object has any storage yet, read once per instance. */
  private exists: boolean | null = null;
  private cached: OrderRecord | null = null;
  /** Whether this instance has brought the schema up to date. */
  private migrated = false;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  /** Forgets what this instance holds in memory, as a new instance would start (fault tests' reset). */
  forget(): void {
    this.exists = null;
    this.cached = null;
    this.migrated = false;
  }

  private hasStorage(): boolean {
    this.exists ??= this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'order_record'`).toArray().length > 0;
    return this.exists;
  }

  /**
   * Creates or migrates the schema; a no-op once this instance has seen it current. A new order gets the
   * current schema in one step; only an order stored under an older version runs the migrations it lacks.
   */
  ensureSchema(): void {
    if (this.exists === true && this.migrated) return;
    if (!this.hasStorage()) {
      this.sql.exec(`${CURRENT_SCHEMA} INSERT INTO schema_meta (id, version) VALUES (1, ${MIGRATIONS.length});`);
    } else {
      this.storage.transactionSync(() => {
        this.sql.exec(`CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
        const stored = this.sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0]?.version ?? 0;
        for (let version = stored; version < MIGRATIONS.length; version += 1) this.sql.exec(MIGRATIONS[version]!);
        if (stored < MIGRATIONS.length) this.sql.exec(`INSERT OR REPLACE INTO schema_meta (id, version) VALUES (1, ?)`, MIGRATIONS.length);
      });
    }
    this.exists = true;
    this.migrated = true;
  }

  schemaVersion(): number {
    if (!this.hasStorage()) return 0;
    return this.sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0]?.version ?? 0;
  }

  load(): OrderRecord | null {
    if (this.cached !== null) return this.cached;
    if (!this.hasStorage()) return null;
    this.ensureSchema();
    const row = this.sql.exec<{ doc: string }>(`SELECT doc FROM order_record WHERE id = 1`).toArray()[0];
    this.cached = row ? (JSON.parse(row.doc) as OrderRecord) : null;
    return this.cached;
  }

  /**
   * Stores the order, the timers that follow from the change (null clears one) and an outbox event, in
   * one transaction: an event or a due time exists exactly when the state change that calls for it does.
   */
  save(order: OrderRecord, timers: Partial<Record<TimerKind, number | null>>, event: WebhookMessage | null): void {
    this.ensureSchema();
    this.storage.transactionSync(() => {
      this.sql.exec(`INSERT OR REPLACE INTO order_record (id, doc) VALUES (1, ?)`, JSON.stringify(order));
      if (event !== null) {
        this.sql.exec(`INSERT INTO outbox (event_id, message) VALUES (?, ?)`, event.event.id, JSON.stringify(event));
        this.schedule("outbox", Date.now());
      }
      for (const [kind, at] of Object.entries(timers)) {
        if (at === null) this.clearTimer(kind as TimerKind);
        else this.schedule(kind as TimerKind, at);
      }
    });
    this.cached = order;
  }

  // ---- timers

  /** Sets a timer's due time; a timer that is failing keeps its count of failures. */
  schedule(kind: TimerKind, at: number): void {
    this.ensureSchema();
    this.sql.exec(
      `INSERT INTO timers (kind, due_at) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET due_at = excluded.due_at`,
      kind,
      at,
    );
  }

  clearTimer(kind: TimerKind): void {
    if (!this.hasStorage()) return;
    this.sql.exec(`DELETE FROM timers WHERE kind = ?`, kind);
  }

  /**
   * Removes a timer that ran, unless it was set again meanwhile (a handler that rescheduled itself); a
   * timer that ran is no longer failing either way.
   */
  completeTimer(timer: Timer): void {
    this.sql.exec(`DELETE FROM timers WHERE kind = ? AND due_at = ?`, timer.kind, timer.dueAt);
    if (timer.failures > 0) this.sql.exec(`UPDATE timers SET failures = 0, last_error = NULL WHERE kind = ?`, timer.kind);
  }

  /**
   * Records a failed run: the timer is due again at `retryAt` with its failures counted. Stored even if
   * the failed handler had cleared it, so that a failure never drops a timer.
   */
  failTimer(kind: TimerKind, retryAt: number, error: string): Timer {
    this.ensureSchema();
    const row = this.sql
      .exec<{ kind: TimerKind; due_at: number; failures: number; last_error: string | null }>(
        `INSERT INTO timers (kind, due_at, failures, last_error) VALUES (?1, ?2, 1, ?3)
         ON CONFLICT (kind) DO UPDATE SET due_at = ?2, failures = failures + 1, last_error = ?3 RETURNING *`,
        kind,
        retryAt,
        error,
      )
      .one();
    return { kind: row.kind, dueAt: row.due_at, failures: row.failures, lastError: row.last_error };
  }

  timers(): Timer[] {
    if (!this.hasStorage()) return [];
    this.ensureSchema();
    return this.sql
      .exec<{ kind: TimerKind; due_at: number; failures: number; last_error: string | null }>(`SELECT * FROM timers ORDER BY due_at, kind`)
      .toArray()
      .map((row) => ({ kind: row.kind, dueAt: row.due_at, failures: row.failures, lastError: row.last_error }));
  }

  nextDue(): number | null {
    if (!this.hasStorage()) return null;
    return this.sql.exec<{ due: number | null }>(`SELECT MIN(due_at) AS due FROM timers`).one().due;
  }

  // ---- outbox

  pendingEvents(): { eventId: string; message: WebhookMessage }[] {
    if (!this.hasStorage()) return [];
    this.ensureSchema();
    return this.sql
      .exec<{ event_id: string; message: string }>(`SELECT event_id, message FROM outbox WHERE sent = 0 ORDER BY rowid`)
      .toArray()
      .map((row) => ({ eventId: row.event_id, message: JSON.parse(row.message) as WebhookMessage }));
  }

  markSent(eventIds: string[]): void {
    this.storage.transactionSync(() => {
      for (const id of eventIds) this.sql.exec(`UPDATE outbox SET sent = 1 WHERE event_id = ?`, id);
    });
  }

  /** Every event the order has stored, sent or not, in order (tests and audits). */
  events(): { eventId: string; type: string; sent: boolean }[] {
    if (!this.hasStorage()) return [];
    this.ensureSchema();
    return this.sql
      .exec<{ event_id: string; message: string; sent: number }>(`SELECT event_id, message, sent FROM outbox ORDER BY rowid`)
      .toArray()
      .map((row) => ({ eventId: row.event_id, type: (JSON.parse(row.message) as WebhookMessage).event.type, sent: row.sent === 1 }));
  }
}
