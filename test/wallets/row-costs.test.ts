/**
 * What the wallet's marks beside the ledger cost in rows written (a row written is billed like 50 ms of
 * CPU; docs/benchmarks.md prices them): a void that moves no money writes one row, where the ledger entry
 * it used to be wrote four (the row, its two index entries and the AUTOINCREMENT counter); an open
 * order's hold is one row placed and one removed.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { WalletObject } from "../../src/wallets/wallet-object";
import { wallet } from "../helpers";
import { uid } from "../order-helpers";

async function rowsWritten(statements: [string, ...unknown[]][]): Promise<number[]> {
  const stub = wallet(uid("rows"), "USD");
  await stub.balance(); // opens the wallet: its schema at the latest version
  return runInDurableObject(stub, (_instance: WalletObject, state) =>
    statements.map(([query, ...bindings]) => state.storage.sql.exec(query, ...bindings).rowsWritten),
  );
}

describe("rows written by the wallet's marks", () => {
  it("a void of an order never charged: 1 row, against 4 for a ledger entry", async () => {
    const [mark, entry] = await rowsWritten([
      [`INSERT INTO order_voids (order_id, voided_at, reason) VALUES ('ord_a', 1, 'expired')`],
      [
        `INSERT INTO ledger (entry_key, kind, amount, balance_after, order_id, reason, created_at) VALUES ('order:ord_b:void', 'order_void', '0', '0', 'ord_b', 'expired', 1)`,
      ],
    ]);
    expect(mark).toBe(1);
    expect(entry).toBe(4);
  });

  it("a hold: 1 row placed, 1 removed when the order is charged or voided, 0 when it has none", async () => {
    const [placed, removed, none] = await rowsWritten([
      [`INSERT INTO holds (order_id, amount, until) VALUES ('ord_h', '10', 1)`],
      [`DELETE FROM holds WHERE order_id = 'ord_h'`],
      [`DELETE FROM holds WHERE order_id = 'ord_h'`],
    ]);
    expect([placed, removed, none]).toEqual([1, 1, 0]);
  });
});
