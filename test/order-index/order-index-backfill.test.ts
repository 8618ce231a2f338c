/**
 * The backfill of the client's books (migration 0031): on a copy with history (orders over several clients
 * and days whose rows are in D1's order index and not in their books), bounded steps ask each order to
 * write its own row; a step cut off before it moved its cursor is repeated without a row written twice,
 * and the backfill resumes where it stood until it has finished; its last step drops the order index.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { bookedRow } from "../../src/books/books-reader";
import { shardOf } from "../../src/books/books-writer";
import { countersOf } from "../../src/books/counters-rules";
import { bookWriteOf, hashedRow } from "../../src/books/row-rules";
import { DAY_MS, dayOf } from "../../src/books/shard-rules";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { backfillStep, runBackfill } from "../../src/order-index/order-index-backfill";
import { indexRowOf } from "../../src/order-index/order-index-store";
import { ORDER_INDEX_SEAMS } from "../../src/order-index/seams";
import { OrderStore } from "../../src/orders/order-store";
import { confirmOrder, createOrder, line, orderStub, seedDemo } from "../helpers";
import {
  drainTimers,
  expectOk,
  freshClient,
  rewriteStoredOrder,
  storedOrder,
  uid,
  writeIndexRow,
} from "../order-helpers";

beforeAll(seedDemo);

/** An order of `key` created `daysAgo` days back, confirmed and ended, its rows written. */
async function historic(key: string, daysAgo: number): Promise<string> {
  const created = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("old") }, key),
  );
  if (daysAgo > 0)
    await rewriteStoredOrder(created.id, (order) => {
      order.createdAt -= daysAgo * DAY_MS;
    });
  expectOk(await confirmOrder(created.id, key));
  await drainTimers(created.id);
  // Its row in D1's order index, as orders wrote it before the books (they write none now).
  const version = await runInDurableObject(orderStub(created.id), (_i, state) =>
    new OrderStore(state.storage).indexVersion(),
  );
  await writeIndexRow(env.DB, indexRowOf(await storedOrder(created.id), version));
  return created.id as string;
}

async function orderIndexExists(): Promise<boolean> {
  const found = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'order_index'`,
  ).first();
  return found !== null;
}

async function backfillRow() {
  return env.DB.prepare(`SELECT * FROM order_index_backfill WHERE id = 1`).first<Record<string, unknown>>();
}

describe("the backfill of the books from the order index", () => {
  it("moves every order into its books in steps, a step cut off repeated without a row written twice", async () => {
    const clients = [await freshClient(), await freshClient(), await freshClient()];
    const orders: { clientId: string; orderId: string }[] = [];
    for (const [at, client] of clients.entries())
      for (const daysAgo of [0, 1, 3 + at])
        orders.push({ clientId: client.id, orderId: await historic(client.key, daysAgo) });
    // The copy's history: rows in the index, none in the books (as before the books existed).
    for (const { clientId, orderId } of orders) {
      const order = await storedOrder(orderId);
      const shard = shardOf(env.BOOKS, { clientId, day: dayOf(order.createdAt), part: 0 });
      await runInDurableObject(shard, (_i, state) => state.storage.deleteAll());
      await evictDurableObject(shard);
      await env.DB.prepare(`DELETE FROM books_days WHERE client_id = ?1`).bind(clientId).run();
      expect(await bookedRow(env, order)).toBeNull();
    }
    const indexed = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM order_index`).first<{ n: number }>())!.n;
    await env.DB.prepare(
      `UPDATE order_index_backfill SET after_client = '', after_created = -1, after_id = '', orders = 0, finished_at = NULL`,
    ).run();

    expect(await backfillStep(env, 2)).toEqual({ asked: 2, more: true });
    const first = await backfillRow();
    expect(first).toMatchObject({ orders: 2, finished_at: null });
    // Cut off after its orders wrote, before its cursor moved: the next step asks them again.
    armFault(ORDER_INDEX_SEAMS.backfillSave, { when: "before" });
    await expect(backfillStep(env, 2)).rejects.toThrow(/injected fault/);
    clearFaults();
    expect(await backfillRow()).toEqual(first);
    armFault(ORDER_INDEX_SEAMS.backfillAsk, { when: "before", skip: 1 });
    await expect(backfillStep(env, 2)).rejects.toThrow(/injected fault/);
    clearFaults();
    expect(await backfillRow()).toEqual(first);
    // Cut off after its last step dropped the order index, before it saved itself finished: the next step
    // finds no table, nothing more, and finishes.
    armFault(ORDER_INDEX_SEAMS.backfillDrop, { when: "after" });
    await expect(runBackfill(env, 60_000, 2)).rejects.toThrow(/injected fault/);
    clearFaults();
    expect(await backfillRow()).toMatchObject({ finished_at: null });
    expect(await orderIndexExists()).toBe(false);
    expect(await backfillStep(env, 2)).toEqual({ asked: 0, more: false });
    const done = await backfillRow();
    expect(done).toMatchObject({ orders: indexed });
    expect(done!.finished_at).not.toBeNull();
    expect(await backfillStep(env, 2)).toEqual({ asked: 0, more: false });

    for (const { clientId, orderId } of orders) {
      const order = await storedOrder(orderId);
      const version = await runInDurableObject(orderStub(orderId), (_i, state) =>
        new OrderStore(state.storage).indexVersion(),
      );
      const { deliveries: _answers, ...row } = (await bookedRow(env, order))!;
      expect(row).toEqual(await hashedRow(bookWriteOf(order, version)));
      const shard = shardOf(env.BOOKS, { clientId, day: dayOf(order.createdAt), part: 0 });
      const rows = await shard.page({ limit: 100 });
      expect(rows.filter((each) => each.id === orderId)).toHaveLength(1);
      expect((await shard.counters())[0]!.counters).toEqual(countersOf(rows));
    }
    // Each client's days are in its directory again: its list finds every order.
    for (const client of clients) {
      const { results } = await env.DB.prepare(`SELECT DISTINCT day FROM books_days WHERE client_id = ?1`)
        .bind(client.id)
        .all();
      expect(results).toHaveLength(3);
    }
  });
});
