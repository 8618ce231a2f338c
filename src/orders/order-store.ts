import type { WebhookMessage } from "../webhooks/events";
import { OUTBOX_PREFIX, outboxEntry, outboxKey, pendingOf, type OutboxEntry } from "./order-outbox";
import type { OrderRecord } from "./order-record";
import { afterFailure, afterRun, byDueTime, scheduled, without, worstFailing, type StuckReport, type Timer, type TimerKind } from "./order-timers";

/**
 * The order object's storage: the order document, the due times behind its one alarm (their rules in
 * src/orders/order-timers.ts), and the outbox of webhook events (src/orders/order-outbox.ts), as values
 * of one table of the object's own, `order_data` (key, value): one value (`order`: the document with its
 * timers) written per state change, and one more per webhook event (`outbox:<seq>`). The whole document
 * is held in memory once read, so the due time of the next timer or the order itself costs no storage
 * read after the first.
 *
 * Why a table and not the key-value API: workerd creates the key-value API's table on an object's first
 * write and prepares its 14 statements then, which for an object that lives as briefly as an order was
 * the largest piece of its storage cost (`npm run bench:native`); one table with the two statements used
 * costs less (2–3 % of an order flow's CPU, docs/benchmarks.md). The table is created by the first write.
 *
 * Orders stored before this layout have a path: the SQL tables of versions 0 to 2 and the key-value
 * values of version 3 move here in one transaction on first read.
 */

/**
 * Versions of the order's storage. 0: SQL tables before they were versioned; 1: a schema_meta table; 2:
 * timers count their failures; 3: the same document in the key-value API; 4: that document in the
 * order_data table of this file.
 */
export const ORDER_SCHEMA_VERSION = 4;

/** The value under DOCUMENT_KEY: the order (null while only a timer exists) with its timers. */
export interface StoredDocument {
  version: number;
  order: OrderRecord | null;
  /** Sorted by due time, then kind: the first is the one the alarm is set to. */
  timers: Timer[];
  /** Events stored so far; the next one is `outbox:<outboxCount + 1>`. */
  outboxCount: number;
  /**
   * What the stuck list last got for this order (null: no row), so that a run that changes nothing there
   * writes nothing to D1. Absent in a document stored before it was kept: then what D1 holds is unknown.
   */
  reported?: StuckReport | null;
}

const DOCUMENT_KEY = "order";

/** The first version stored as one document (in the key-value API, then in order_data); earlier ones are the SQL tables below. */
const DOCUMENT_LAYOUT_VERSION = 3;

/**
 * Migrations of the document: DOCUMENT_MIGRATIONS[n] takes a document of version
 * DOCUMENT_LAYOUT_VERSION + n to the next. A change of the document's shape adds one here and raises
 * ORDER_SCHEMA_VERSION, and every order reaches it on its next read (see `upgradeDocument`).
 */
const DOCUMENT_MIGRATIONS: readonly ((doc: StoredDocument) => StoredDocument)[] = [
  // 3 → 4: the same document; only where it is stored changed (moveFromKeyValue).
  (doc) => doc,
];

/** Where versions 3 and on keep the document and the outbox. */
const TABLE = "order_data";

/** A stored document brought to the current version, one migration after another; pure. */
export function upgradeDocument(
  doc: StoredDocument,
  migrations: readonly ((doc: StoredDocument) => StoredDocument)[] = DOCUMENT_MIGRATIONS,
  target = ORDER_SCHEMA_VERSION,
): StoredDocument {
  let upgraded = doc;
  while (upgraded.version < target) {
    const migrate = migrations[upgraded.version - DOCUMENT_LAYOUT_VERSION];
    if (migrate === undefined) throw new Error(`order document of version ${upgraded.version} has no migration to ${target}`);
    upgraded = { ...migrate(upgraded), version: upgraded.version + 1 };
  }
  return upgraded;
}

const EMPTY: StoredDocument = { version: ORDER_SCHEMA_VERSION, order: null, timers: [], outboxCount: 0, reported: null };

/**
 * The SQL schema of versions 0 to 2, kept to read an order stored under it. Migration N takes the tables
 * from version N to N + 1 (IF NOT EXISTS: a version-0 order has some of them already).
 */
const TABLE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
   CREATE TABLE IF NOT EXISTS outbox (event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0);`,
  `ALTER TABLE timers ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE timers ADD COLUMN last_error TEXT;`,
];

export class OrderStore {
  private readonly sql: SqlStorage;
  private readonly kv: SyncKvStorage;
  /** The stored document as this instance last read or wrote it; null until first read. */
  private doc: StoredDocument | null = null;
  /** Whether order_data exists (known from the first read): the first write creates it. */
  private tableExists = false;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    this.kv = storage.kv;
  }

  /** Forgets what this instance holds in memory, as a new instance would start (fault tests' reset). */
  forget(): void {
    this.doc = null;
  }

  /**
   * The document, read once per instance. A new or unknown order reads as empty and stores nothing; one
   * statement tells which layout the object has, and a value in the key-value API (version 3) is looked
   * up only when order_data is absent (free when that API's table does not exist).
   */
  private read(): StoredDocument {
    if (this.doc !== null) return this.doc;
    const tables = this.sql
      .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('${TABLE}', 'order_record')`)
      .toArray()
      .map((row) => row.name);
    this.tableExists = tables.includes(TABLE);
    if (this.tableExists) {
      const stored = this.value(DOCUMENT_KEY);
      this.doc = stored !== undefined ? upgradeDocument(JSON.parse(stored) as StoredDocument) : EMPTY;
    } else if (this.kv.get(DOCUMENT_KEY) !== undefined) {
      this.doc = this.moveFromKeyValue();
    } else {
      this.doc = tables.includes("order_record") ? this.migrateFromTables() : EMPTY;
    }
    return this.doc;
  }

  private value(key: string): string | undefined {
    return this.sql.exec<{ value: string }>(`SELECT value FROM ${TABLE} WHERE key = ?`, key).toArray()[0]?.value;
  }

  private put(key: string, value: string): void {
    if (!this.tableExists) {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
      this.tableExists = true;
    }
    this.sql.exec(`INSERT INTO ${TABLE} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value);
  }

  private write(doc: StoredDocument): void {
    this.put(DOCUMENT_KEY, JSON.stringify(doc));
    this.doc = doc;
  }

  /**
   * An order stored at version 3 (its document and outbox as values of the key-value API) moves into
   * order_data in one transaction, and the key-value values are deleted.
   */
  private moveFromKeyValue(): StoredDocument {
    return this.storage.transactionSync(() => {
      const doc = upgradeDocument(JSON.parse(this.kv.get<string>(DOCUMENT_KEY)!) as StoredDocument);
      for (const [key, entry] of [...this.kv.list<OutboxEntry>({ prefix: OUTBOX_PREFIX })]) {
        this.put(key, JSON.stringify(entry));
        this.kv.delete(key);
      }
      this.write(doc);
      this.kv.delete(DOCUMENT_KEY);
      return doc;
    });
  }

  /**
   * An order stored under versions 0 to 2 moves into order_data, in one transaction: tables brought to
   * version 2, document, timers and outbox copied, tables dropped.
   */
  private migrateFromTables(): StoredDocument {
    return this.storage.transactionSync(() => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
      const stored = this.sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0]?.version ?? 0;
      for (let version = stored; version < TABLE_MIGRATIONS.length; version += 1) this.sql.exec(TABLE_MIGRATIONS[version]!);
      const row = this.sql.exec<{ doc: string }>(`SELECT doc FROM order_record WHERE id = 1`).toArray()[0];
      const timers = this.sql
        .exec<{ kind: TimerKind; due_at: number; failures: number; last_error: string | null }>(`SELECT * FROM timers`)
        .toArray()
        .map((timer) => ({ kind: timer.kind, dueAt: timer.due_at, failures: timer.failures, lastError: timer.last_error }))
        .sort(byDueTime);
      const events = this.sql.exec<{ event_id: string; message: string; sent: number }>(`SELECT event_id, message, sent FROM outbox ORDER BY rowid`).toArray();
      events.forEach((event, index) => {
        const entry: OutboxEntry = { seq: index + 1, eventId: event.event_id, message: event.message, sent: event.sent === 1 };
        this.put(outboxKey(entry.seq), JSON.stringify(entry));
      });
      const doc: StoredDocument = { version: ORDER_SCHEMA_VERSION, order: row ? (JSON.parse(row.doc) as OrderRecord) : null, timers, outboxCount: events.length };
      this.write(doc);
      this.sql.exec(`DROP TABLE order_record; DROP TABLE timers; DROP TABLE outbox; DROP TABLE schema_meta;`);
      return doc;
    });
  }

  /** The version the order's storage is at: the current one once anything is stored (migrated on first read), else 0. */
  schemaVersion(): number {
    const doc = this.read();
    return doc === EMPTY ? 0 : doc.version;
  }

  load(): OrderRecord | null {
    return this.read().order;
  }

  /**
   * Stores the order, the timers that follow from the change (null clears one) and an outbox event, in
   * one transaction: an event or a due time exists exactly when the state change that calls for it does.
   */
  save(order: OrderRecord, timers: Partial<Record<TimerKind, number | null>>, event: WebhookMessage | null): void {
    const doc = this.read();
    let changed = doc.timers;
    for (const [kind, at] of Object.entries(timers) as [TimerKind, number | null][]) changed = at === null ? without(changed, kind) : scheduled(changed, kind, at);
    if (event === null) {
      this.write({ ...doc, order, timers: changed });
      return;
    }
    const seq = doc.outboxCount + 1;
    this.storage.transactionSync(() => {
      this.put(outboxKey(seq), JSON.stringify(outboxEntry(seq, event)));
      this.write({ ...doc, order, timers: scheduled(changed, "outbox", Date.now()), outboxCount: seq });
    });
  }

  // ---- timers

  /** Sets a timer's due time; a timer that is failing keeps its count of failures. */
  schedule(kind: TimerKind, at: number): void {
    const doc = this.read();
    this.write({ ...doc, timers: scheduled(doc.timers, kind, at) });
  }

  clearTimer(kind: TimerKind): void {
    const doc = this.read();
    if (!doc.timers.some((timer) => timer.kind === kind)) return;
    this.write({ ...doc, timers: without(doc.timers, kind) });
  }

  /** Removes a timer that ran, unless it was set again meanwhile; a timer that ran is no longer failing. */
  completeTimer(timer: Timer): void {
    const doc = this.read();
    const timers = afterRun(doc.timers, timer);
    if (timers !== null) this.write({ ...doc, timers });
  }

  /** Records a run that failed at `now`: the timer is due again after its retry delay (never dropped). */
  failTimer(kind: TimerKind, now: number, error: string): Timer {
    const doc = this.read();
    const { timers, failed } = afterFailure(doc.timers, kind, now, error);
    this.write({ ...doc, timers });
    return failed;
  }

  timers(): Timer[] {
    return [...this.read().timers];
  }

  nextDue(): number | null {
    return this.read().timers[0]?.dueAt ?? null;
  }

  /** The timer that has failed most often in a row, at least `threshold` times (see order-timers.ts). */
  worstFailing(threshold: number): Timer | null {
    return worstFailing(this.read().timers, threshold);
  }

  /** What the stuck list was last given (null: no row); undefined when not known (an older document). */
  reported(): StuckReport | null | undefined {
    return this.read().reported;
  }

  /** Records what the stuck list now holds; the `report` timer that retried it goes in the same write. */
  markReported(report: StuckReport | null): void {
    const doc = this.read();
    this.write({ ...doc, reported: report, timers: without(doc.timers, "report") });
  }

  // ---- outbox

  /** Every stored event, sent or not, in the order they were stored. */
  outbox(): OutboxEntry[] {
    if (this.read().outboxCount === 0) return [];
    // Keys from "outbox:" up to "outbox;" (the next character): the outbox's, in the order they were stored.
    return this.sql
      .exec<{ value: string }>(`SELECT value FROM ${TABLE} WHERE key >= ? AND key < ? ORDER BY key`, OUTBOX_PREFIX, `${OUTBOX_PREFIX.slice(0, -1)};`)
      .toArray()
      .map((row) => JSON.parse(row.value) as OutboxEntry);
  }

  pendingEvents(): { eventId: string; message: WebhookMessage }[] {
    return pendingOf(this.outbox());
  }

  markSent(eventIds: string[]): void {
    const ids = new Set(eventIds);
    this.storage.transactionSync(() => {
      for (const entry of this.outbox()) if (ids.has(entry.eventId) && !entry.sent) this.put(outboxKey(entry.seq), JSON.stringify({ ...entry, sent: true }));
    });
  }

  /** Every event the order has stored, sent or not, in order (tests and audits). */
  events(): { eventId: string; type: string; sent: boolean }[] {
    return this.outbox().map((entry) => ({ eventId: entry.eventId, type: (JSON.parse(entry.message) as WebhookMessage).event.type, sent: entry.sent }));
  }
}
