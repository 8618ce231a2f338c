/**
 * The wallet object's storage: one versioned schema and the ledger's load and append. Nothing here knows
 * RPC or HTTP; the object opens one LedgerStore per instance and the posting rules (postings.ts) use it.
 *
 * The schema has a stored version (table `schema_meta`) and ordered migrations; opening applies each
 * migration newer than the stored version once, each in one transaction with its version bump. A wallet
 * written before versions existed (version 0) has the ledger and its triggers already; migration 1
 * creates them only if absent, so such a wallet moves to version 1 without a change to its rows.
 */
import { currentVersion, migrationsAfter, type Migration } from "../kernel/migrations";
import { Money } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";

/** A step of the wallet's schema (the shape every object's storage versions take: src/kernel/migrations.ts). */
export type WalletMigration = Migration<(sql: SqlStorage) => void>;

export const WALLET_MIGRATIONS: readonly WalletMigration[] = [
  {
    version: 1,
    description: "append-only ledger, one entry per key",
    up(sql) {
      sql.exec(`
        CREATE TABLE IF NOT EXISTS ledger (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          entry_key TEXT NOT NULL UNIQUE,
          kind TEXT NOT NULL,
          amount TEXT NOT NULL,
          balance_after TEXT NOT NULL,
          order_id TEXT,
          reason TEXT,
          created_at INTEGER NOT NULL
        );
        CREATE TRIGGER IF NOT EXISTS ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
        CREATE TRIGGER IF NOT EXISTS ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
      `);
    },
  },
  {
    version: 2,
    description: "entries findable by order (a void refuses later charges of its order)",
    up(sql) {
      sql.exec(`CREATE INDEX IF NOT EXISTS ledger_by_order ON ledger (order_id, kind)`);
    },
  },
  {
    version: 3,
    description: "voids and holds beside the ledger: neither is a movement of money",
    up(sql) {
      // A void marks an order that can never be charged. One row per order, without a rowid so that the
      // mark is one written row; the voids written into the ledger before this table existed move here,
      // and the ledger's views leave out those of amount 0 (they moved no money).
      sql.exec(`
        CREATE TABLE IF NOT EXISTS order_voids (order_id TEXT PRIMARY KEY, voided_at INTEGER NOT NULL, reason TEXT) WITHOUT ROWID;
        INSERT OR IGNORE INTO order_voids (order_id, voided_at, reason)
          SELECT order_id, created_at, reason FROM ledger WHERE kind = 'order_void' AND order_id IS NOT NULL;
        CREATE TABLE IF NOT EXISTS holds (order_id TEXT PRIMARY KEY, amount TEXT NOT NULL, until INTEGER NOT NULL) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 4,
    description: "a wallet moved to another object: its successor, and what each transfer out carried",
    up(sql) {
      // `moved` has a row once the wallet has moved (it then takes no new charge, hold or posting); each
      // move_out entry has a row in `transfers` with the holds it carried to the successor.
      sql.exec(`
        CREATE TABLE IF NOT EXISTS moved (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, region TEXT, move_key TEXT NOT NULL, moved_at INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS transfers (entry_key TEXT PRIMARY KEY, holds TEXT NOT NULL) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 5,
    description: "each hold counts the codes its order reserves (a cap bounds a client's open held stock)",
    up(sql) {
      sql.exec(`ALTER TABLE holds ADD COLUMN codes INTEGER NOT NULL DEFAULT 0`);
    },
  },
  {
    version: 6,
    description: "a posting's client-facing note beside its reason, and the restores that wrote this ledger",
    up(sql) {
      // `note` is what the client's ledger and statement show of an operator's posting; `reason` stays the
      // operator's. A restore that wrote entries leaves a row in `restores` (through the last seq it
      // wrote): the reconciliation takes restored entries as audited only where the wallet says a restore
      // wrote them.
      sql.exec(`
        ALTER TABLE ledger ADD COLUMN note TEXT;
        CREATE TABLE IF NOT EXISTS restores (through_seq INTEGER PRIMARY KEY, entries INTEGER NOT NULL, balance TEXT NOT NULL, restored_at INTEGER NOT NULL);
      `);
    },
  },
  {
    version: 7,
    description: "the open orders that hold no codes, in reused slots, and the client's expiries in a row",
    up(sql) {
      // An order that reserves no codes takes a slot until its expiresAt; a slot is free again once its
      // order is charged or voided (read from the ledger and the void marks, so a confirm writes nothing
      // here) or its time has passed, and the next create writes over it: the table holds no more rows
      // than the client's open orders ever were at once. `expiry_streak` counts the client's orders in a
      // row that expired unconfirmed (one row, written by an expiry and by the first charge after one).
      sql.exec(`
        CREATE TABLE IF NOT EXISTS open_slots (slot INTEGER PRIMARY KEY, order_id TEXT NOT NULL, until INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS expiry_streak (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL, last_at INTEGER NOT NULL);
      `);
    },
  },
  {
    version: 8,
    description: "an order's movements carry the order's creation day (the reconciliation's day of them)",
    up(sql) {
      // A column of the entry's own row: no row more written. Entries written before it hold NULL and are
      // attributed to the day of their own time (docs/operator-api.md, Reconciliation).
      sql.exec(`ALTER TABLE ledger ADD COLUMN order_day INTEGER`);
    },
  },
  {
    version: 9,
    description: "the client's low-balance alert, and the wallet's events waiting for the client's books",
    up(sql) {
      // `balance_alert` (one row once the client sets a threshold) says whether a fall below it fires
      // wallet.low (`armed`) and when it last did. `event_outbox` holds each event (wallet.funded,
      // wallet.low) written in the same transaction as the change it announces, until the wallet's alarm
      // has handed it to the client's books (src/wallets/wallet-events.ts).
      sql.exec(`
        CREATE TABLE IF NOT EXISTS balance_alert (id INTEGER PRIMARY KEY CHECK (id = 1), client_id TEXT NOT NULL, currency TEXT NOT NULL, threshold TEXT NOT NULL, armed INTEGER NOT NULL, fired_at INTEGER);
        CREATE TABLE IF NOT EXISTS event_outbox (event_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, payload TEXT NOT NULL) WITHOUT ROWID;
      `);
    },
  },
];

export const WALLET_SCHEMA_VERSION = currentVersion(WALLET_MIGRATIONS);

/** The stored schema version: 0 for a wallet written before versions existed (or a new one). */
export function storedSchemaVersion(sql: SqlStorage): number {
  sql.exec(`CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
  const row = sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0];
  return row?.version ?? 0;
}

/** Applies, in order and each once, the migrations newer than the stored version. */
export function migrateWallet(
  storage: DurableObjectStorage,
  migrations: readonly WalletMigration[] = WALLET_MIGRATIONS,
): number {
  const sql = storage.sql;
  let version = storedSchemaVersion(sql);
  for (const migration of migrationsAfter(migrations, version)) {
    storage.transactionSync(() => {
      migration.up(sql);
      sql.exec(
        `INSERT INTO schema_meta (id, version) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
        migration.version,
      );
    });
    version = migration.version;
  }
  return version;
}

interface LedgerRow {
  seq: number;
  entry_key: string;
  kind: string;
  amount: string;
  balance_after: string;
  order_id: string | null;
  reason: string | null;
  created_at: number;
  note: string | null;
  [key: string]: SqlStorageValue;
}

function entryFromRow(row: LedgerRow): LedgerEntry {
  return {
    seq: row.seq,
    key: row.entry_key,
    kind: row.kind as LedgerKind,
    amount: row.amount,
    balanceAfter: row.balance_after,
    orderId: row.order_id,
    reason: row.reason,
    createdAt: row.created_at,
    note: row.note ?? null,
  };
}

/** An open order's claim on the balance, as stored (and as a move carries it to the successor). */
export interface StoredHold {
  orderId: string;
  amount: string;
  /** The order's expiresAt, for the reader: a hold does not lapse by the clock (see `heldBesides`). */
  until: number;
  /** The codes the order reserves; absent in a transfer written before holds counted them. */
  codes?: number;
}

/** Where a moved wallet's successor is: its generation and region, and the key of the move. */
export interface Successor {
  generation: number;
  region: string | null;
  moveKey: string;
  movedAt: number;
}

/** An order voided for good: a mark beside the ledger that refuses any later charge of the order. */
export interface VoidMark {
  orderId: string;
  voidedAt: number;
  reason: string | null;
}

export interface NewEntry {
  key: string;
  kind: LedgerKind;
  /** Signed: credits positive, debits negative. */
  amount: Money;
  balanceAfter: Money;
  orderId: string | null;
  reason: string | null;
  /** The client-facing note of an operator's posting (null: none). */
  note?: string | null;
  /** The UTC day its order was created on (an order's movement), else absent. */
  orderDay?: number | null;
}

/** An entry as the reconciliation's day summary reads it (ledger-day-rules.ts). */
/** An entry as an export carries it: a ledger entry whose note older exports left out. */
export type RestoredEntry = Omit<LedgerEntry, "note"> & { note?: string | null };

export interface DayRow {
  seq: number;
  key: string;
  kind: LedgerKind;
  amount: string;
  balanceAfter: string;
  orderId: string | null;
  orderDay: number | null;
  createdAt: number;
}

/**
 * A slot (`s`) whose order is still open at ?2: its time not passed, its order neither charged (its charge's
 * key in the ledger: ledger-keys.ts, chargeKey) nor voided. Read through the ledger's key index and the
 * voids' primary key.
 */
const OPEN_SLOT = `s.until > ?2 AND NOT EXISTS (SELECT 1 FROM ledger WHERE entry_key = 'order:' || s.order_id || ':charge')
  AND NOT EXISTS (SELECT 1 FROM order_voids v WHERE v.order_id = s.order_id)`;

/** One wallet's ledger in its object's SQLite. Synchronous, so a read and the append after it cannot interleave. */
export class LedgerStore {
  private readonly sql: SqlStorage;
  /** The newest entry's running balance, read once per instance: only this object writes the ledger. */
  private balanceCache: Money | null = null;
  /**
   * True once this instance has read that the wallet has not moved: every call asks, and only markMoved
   * (here) changes it. A moved wallet is not remembered, so a move rolled back with its step leaves
   * nothing stale behind.
   */
  private knownUnmoved = false;

  constructor(storage: DurableObjectStorage) {
    migrateWallet(storage);
    this.sql = storage.sql;
  }

  balance(): Money {
    if (this.balanceCache === null) {
      const row = this.sql
        .exec<{ balance_after: string }>(`SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1`)
        .toArray()[0];
      this.balanceCache = new Money(row?.balance_after ?? 0);
    }
    return this.balanceCache;
  }

  byKey(key: string): LedgerEntry | null {
    const row = this.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE entry_key = ?`, key).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  /** When the first of these orders was voided, or null: one statement, as every charge asks it. */
  voidedAt(orderIds: readonly string[]): number | null {
    if (orderIds.length === 0) return null;
    const marks = orderIds.map(() => "?").join(", ");
    const row = this.sql
      .exec<{ voided_at: number }>(
        `SELECT voided_at FROM order_voids WHERE order_id IN (${marks}) ORDER BY voided_at LIMIT 1`,
        ...orderIds,
      )
      .toArray()[0];
    return row?.voided_at ?? null;
  }

  /** Every void mark, oldest first: what a backup of the wallet must carry besides its entries. */
  voids(): VoidMark[] {
    return this.sql
      .exec<{ order_id: string; voided_at: number; reason: string | null }>(
        `SELECT order_id, voided_at, reason FROM order_voids ORDER BY voided_at, order_id`,
      )
      .toArray()
      .map((row) => ({ orderId: row.order_id, voidedAt: row.voided_at, reason: row.reason }));
  }

  /** Marks the order voided for good (a second mark changes nothing). */
  markVoided(orderId: string, reason: string | null, at: number): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO order_voids (order_id, voided_at, reason) VALUES (?, ?, ?)`,
      orderId,
      at,
      reason,
    );
  }

  /**
   * What the other orders' holds hold: their amounts' sum and their codes. A hold stands until its order is
   * charged or voided, or its create lets go of it, never by the clock alone: its codes stay reserved until
   * the order's expiry gives them back and voids it, so hold and codes lapse together.
   */
  heldBesides(orderId: string): { amount: Money; codes: number } {
    let amount = new Money(0);
    let codes = 0;
    for (const row of this.sql.exec<{ amount: string; codes: number }>(
      `SELECT amount, codes FROM holds WHERE order_id <> ?`,
      orderId,
    )) {
      amount = amount.plus(row.amount);
      codes += row.codes;
    }
    return { amount, codes };
  }

  /** Places (or, for a retried create, replaces) the order's hold. */
  placeHold(orderId: string, amount: Money, until: number, codes: number): void {
    this.sql.exec(
      `INSERT INTO holds (order_id, amount, until, codes) VALUES (?, ?, ?, ?) ON CONFLICT (order_id) DO UPDATE SET amount = excluded.amount, until = excluded.until, codes = excluded.codes`,
      orderId,
      amount.toFixed(),
      until,
      codes,
    );
  }

  /** The order is no longer open (charged, voided, or its create refused): its hold goes. Writes nothing when it has none. */
  dropHold(orderId: string): void {
    this.sql.exec(`DELETE FROM holds WHERE order_id = ?`, orderId);
  }

  /** Every hold that stands. */
  standingHolds(): StoredHold[] {
    return this.sql
      .exec<{ order_id: string; amount: string; until: number; codes: number }>(
        `SELECT order_id, amount, until, codes FROM holds ORDER BY order_id`,
      )
      .toArray()
      .map((row) => ({ orderId: row.order_id, amount: row.amount, until: row.until, codes: row.codes }));
  }

  /** Every hold goes (a move carries the standing ones to the successor). */
  dropAllHolds(): void {
    this.sql.exec(`DELETE FROM holds`);
  }

  /** The successor of a moved wallet, or null while the wallet has not moved. */
  successor(): Successor | null {
    if (this.knownUnmoved) return null;
    const row = this.sql
      .exec<{ generation: number; region: string | null; move_key: string; moved_at: number }>(
        `SELECT generation, region, move_key, moved_at FROM moved WHERE id = 1`,
      )
      .toArray()[0];
    if (row === undefined) {
      this.knownUnmoved = true;
      return null;
    }
    return { generation: row.generation, region: row.region, moveKey: row.move_key, movedAt: row.moved_at };
  }

  /** Marks the wallet moved for good: from here on it takes no new charge, hold or posting. */
  markMoved(successor: Successor): void {
    this.knownUnmoved = false;
    this.sql.exec(
      `INSERT OR IGNORE INTO moved (id, generation, region, move_key, moved_at) VALUES (1, ?, ?, ?, ?)`,
      successor.generation,
      successor.region,
      successor.moveKey,
      successor.movedAt,
    );
  }

  /** Records the holds a transfer out (the move_out entry under `key`) carries. */
  recordTransfer(key: string, holds: readonly StoredHold[]): void {
    this.sql.exec(`INSERT OR IGNORE INTO transfers (entry_key, holds) VALUES (?, ?)`, key, JSON.stringify(holds));
  }

  /** The holds the transfer out under `key` carried, or null when there is no such transfer. */
  transferHolds(key: string): StoredHold[] | null {
    const row = this.sql.exec<{ holds: string }>(`SELECT holds FROM transfers WHERE entry_key = ?`, key).toArray()[0];
    return row === undefined ? null : (JSON.parse(row.holds) as StoredHold[]);
  }

  /** The keys of every transfer out, oldest first. */
  transferKeys(): string[] {
    return this.sql
      .exec<{ entry_key: string }>(`SELECT entry_key FROM ledger WHERE kind = 'move_out' ORDER BY seq`)
      .toArray()
      .map((row) => row.entry_key);
  }

  append(entry: NewEntry): LedgerEntry {
    const row = this.sql
      .exec<LedgerRow>(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at, note, order_day)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        entry.key,
        entry.kind,
        entry.amount.toFixed(),
        entry.balanceAfter.toFixed(),
        entry.orderId,
        entry.reason,
        Date.now(),
        entry.note ?? null,
        entry.orderDay ?? null,
      )
      .one();
    this.balanceCache = entry.balanceAfter;
    return entryFromRow(row);
  }

  /**
   * How many of the client's orders are open besides `orderId`: those holding codes (their holds stand
   * until they are charged or voided), and those in a slot until its time, not charged and not voided.
   */
  openOrders(orderId: string, now: number): number {
    const row = this.sql
      .exec<{ held: number; slotted: number }>(
        `SELECT (SELECT COUNT(*) FROM holds WHERE order_id <> ?1 AND codes > 0) AS held,
                (SELECT COUNT(*) FROM open_slots s WHERE s.order_id <> ?1 AND ${OPEN_SLOT}) AS slotted`,
        orderId,
        now,
      )
      .one();
    return row.held + row.slotted;
  }

  /**
   * Takes a slot for an open order that holds no codes, until `until`: its own if a retried create took one
   * (nothing written), else the first free slot, else a new one. One row written at most.
   */
  takeSlot(orderId: string, until: number, now: number): void {
    const own = this.sql.exec<{ slot: number }>(`SELECT slot FROM open_slots WHERE order_id = ?`, orderId).toArray()[0];
    if (own !== undefined) return;
    const free = this.sql
      .exec<{ slot: number }>(`SELECT slot FROM open_slots s WHERE NOT (${OPEN_SLOT}) ORDER BY slot LIMIT 1`, "", now)
      .toArray()[0];
    if (free !== undefined)
      this.sql.exec(`UPDATE open_slots SET order_id = ?, until = ? WHERE slot = ?`, orderId, until, free.slot);
    else this.sql.exec(`INSERT INTO open_slots (order_id, until) VALUES (?, ?)`, orderId, until);
  }

  /** The client's orders in a row that expired unconfirmed, as stored (null: none yet). */
  expiryStreak(): { count: number; lastAt: number } | null {
    const row = this.sql
      .exec<{ count: number; last_at: number }>(`SELECT count, last_at FROM expiry_streak WHERE id = 1`)
      .toArray()[0];
    return row === undefined ? null : { count: row.count, lastAt: row.last_at };
  }

  /** One more order expired unconfirmed, at `now`: `count` is the run's length with it. */
  noteExpired(count: number, now: number): void {
    this.sql.exec(
      `INSERT INTO expiry_streak (id, count, last_at) VALUES (1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET count = excluded.count, last_at = excluded.last_at`,
      count,
      now,
    );
  }

  /** An order was confirmed (charged): the run of expiries is over. Writes nothing when there is none. */
  endExpiryRun(): void {
    this.sql.exec(`UPDATE expiry_streak SET count = 0 WHERE id = 1 AND count > 0`);
  }

  /** Records that a restore wrote this ledger's entries through `throughSeq` (with its transaction). */
  markRestored(throughSeq: number, entries: number, balance: string, at: number): void {
    this.sql.exec(
      `INSERT OR IGNORE INTO restores (through_seq, entries, balance, restored_at) VALUES (?, ?, ?, ?)`,
      throughSeq,
      entries,
      balance,
      at,
    );
  }

  /**
   * Writes an export's entries verbatim (their seq, time and running balance) into this ledger, with the
   * record that a restore wrote them: the ledger's one writer besides `append`, so that whatever holds the
   * balance in memory hears of it. The restore's own transaction encloses the call.
   */
  writeRestored(entries: readonly RestoredEntry[], balance: string, at: number): void {
    for (const entry of entries) {
      this.sql.exec(
        `INSERT INTO ledger (seq, entry_key, kind, amount, balance_after, order_id, reason, created_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        entry.seq,
        entry.key,
        entry.kind,
        new Money(entry.amount).toFixed(),
        new Money(entry.balanceAfter).toFixed(),
        entry.orderId,
        entry.reason,
        entry.createdAt,
        entry.note ?? null,
      );
    }
    if (entries.length > 0) this.markRestored(entries.at(-1)!.seq, entries.length, new Money(balance).toFixed(), at);
    this.balanceCache = null;
  }

  /** The last seq a restore wrote here (0: no restore wrote this ledger). */
  restoredThrough(): number {
    const row = this.sql.exec<{ seq: number | null }>(`SELECT MAX(through_seq) AS seq FROM restores`).one();
    return row.seq ?? 0;
  }

  /** Movements of money only: the voids of amount 0 that older wallets wrote into the ledger are left out. */
  page(afterSeq: number, limit: number): LedgerEntry[] {
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE seq > ? AND NOT (kind = 'order_void' AND amount = '0') ORDER BY seq LIMIT ?`,
        afterSeq,
        limit,
      )
      .toArray()
      .map(entryFromRow);
  }

  /**
   * The last entry written before `time`, of any kind (a move included): its seq and the balance it left
   * (0 and "0" when there is none). Read from the newest entry back, so a recent `time` reads few rows.
   */
  lastBefore(time: number): { seq: number; balance: string } {
    const row = this.sql
      .exec<{ seq: number; balance_after: string }>(
        `SELECT seq, balance_after FROM ledger WHERE created_at < ? ORDER BY seq DESC LIMIT 1`,
        time,
      )
      .toArray()[0];
    return row === undefined
      ? { seq: 0, balance: "0" }
      : { seq: row.seq, balance: new Money(row.balance_after).toFixed() };
  }

  /** The charges of these orders written here (read through the ledger_by_order index). */
  charges(orderIds: readonly string[]): LedgerEntry[] {
    if (orderIds.length === 0) return [];
    const marks = orderIds.map(() => "?").join(", ");
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE order_id IN (${marks}) AND kind = 'order_charge' ORDER BY seq`,
        ...orderIds,
      )
      .toArray()
      .map(entryFromRow);
  }

  /** The movements naming `orderId`, in order (read through the ledger_by_order index). */
  ofOrder(orderId: string): LedgerEntry[] {
    return this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE order_id = ? AND NOT (kind = 'order_void' AND amount = '0') ORDER BY seq`,
        orderId,
      )
      .toArray()
      .map(entryFromRow);
  }

  /**
   * The balance after the last entry written at or before each of `times` (unix ms), or null where the
   * ledger had no entry yet: the console's balance over time. Entries are appended with the time they are
   * written, so `created_at` grows with `seq`, and each time is found by a binary search over `seq`: about
   * 2 log2(entries) rows read per time, whatever the ledger's length.
   */
  balancesAt(times: readonly number[]): (string | null)[] {
    const bounds = this.sql
      .exec<{ low: number | null; high: number | null }>(`SELECT MIN(seq) AS low, MAX(seq) AS high FROM ledger`)
      .one();
    const entryAt = (seq: number) =>
      this.sql
        .exec<{ seq: number; created_at: number; balance_after: string }>(
          `SELECT seq, created_at, balance_after FROM ledger WHERE seq >= ? ORDER BY seq LIMIT 1`,
          seq,
        )
        .toArray()[0]!;
    return times.map((time) => {
      if (bounds.low === null || bounds.high === null) return null;
      let low = bounds.low;
      let high = bounds.high;
      let found: string | null = null;
      while (low <= high) {
        const middle = Math.floor((low + high) / 2);
        const entry = entryAt(middle);
        if (entry.created_at <= time) {
          found = entry.balance_after;
          low = entry.seq + 1;
        } else high = middle - 1;
      }
      return found;
    });
  }

  /** The order day stored with the entry under `key` (null: none, or written before the column). */
  orderDayOf(key: string): number | null {
    const row = this.sql
      .exec<{ order_day: number | null }>(`SELECT order_day FROM ledger WHERE entry_key = ?`, key)
      .toArray()[0];
    return row?.order_day ?? null;
  }

  /**
   * The first seq written at or after `time` (null: none yet): a binary search over seq, as `created_at`
   * grows with it, about 2 log2(entries) rows read.
   */
  firstSeqFrom(time: number): number | null {
    const bounds = this.sql
      .exec<{ low: number | null; high: number | null }>(`SELECT MIN(seq) AS low, MAX(seq) AS high FROM ledger`)
      .one();
    if (bounds.low === null || bounds.high === null) return null;
    let low = bounds.low;
    let high = bounds.high;
    let found: number | null = null;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const entry = this.sql
        .exec<{ seq: number; created_at: number }>(
          `SELECT seq, created_at FROM ledger WHERE seq >= ? ORDER BY seq LIMIT 1`,
          middle,
        )
        .toArray()[0]!;
      if (entry.created_at >= time) {
        found = entry.seq;
        high = middle - 1;
      } else low = entry.seq + 1;
    }
    return found;
  }

  /** The balance after the last entry at or before `seq` (null: no entry there). */
  balanceThrough(seq: number): string | null {
    const row = this.sql
      .exec<{ balance_after: string }>(`SELECT balance_after FROM ledger WHERE seq <= ? ORDER BY seq DESC LIMIT 1`, seq)
      .toArray()[0];
    return row?.balance_after ?? null;
  }

  /** Up to `limit` entries after `afterSeq`, written before `before`, for a day's summary (voids of 0 left out). */
  dayRows(afterSeq: number, before: number, limit: number): DayRow[] {
    return this.sql
      .exec<LedgerRow & { order_day: number | null }>(
        `SELECT * FROM ledger WHERE seq > ? AND created_at < ? AND NOT (kind = 'order_void' AND amount = '0')
          ORDER BY seq LIMIT ?`,
        afterSeq,
        before,
        limit,
      )
      .toArray()
      .map((row) => ({ ...entryFromRow(row), orderDay: row.order_day ?? null }))
      .map(({ reason: _, ...row }) => row);
  }

  /** Every amount summed in decimal (SQLite's SUM would go through floating point), and how many there are. */
  sum(): { total: Money; count: number } {
    let total = new Money(0);
    let count = 0;
    for (const row of this.sql.exec<{ amount: string }>(`SELECT amount FROM ledger ORDER BY seq`)) {
      total = total.plus(row.amount);
      count += 1;
    }
    return { total, count };
  }
}
