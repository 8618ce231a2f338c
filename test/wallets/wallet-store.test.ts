/**
 * The wallet's storage module (src/wallets/wallet-store.ts): one versioned schema, migrations applied
 * once each, and a wallet written before versions existed (version 0) opened without losing a row.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Money } from "../../src/pricing/money";
import {
  migrateWallet,
  storedSchemaVersion,
  WALLET_MIGRATIONS,
  WALLET_SCHEMA_VERSION,
  type WalletMigration,
  WalletStore,
} from "../../src/wallets/wallet-store";
import type { WalletObject } from "../../src/wallets/wallet-object";
import { wallet } from "../helpers";
import { uid } from "../order-helpers";

/** The tables exactly as the wallet object created them before the schema had a version. */
const VERSION_0 = `
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
`;

describe("wallet schema", () => {
  it("a wallet written at version 0 opens at the latest version with its entries, balance and triggers intact", async () => {
    const stub = wallet(uid("s"), "USD");
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      // The object opens its storage on first use, so this fresh instance has not touched it yet.
      expect(state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'ledger'`).toArray()).toEqual([]);
      state.storage.sql.exec(VERSION_0);
      state.storage.sql.exec(
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at) VALUES
           ('top-up:a', 'top_up', '100', '100', NULL, 'old', 1),
           ('order:ord_old:charge', 'order_charge', '-40', '60', 'ord_old', NULL, 2)`,
      );
    });
    expect(await stub.balance()).toBe("60");
    expect(await stub.audit()).toEqual({ balance: "60", ledgerSum: "60", entries: 2 });
    expect((await stub.entries()).map((entry) => entry.key)).toEqual(["top-up:a", "order:ord_old:charge"]);
    // The old charge is found by the new rules: voiding the old order credits it back, once.
    expect((await stub.voidOrder("ord_old", "expired")).credit).toMatchObject({ amount: "40", balanceAfter: "100" });
    expect(await stub.post({ key: "top-up:b", kind: "top_up", amount: "1" })).toMatchObject({
      ok: true,
      entry: { seq: 4, balanceAfter: "101" },
    });
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      expect(storedSchemaVersion(state.storage.sql)).toBe(WALLET_SCHEMA_VERSION);
      expect(() => state.storage.sql.exec(`DELETE FROM ledger`)).toThrow(/append-only/);
    });
  });

  it("a new wallet starts at the latest version", async () => {
    const stub = wallet(uid("s"), "USD");
    expect(await stub.balance()).toBe("0");
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      expect(storedSchemaVersion(state.storage.sql)).toBe(WALLET_SCHEMA_VERSION);
      expect(WALLET_SCHEMA_VERSION).toBe(WALLET_MIGRATIONS.length);
    });
  });

  it("migrations run in order, each once, from the stored version on", async () => {
    const stub = wallet(uid("s"), "USD");
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      const ran: number[] = [];
      const counting: WalletMigration[] = [1, 2, 3].map((version) => ({
        version,
        description: `m${version}`,
        up: () => void ran.push(version),
      }));
      expect(migrateWallet(state.storage, counting.slice(0, 2))).toBe(2);
      expect(migrateWallet(state.storage, counting)).toBe(3);
      expect(migrateWallet(state.storage, counting)).toBe(3);
      expect(ran).toEqual([1, 2, 3]);
    });
  });

  it("a migration that throws leaves the version where it was (its step rolls back)", async () => {
    const stub = wallet(uid("s"), "USD");
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      const failing: WalletMigration = {
        version: 1,
        description: "half done",
        up(sql) {
          sql.exec(`CREATE TABLE half (x INTEGER)`);
          throw new Error("boom");
        },
      };
      expect(() => migrateWallet(state.storage, [failing])).toThrow("boom");
      expect(storedSchemaVersion(state.storage.sql)).toBe(0);
      expect(state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'half'`).toArray()).toEqual([]);
    });
  });

  it("a list of migrations that skips a version is refused before any of it runs", async () => {
    const stub = wallet(uid("s"), "USD");
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      const ran: number[] = [];
      const gapped: WalletMigration[] = [1, 3].map((version) => ({
        version,
        description: `m${version}`,
        up: () => void ran.push(version),
      }));
      expect(() => migrateWallet(state.storage, gapped)).toThrow(/version 1 has no migration to 2/);
      expect(ran).toEqual([]);
      expect(storedSchemaVersion(state.storage.sql)).toBe(0);
    });
  });
});

describe("the ledger's schema guarantees", () => {
  // SQL on the ledger is this test's business, as it is for the version-0 fixtures above: no method of the
  // storage module updates or deletes an entry, so only a statement of its own can show that the schema's
  // triggers refuse one.
  it("an UPDATE or DELETE on the ledger raises, and the entry is unchanged", async () => {
    const stub = wallet(uid("s"), "USD");
    await stub.post({ key: "t", kind: "top_up", amount: "100" });
    const before = await stub.entries();
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      expect(() => state.storage.sql.exec(`UPDATE ledger SET amount = '1000000', balance_after = '1000000'`)).toThrow(
        /append-only/,
      );
      expect(() => state.storage.sql.exec(`DELETE FROM ledger`)).toThrow(/append-only/);
    });
    expect(await stub.entries()).toEqual(before);
    expect(await stub.balance()).toBe("100");
  });

  it("a key already in the ledger cannot be appended again, even past the posting rules (UNIQUE)", async () => {
    const stub = wallet(uid("s"), "USD");
    await stub.post({ key: "t", kind: "top_up", amount: "1" });
    await runInDurableObject(stub, (_instance: WalletObject, state) => {
      const { ledger } = new WalletStore(state.storage);
      expect(() =>
        ledger.append({
          key: "t",
          kind: "top_up",
          amount: new Money(1),
          balanceAfter: new Money(2),
          orderId: null,
          reason: null,
        }),
      ).toThrow();
      expect(ledger.balance().toFixed()).toBe("1");
    });
  });
});
