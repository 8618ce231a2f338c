/**
 * One client's open (created, unconfirmed) orders are bounded in each wallet, inventory or not
 * (MAX_OPEN_ORDERS, 100 in wrangler.toml), in the wallet call a create makes anyway, so no round trip is
 * added and two creates at once cannot both take the last place; the bound halves for every
 * EXPIRED_ORDERS_BACKOFF_STEP (20) of the client's orders in a row that expire unconfirmed, down to one,
 * and a confirmed order ends the run. And what it costs in rows written (docs/benchmarks.md).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { chargeKey } from "../../src/wallets/ledger-keys";
import { expiriesInARow, EXPIRY_RUN_MS, openOrderLimit } from "../../src/wallets/open-order-rules";
import { hold, openOrder, post, voidOrder } from "../../src/wallets/postings";
import { WalletStore } from "../../src/wallets/wallet-store";
import type { WalletObject } from "../../src/wallets/wallet-object";
import { call, line, seedDemo, wallet } from "../helpers";
import { addCodes, addProduct, expectError, freshClient, uid } from "../order-helpers";

afterEach(() => clearFaults());

const MESSAGE = "You have as many open orders as allowed: confirm one or let it expire";

function create(key: string, productList = [line("DEMO-US-RANGE", 5)], reference = uid("ref")) {
  return call("POST", "/order/create", { key, body: { wallet: "USD", reference, productList } });
}

describe("the rules", () => {
  it("halve the bound for every step of expiries in a row, never below one; a day without one ends the run", () => {
    expect([0, 19, 20, 39, 40, 60, 80, 100, 120, 10_000].map((n) => openOrderLimit(100, n, 20))).toEqual([
      100, 100, 50, 50, 25, 12, 6, 3, 1, 1,
    ]);
    expect(openOrderLimit(100, 500, 0)).toBe(100);
    expect(expiriesInARow(null, 5)).toBe(0);
    expect(expiriesInARow({ count: 7, lastAt: 1000 }, 1000 + EXPIRY_RUN_MS - 1)).toBe(7);
    expect(expiriesInARow({ count: 7, lastAt: 1000 }, 1000 + EXPIRY_RUN_MS)).toBe(0);
  });
});

describe("a client's open orders in a wallet", () => {
  it(
    "are bounded at MAX_OPEN_ORDERS, inventory or not; a confirmed one frees its place at once",
    { timeout: 120_000 },
    async () => {
      await seedDemo();
      const sku = uid("OPENSKU").toUpperCase();
      await addProduct({ sku, productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
      await addCodes(sku, "10", 10);
      const client = await freshClient({ USD: "100000" });
      const limit = Number(env.MAX_OPEN_ORDERS);
      expect(limit).toBe(100);
      const made: string[] = [];
      for (let at = 0; at < limit; at += 1) {
        const productList = at < 5 ? [{ sku, productType: "fixed", quote: 10, quantity: 1 }] : undefined;
        const created = await create(client.key, productList);
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        made.push(created.body.data.id);
      }
      const refused = await create(client.key);
      expectError(refused, 400, MESSAGE, "open_orders_limit");
      expect(refused.body.details).toEqual({ open: 100, limit: 100, expiredInARow: 0 });
      // An inventory order is refused the same way, reserving nothing.
      const inventory = await create(client.key, [{ sku, productType: "fixed", quote: 10, quantity: 1 }]);
      expect(inventory.body.code).toBe("open_orders_limit");
      const confirmed = await call("PUT", "/order/confirm", { key: client.key, body: { orderId: made[50] } });
      expect(confirmed.status).toBe(200);
      expect((await create(client.key)).status).toBe(200);
      expect((await create(client.key)).body.code).toBe("open_orders_limit");
      // Another client is not bounded by this one's orders.
      expect((await create((await freshClient({ USD: "10" })).key)).status).toBe(200);
    },
  );

  it("two creates at once cannot both take the last place", async () => {
    const client = await freshClient({ USD: "100000" });
    await runInDurableObject(wallet(client.id, "USD"), (_instance: WalletObject, state) => {
      const store = new WalletStore(state.storage);
      for (let at = 0; at < 97; at += 1)
        openOrder(store, { orderId: `ord_${at}`, amount: "1", until: Date.now() + 600_000, open: BOUND }, Date.now());
    });
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(client.key)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    for (const answer of answers.filter((answer) => answer.status !== 200))
      expect(answer.body.details).toMatchObject({ open: 100, limit: 100 });
  });

  it("a create whose answer was lost and is sent again takes one place, not two", async () => {
    const client = await freshClient({ USD: "100" });
    const reference = uid("ref");
    armFault(ORDER_SEAMS.walletBalance, { when: "after" });
    expect((await create(client.key, undefined, reference)).status).toBe(500);
    clearFaults();
    expect((await create(client.key, undefined, reference)).status).toBe(200);
    const open = await runInDurableObject(wallet(client.id, "USD"), (_instance: WalletObject, state) =>
      new WalletStore(state.storage).holds.openOrders("none", Date.now()),
    );
    expect(open).toBe(1);
  });

  it(
    "back off a client whose orders keep expiring unconfirmed: 20 in a row halve its bound",
    { timeout: 60_000 },
    async () => {
      await seedDemo();
      const client = await freshClient({ USD: "1000" });
      for (let at = 0; at < 20; at += 1) {
        const created = await create(client.key);
        const expired = await call("POST", `/sandbox/orders/${created.body.data.id}/expire`, { key: client.key });
        expect(expired.body.data.state).toBe("rejected");
      }
      await runInDurableObject(wallet(client.id, "USD"), (_instance: WalletObject, state) => {
        const store = new WalletStore(state.storage);
        for (let at = 0; at < 50; at += 1)
          openOrder(store, { orderId: `ord_${at}`, amount: "1", until: Date.now() + 600_000, open: BOUND }, Date.now());
      });
      const refused = await create(client.key);
      expectError(refused, 400, MESSAGE, "open_orders_limit");
      expect(refused.body.details).toEqual({ open: 50, limit: 50, expiredInARow: 20 });
    },
  );
});

const BOUND = { maxOpen: 100, backoffStep: 20 };

/** Runs `test` with a fresh wallet's store, and a counter of the rows its statements wrote. */
async function withCountedStore<T>(test: (store: WalletStore, written: () => number) => T): Promise<T> {
  return runInDurableObject(wallet(uid("rows"), "USD"), (_instance: WalletObject, state) => {
    new WalletStore(state.storage); // the schema at its latest version
    const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
    const sql = new Proxy(state.storage.sql, {
      get(target, name) {
        if (name === "exec")
          return (query: string, ...bindings: unknown[]) => {
            const cursor = target.exec(query, ...(bindings as SqlStorageValue[]));
            cursors.push(cursor);
            return cursor;
          };
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const storage = new Proxy(state.storage, {
      get: (target, name) => (name === "sql" ? sql : Reflect.get(target, name)),
    });
    let counted = 0;
    const written = () => {
      const total = cursors.reduce((sum, cursor) => sum + cursor.rowsWritten, 0);
      const since = total - counted;
      counted = total;
      return since;
    };
    const store = new WalletStore(storage as DurableObjectStorage);
    written();
    return test(store, written);
  });
}

describe("rows written per order", () => {
  it("an order without codes: 1 for its place (a slot written over once free), nothing more at its charge", async () => {
    const rows = await withCountedStore((store, written) => {
      post(store, { key: "top-up:funds", kind: "top_up", amount: "100" });
      written();
      const now = Date.now();
      openOrder(store, { orderId: "ord_a", amount: "10", until: now + 600_000, open: BOUND }, now);
      const opened = written();
      post(store, { key: chargeKey("ord_a"), kind: "order_charge", amount: "10", orderId: "ord_a" });
      const charged = written();
      // The next order takes the slot the charged one left: written over, not added.
      openOrder(store, { orderId: "ord_b", amount: "10", until: now + 600_000, open: BOUND }, now);
      const reused = written();
      const slots = store.holds.openOrders("none", now);
      return { opened, charged, reused, slots };
    });
    // 4 for the charge is its ledger entry (the row, its two index entries, the AUTOINCREMENT counter), as before.
    expect(rows).toEqual({ opened: 1, charged: 4, reused: 1, slots: 1 });
  });

  it("an order with codes: nothing more than its hold; an expiry adds 1 for the run of expiries", async () => {
    const rows = await withCountedStore((store, written) => {
      post(store, { key: "top-up:funds", kind: "top_up", amount: "100" });
      written();
      const now = Date.now();
      const request = { orderId: "ord_c", amount: "10", until: now + 600_000, codes: 2, maxCodes: 100 };
      hold(store, { ...request, open: BOUND });
      const held = written();
      post(store, { key: chargeKey("ord_c"), kind: "order_charge", amount: "10", orderId: "ord_c" });
      const charged = written();
      openOrder(store, { orderId: "ord_d", amount: "1", until: now + 600_000, open: BOUND }, now);
      written();
      voidOrder(store, "ord_d", "expired", now);
      const expired = written();
      return { held, charged, expired };
    });
    // The hold and its removal at the charge, as before (test/wallets/row-costs.test.ts); an expiry's void
    // mark, and 1 for the run.
    expect(rows).toEqual({ held: 1, charged: 5, expired: 2 });
  });

  it("a confirmed order ends the run: the bound is whole again", async () => {
    await withCountedStore((store) => {
      post(store, { key: "top-up:funds", kind: "top_up", amount: "100" });
      const now = Date.now();
      const small = { maxOpen: 8, backoffStep: 2 };
      for (const id of ["e1", "e2", "e3", "e4"]) {
        openOrder(store, { orderId: id, amount: "1", until: now + 600_000, open: small }, now);
        voidOrder(store, id, "expired", now);
      }
      for (const id of ["o1", "o2"])
        expect(openOrder(store, { orderId: id, amount: "1", until: now + 600_000, open: small }, now).ok).toBe(true);
      expect(openOrder(store, { orderId: "o3", amount: "1", until: now + 600_000, open: small }, now)).toEqual({
        ok: false,
        code: "open_orders_limit",
        open: 2,
        limit: 2,
        expiredInARow: 4,
      });
      post(store, { key: chargeKey("o1"), kind: "order_charge", amount: "1", orderId: "o1" });
      expect(store.holds.expiryStreak()).toMatchObject({ count: 0 });
      expect(openOrder(store, { orderId: "o3", amount: "1", until: now + 600_000, open: small }, now).ok).toBe(true);
    });
  });
});
