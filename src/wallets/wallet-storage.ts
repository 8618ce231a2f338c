import { Money } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";

/**
 * The wallet object's SQLite storage: one append-only ledger. The schema carries a version, stored in the
 * object itself, and is brought up to date by ordered migrations once per instance, so that a later change
 * of the ledger table has a path for every wallet already in use.
 */

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

/**
 * Migration N takes the schema from version N to N + 1. Version 0 is a wallet made before the schema was
 * versioned: its ledger table and triggers already exist, which is why the first migration says IF NOT
 * EXISTS throughout.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ledger (
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
   CREATE TRIGGER IF NOT EXISTS ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;`,
  // An order's entries are looked up by order id (a charge refused after its void).
  `CREATE INDEX IF NOT EXISTS ledger_by_order ON ledger (order_id, kind);`,
];

export const WALLET_SCHEMA_VERSION = MIGRATIONS.length;

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

export class LedgerStore {
  /** The newest entry's running balance, read once per instance: only this store writes the ledger. */
  private balanceCache: Money | null = null;

  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    storage.transactionSync(() => {
      sql.exec(`CREATE TABLE IF NOT EXISTS schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
      const stored = sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).toArray()[0]?.version ?? 0;
      for (let version = stored; version < MIGRATIONS.length; version += 1) sql.exec(MIGRATIONS[version]!);
      if (stored < MIGRATIONS.length) sql.exec(`INSERT OR REPLACE INTO schema_meta (id, version) VALUES (1, ?)`, MIGRATIONS.length);
    });
  }

  schemaVersion(): number {
    return this.storage.sql.exec<{ version: number }>(`SELECT version FROM schema_meta WHERE id = 1`).one().version;
  }

  balance(): Money {
    if (this.balanceCache === null) {
      const row = this.storage.sql.exec<{ balance_after: string }>(`SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1`).toArray()[0];
      this.balanceCache = new Money(row?.balance_after ?? 0);
    }
    return this.balanceCache;
  }

  byKey(key: string): LedgerEntry | null {
    const row = this.storage.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE entry_key = ?`, key).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  /** The entry of `kind` for an order, if any (an order has at most one charge and one void). */
  forOrder(orderId: string, kind: LedgerKind): LedgerEntry | null {
    const row = this.storage.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE order_id = ? AND kind = ? ORDER BY seq LIMIT 1`, orderId, kind).toArray()[0];
    return row ? entryFromRow(row) : null;
  }

  append(entry: NewEntry): LedgerEntry {
    const row = this.storage.sql
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
    return this.storage.sql.exec<LedgerRow>(`SELECT * FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit).toArray().map(entryFromRow);
  }

  /** The sum of every entry, computed from the rows (not the running balance), for audits and tests. */
  sum(): { sum: Money; entries: number } {
    let sum = new Money(0);
    let entries = 0;
    for (const row of this.storage.sql.exec<{ amount: string }>(`SELECT amount FROM ledger ORDER BY seq`)) {
      sum = sum.plus(row.amount);
      entries += 1;
    }
    return { sum, entries };
  }
}
