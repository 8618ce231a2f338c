/**
 * The wallet object's storage: one versioned schema, and one store for each part of what it keeps (the
 * ledger: ledger-store.ts; the holds, slots, voids and expiries of its orders: hold-store.ts; its move to
 * a successor: move-store.ts), each the one writer of its tables. Nothing here knows RPC or HTTP; the
 * object opens one WalletStore per instance and the posting rules (postings.ts) use it.
 *
 * The schema has a stored version (table `schema_meta`) and ordered migrations; opening applies each
 * migration newer than the stored version once, each in one transaction with its version bump. A wallet
 * written before versions existed (version 0) has the ledger and its triggers already; migration 1
 * creates them only if absent, so such a wallet moves to version 1 without a change to its rows.
 */
import { currentVersion, migrationsAfter, type Migration } from "../kernel/migrations";
import { HoldStore } from "./hold-store";
import { LedgerStore } from "./ledger-store";
import { MoveStore } from "./move-store";

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

/** One wallet's storage in its object's SQLite, opened once per instance: the schema first, then its stores. */
export class WalletStore {
  readonly ledger: LedgerStore;
  readonly holds: HoldStore;
  readonly moves: MoveStore;

  constructor(storage: DurableObjectStorage) {
    migrateWallet(storage);
    this.ledger = new LedgerStore(storage.sql);
    this.holds = new HoldStore(storage.sql);
    this.moves = new MoveStore(storage.sql);
  }
}
