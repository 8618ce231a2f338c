import { currentVersion, migrationsAfter, type Migration } from "../kernel/migrations";
import type { OrderEvent, WebhookMessage } from "../webhooks/events";
import { OUTBOX_PREFIX, outboxEntry, outboxKey, pendingOf, type OutboxEntry } from "./order-outbox";
import type { OrderRecord } from "./order-record";
import {
  INDEX_DELAY_MS,
  indexWriteDue,
  afterFailure,
  afterRun,
  byDueTime,
  scheduled,
  without,
  worstFailing,
  type StuckReport,
  type Timer,
  type TimerKind,
} from "./order-timers";

/**
 * The order object's storage: the order document, the due times behind its one alarm (their rules in
 * src/orders/order-timers.ts), and the outbox of webhook events (src/orders/order-outbox.ts). It lives in
 * the object's key-value storage: one value (`order`: the document with its timers) is written per state
 * change, and one more per webhook event (`outbox:<seq>`). The whole document is held in memory once read,
 * so the due time of the next timer or the order itself costs no storage read after the first.
 *
 * Why the key-value API and not a table of the order's own: workerd creates the key-value table at an
 * object's first write (with its 14 statements prepared, ≈ 0.17 ms of CPU per order), but that is the
 * runtime's work and is not billed, while a CREATE TABLE of our own is billed as 2 SQLite rows written
 * per order. Measured both ways (docs/performance-notes.md): the own table saved 2–3 % of a flow's CPU, worth
 * about USD 0.001 per million orders at Cloudflare's prices, and cost USD 2 per million in rows.
 *
 * Orders stored before this layout (versions 0 to 2) sit in SQL tables; the first load moves them here
 * in one transaction (see `migrateFromTables`), so every order already stored has a path.
 */

/** A step of the order's document (the shape every object's storage versions take: src/kernel/migrations.ts). */
export type DocumentMigration = Migration<(doc: StoredDocument) => StoredDocument>;

/**
 * The versions of the key-value document. Version 3 is the layout's first: its step is the move out of the
 * SQL tables of versions 0 to 2 (TABLE_MIGRATIONS below), made on first read by `migrateFromTables`, which
 * writes a version-3 document. A change of the document's shape adds its migration here, and every order
 * reaches it on its next read (see `upgradeDocument`).
 */
export const DOCUMENT_MIGRATIONS: readonly DocumentMigration[] = [
  {
    version: 3,
    description: "the key-value layout: the order document with its timers, one value per outbox event",
    up: (doc) => doc,
  },
];

/** The version of the order's storage: the last of DOCUMENT_MIGRATIONS. */
export const ORDER_SCHEMA_VERSION = currentVersion(DOCUMENT_MIGRATIONS);

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
  /**
   * The wallet a create is holding at while it has stored no order (set before the hold is asked for), so
   * that a create that dies before storing its order, or a retry with another body, can let go of the hold.
   */
  pendingHold?: Pick<OrderRecord, "clientId" | "wallet" | "walletRegion" | "walletGeneration"> | null;
  /**
   * Changes of the order the order index shows, counted: the version its row is written with, so that the
   * index takes only a newer one. Absent in a document stored before it was kept: 0.
   */
  indexVersion?: number;
  /**
   * The events of an order without a webhookUrl (docs/books.md, "Events"): held in the document, written
   * with the change they announce at no row of their own, for the order's books write to carry to its
   * client's books. An order with a webhookUrl keeps its events in the outbox, which the queue needs.
   */
  bookEvents?: OrderEvent[];
}

const DOCUMENT_KEY = "order";

/** A stored document brought to the last version of `migrations`, one migration after another; pure. */
export function upgradeDocument(
  doc: StoredDocument,
  migrations: readonly DocumentMigration[] = DOCUMENT_MIGRATIONS,
): StoredDocument {
  let upgraded = doc;
  for (const migration of migrationsAfter(migrations, doc.version)) {
    upgraded = { ...migration.up(upgraded), version: migration.version };
  }
  return upgraded;
}

const EMPTY: StoredDocument = {
  version: ORDER_SCHEMA_VERSION,
  order: null,
  timers: [],
  outboxCount: 0,
  reported: null,
};

/**
 * The SQL schema of versions 0 to 2, kept to read an order stored under it (IF NOT EXISTS: a version-0
 * order has some of the tables already).
 */
const TABLE_MIGRATIONS: readonly Migration<(sql: SqlStorage) => void>[] = [
  {
    version: 1,
    description: "the order document, its timers and its outbox in tables, with a schema_meta table",
    up: (sql) =>
      sql.exec(`
        CREATE TABLE IF NOT EXISTS order_record (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS timers (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS outbox (
          event_id TEXT PRIMARY KEY, message TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0
        );`),
  },
  {
    version: 2,
    description: "timers count their failures",
    up: (sql) =>
      sql.exec(`
        ALTER TABLE timers ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE timers ADD COLUMN last_error TEXT;`),
  },
];

export class OrderStore {
  private readonly sql: SqlStorage;
  private readonly kv: SyncKvStorage;
  /** The stored document as this instance last read or wrote it; null until first read. */
  private doc: StoredDocument | null = null;

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    this.kv = storage.kv;
  }

  /** Forgets what this instance holds in memory, as a new instance would start (fault tests' reset). */
  forget(): void {
    this.doc = null;
  }

  /** The document, read once per instance (a new or unknown order reads as empty and stores nothing). */
  private read(): StoredDocument {
    if (this.doc !== null) return this.doc;
    const stored = this.kv.get<string>(DOCUMENT_KEY);
    this.doc =
      stored !== undefined
        ? upgradeDocument(JSON.parse(stored) as StoredDocument)
        : (this.migrateFromTables() ?? EMPTY);
    return this.doc;
  }

  private write(doc: StoredDocument): void {
    this.kv.put(DOCUMENT_KEY, JSON.stringify(doc));
    this.doc = doc;
  }

  /**
   * An order stored under versions 0 to 2 moves into the key-value layout, in one transaction: tables
   * brought to version 2, document, timers and outbox copied, tables dropped. Null when there are none
   * (a new order: one read of sqlite_master, no write).
   */
  private migrateFromTables(): StoredDocument | null {
    const legacy =
      this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'order_record'`).toArray().length > 0;
    if (!legacy) return null;
    return this.storage.transactionSync(() => {
      this.sql.exec(
        `CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`,
      );
      const stored =
        this.sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0]?.version ?? 0;
      for (const migration of migrationsAfter(TABLE_MIGRATIONS, stored)) migration.up(this.sql);
      const row = this.sql.exec<{ doc: string }>(`SELECT doc FROM order_record WHERE id = 1`).toArray()[0];
      const timers = this.sql
        .exec<{ kind: TimerKind; due_at: number; failures: number; last_error: string | null }>(`SELECT * FROM timers`)
        .toArray()
        .map((timer) => ({
          kind: timer.kind,
          dueAt: timer.due_at,
          failures: timer.failures,
          lastError: timer.last_error,
        }))
        .sort(byDueTime);
      const events = this.sql
        .exec<{ event_id: string; message: string; sent: number }>(
          `SELECT event_id, message, sent FROM outbox ORDER BY rowid`,
        )
        .toArray();
      events.forEach((event, index) => {
        const entry: OutboxEntry = {
          seq: index + 1,
          eventId: event.event_id,
          message: event.message,
          sent: event.sent === 1,
        };
        this.kv.put(outboxKey(entry.seq), entry);
      });
      const doc: StoredDocument = {
        version: ORDER_SCHEMA_VERSION,
        order: row ? (JSON.parse(row.doc) as OrderRecord) : null,
        timers,
        outboxCount: events.length,
      };
      this.kv.put(DOCUMENT_KEY, JSON.stringify(doc));
      this.sql.exec(`DROP TABLE order_record; DROP TABLE timers; DROP TABLE outbox; DROP TABLE schema_meta;`);
      return doc;
    });
  }

  /** The version the order's storage is at: 3 once anything is stored (migrated on first read), else 0. */
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
   * A change the books show (`indexed`) counts one more index version and, unless a write to the books is
   * already due (indexWriteDue), sets the `index` timer INDEX_DELAY_MS from now, in the same write.
   */
  save(
    order: OrderRecord,
    timers: Partial<Record<TimerKind, number | null>>,
    event: WebhookMessage | null,
    indexed = false,
  ): void {
    const doc = this.read();
    let changed = doc.timers;
    for (const [kind, at] of Object.entries(timers) as [TimerKind, number | null][])
      changed = at === null ? without(changed, kind) : scheduled(changed, kind, at);
    const indexVersion = (doc.indexVersion ?? 0) + (indexed ? 1 : 0);
    if (indexed && !indexWriteDue(changed, Date.now()))
      changed = scheduled(changed, "index", Date.now() + INDEX_DELAY_MS);
    if (event === null) {
      this.write({ ...doc, order, timers: changed, indexVersion });
      return;
    }
    if (event.url === "") {
      this.write({
        ...doc,
        order,
        timers: changed,
        indexVersion,
        bookEvents: [...(doc.bookEvents ?? []), event.event],
      });
      return;
    }
    const seq = doc.outboxCount + 1;
    this.storage.transactionSync(() => {
      this.kv.put(outboxKey(seq), outboxEntry(seq, event));
      this.write({ ...doc, order, timers: scheduled(changed, "outbox", Date.now()), outboxCount: seq, indexVersion });
    });
  }

  /** The wallet a create that stored no order holds at (StoredDocument.pendingHold), or null. */
  pendingHold(): StoredDocument["pendingHold"] {
    return this.read().pendingHold ?? null;
  }

  /**
   * Records (or, with null, forgets) the wallet a create is about to hold at; with `expireAt`, schedules
   * the expiry timer in the same write (one row written, not two).
   */
  notePendingHold(at: StoredDocument["pendingHold"], expireAt?: number): void {
    const doc = this.read();
    if ((doc.pendingHold ?? null) === null && at === null && expireAt === undefined) return;
    const timers = expireAt === undefined ? doc.timers : scheduled(doc.timers, "expire", expireAt);
    this.write({ ...doc, pendingHold: at, timers });
  }

  /** The order's index version: its count of changes the order index shows. */
  indexVersion(): number {
    return this.read().indexVersion ?? 0;
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

  /**
   * Removes a timer that ran, unless it was set again meanwhile; a timer that ran is no longer failing.
   * With `stored` false the removal of a timer that had not failed changes only the document this
   * instance holds, and the next write of the document for any other reason stores it (the `index` timer:
   * see src/orders/index-flow.ts); a timer that had failed is stored as recovered.
   */
  completeTimer(timer: Timer, stored = true): void {
    const doc = this.read();
    const timers = afterRun(doc.timers, timer);
    if (timers === null) return;
    if (stored || timer.failures > 0) this.write({ ...doc, timers });
    else this.doc = { ...doc, timers };
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
  worstFailing(threshold: number): ReturnType<typeof worstFailing> {
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
    return [...this.kv.list<OutboxEntry>({ prefix: OUTBOX_PREFIX })].map(([, entry]) => entry);
  }

  pendingEvents(): { eventId: string; message: WebhookMessage }[] {
    return pendingOf(this.outbox());
  }

  markSent(eventIds: string[]): void {
    const ids = new Set(eventIds);
    this.storage.transactionSync(() => {
      for (const entry of this.outbox())
        if (ids.has(entry.eventId) && !entry.sent) this.kv.put(outboxKey(entry.seq), { ...entry, sent: true });
    });
  }

  /**
   * Every event of the order, in the order they were stored: its outbox's and those held in its document
   * (an order without a webhookUrl). What its books write carries to its client's books.
   */
  allEvents(): OrderEvent[] {
    const outboxed = this.outbox().map((entry) => (JSON.parse(entry.message) as WebhookMessage).event);
    return [...outboxed, ...(this.read().bookEvents ?? [])];
  }

  /** Every event the order has stored, sent or not, in order (tests and audits). */
  events(): { eventId: string; type: string; sent: boolean }[] {
    return this.outbox().map((entry) => ({
      eventId: entry.eventId,
      type: (JSON.parse(entry.message) as WebhookMessage).event.type,
      sent: entry.sent,
    }));
  }
}
