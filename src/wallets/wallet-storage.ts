/**
 * The wallet object's storage: one versioned schema and the ledger's load and append. Nothing here knows
 * RPC or HTTP; the object opens one LedgerStore per instance and the posting rules (postings.ts) use it.
 *
 * The schema has a stored version (table `schema_meta`) and ordered migrations; opening applies each
 * migration newer than the stored version once, each in one transaction with its version bump. A wallet
 * written before versions existed (version 0) has the ledger and its triggers already; migration 1
 * creates them only if absent, so such a wallet moves to version 1 without a change to its rows.
 */
import { Money } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";
import { voidKey } from "./ledger-keys";

export interface Migration {
  version: number;
  description: string;
  up(sql: SqlStorage): void;
}

export const WALLET_MIGRATIONS: readonly Migration[] = [
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
];

export const WALLET_SCHEMA_VERSION = WALLET_MIGRATIONS[WALLET_MIGRATIONS.length - 1]!.version;

/** The stored schema version: 0 for a wallet written before versions existed (or a new one). */
export function storedSchemaVersion(sql: SqlStorage): number {
  sql.exec(`CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
  const row = sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0];
  return row?.version ?? 0;
}

/** Applies, in order and each once, the migrations newer than the stored version. */
export function migrateWallet(storage: DurableObjectStorage, migrations: readonly Migration[] = WALLET_MIGRATIONS): number {
  const sql = storage.sql;
  let version = storedSchemaVersion(sql);
  for (const migration of migrations) {
    if (migration.version <= version) continue;
    storage.transactionSync(() => {
      migration.up(sql);
      sql.exec(`INSERT INTO schema_meta (id, version) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET version = excluded.version`, migration.version);
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
  };
}

export interface NewEntry {
  key: string;
  kind: LedgerKind;
  /** Signed: credits positive, debits negative. */
  amount: Money;
  balanceAfter: Money;
  orderId: string | null;
  reason: string | null;
}

/** One wallet's ledger in its object's SQLite. Synchronous, so a read and the append after it cannot interleave. */
export class LedgerStore {
  private readonly sql: SqlStorage;
  /** The newest entry's running balance, read once per instance: only this object writes the ledger. */
  private balanceCache: Money | null = null;

  constructor(storage: DurableObjectStorage) {
    migrateWallet(storage);
    this.sql = storage.sql;
  }

  balance(): Money {
    if (this.balanceCache === null) {
      const row = this.sql.exec<{ balance_after: string }>(`SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1`).toArray()[0];
      this.balanceCache = new Money(row?.balance_after ?? 0);
    }
    return this.balanceCache;
  }

  byKey(key: string): LedgerEntry | null {
    const row = this.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE entry_key = ?`, key).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  /**
   * The first void of any of these orders: the entry under an order's void key, or an `order_void` entry
   * that names it. One statement, as every charge asks it.
   */
  voidOf(orderIds: readonly string[]): LedgerEntry | null {
    if (orderIds.length === 0) return null;
    const marks = orderIds.map(() => "?").join(", ");
    const row = this.sql
      .exec<LedgerRow>(
        `SELECT * FROM ledger WHERE entry_key IN (${marks}) OR (order_id IN (${marks}) AND kind = 'order_void') ORDER BY seq LIMIT 1`,
        ...orderIds.map(voidKey),
        ...orderIds,
      )
      .toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  append(entry: NewEntry): LedgerEntry {
    const row = this.sql
      .exec<LedgerRow>(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        entry.key,
        entry.kind,
        entry.amount.toFixed(),
        entry.balanceAfter.toFixed(),
        entry.orderId,
        entry.reason,
        Date.now(),
      )
      .one();
    this.balanceCache = entry.balanceAfter;
    return entryFromRow(row);
  }

  page(afterSeq: number, limit: number): LedgerEntry[] {
    return this.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit).toArray().map(entryFromRow);
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
