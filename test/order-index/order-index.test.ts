/**
 * Each order writes its own row to its client's books (and none to D1's old order index), in every state
 * (created and expired ones included), from its `index` timer a couple of seconds after a change and never
 * inside the client's request; what each write costs; and the operator's search showing it within 10 s.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { indexRowOf } from "../../src/order-index/order-index-store";
import { bookedRow } from "../../src/books/books-reader";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import type { OrderObject } from "../../src/orders/order-object";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { INDEX_DELAY_MS } from "../../src/orders/order-timers";
import { admin } from "../admin-helpers";
import { call, confirmOrder, createOrder, line, orderStub, seedDemo } from "../helpers";
import {
  ended,
  expectOk,
  expireByAlarm,
  freshClient,
  indexNow,
  indexRow,
  storedAlarm,
  storedOrder,
  timersOf,
  uid,
} from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

/** A sandbox order of a new reference, created and, unless told otherwise, confirmed until it has ended. */
async function orderOf(
  key: string,
  productList = [line("DEMO-US-RANGE", 5, 2)],
  confirm = true,
): Promise<{ id: string; reference: string }> {
  const reference = uid("ref");
  const created = expectOk(await createOrder({ productList, wallet: "USD", reference }, key));
  if (confirm) {
    expectOk(await confirmOrder(created.id, key));
    await ended(created.id);
  }
  return { id: created.id, reference };
}

/** The order's row in its client's books, or null. */
async function booked(orderId: string) {
  return bookedRow(env, await storedOrder(orderId));
}

/**
 * Runs the order's alarm (its `index` timer is the earliest) and answers the order's row in its books then;
 * D1's order index gets no row.
 */
async function afterIndexTimer(orderId: string) {
  expect(await runDurableObjectAlarm(orderStub(orderId))).toBe(true);
  expect(await indexRow(orderId)).toBeNull();
  return booked(orderId);
}

describe("an order writes its own row", () => {
  it("while created, from a timer set with the create, after the answer (the create wrote no row)", async () => {
    const { id: clientId, key } = await freshClient();
    const before = Date.now();
    const { id, reference } = await orderOf(key, undefined, false);
    // The answer came first: nothing in the books yet, the `index` timer due INDEX_DELAY_MS after the create.
    expect(await booked(id)).toBeNull();
    const timer = (await timersOf(id)).find((each) => each.kind === "index");
    expect(timer?.due_at).toBeGreaterThanOrEqual(before + INDEX_DELAY_MS);
    expect(await storedAlarm(id)).toBe(timer?.due_at);
    const order = await storedOrder(id);
    expect(await afterIndexTimer(id)).toMatchObject({
      clientId,
      createdAt: order.createdAt,
      id,
      reference,
      state: "created",
      wallet: "USD",
      total: "10",
      charged: "0",
      refunded: "0",
      skus: ["DEMO-US-RANGE"],
      lines: [{ sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 2, amount: "10", outcome: "pending" }],
      modifiedAt: order.modifiedAt,
      expiresAt: order.expiresAt,
      version: 1,
    });
    expect((await timersOf(id)).map((each) => each.kind)).toEqual(["expire"]);
  });

  it("writes a create confirmed and fulfilled within the delay once, in its end state", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    expect(await booked(id)).toBeNull();
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful", charged: "10", version: 3 });
    expect((await booked(id))!.lines).toEqual([
      { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 2, amount: "10", outcome: "delivered" },
    ]);
    // Nothing left to write: no timer, no alarm.
    expect(await timersOf(id)).toEqual([]);
    expect(await storedAlarm(id)).toBeNull();
  });

  it("writes its row to its client's books, and stores nothing in the order to clear its timer", async () => {
    const { id: clientId, key } = await freshClient();
    const { id, reference } = await orderOf(key);
    expect(await bookedRow(env, await storedOrder(id))).toBeNull();
    // The run of its `index` timer, the order's last: no key written, and no alarm set or deleted (the
    // alarm that fired is gone, and nothing is left to set one for).
    const written = await runInDurableObject(orderStub(id), async (instance: OrderObject, state) => {
      const storage = [
        vi.spyOn(state.storage.kv, "put"),
        vi.spyOn(state.storage.kv, "delete"),
        vi.spyOn(state.storage, "setAlarm"),
        vi.spyOn(state.storage, "deleteAlarm"),
      ];
      await instance.alarm();
      const calls = storage.map((spy) => spy.mock.calls.length);
      for (const spy of storage) spy.mockRestore();
      return calls;
    });
    expect(written).toEqual([0, 0, 0, 0]);
    expect(await indexRow(id)).toBeNull();
    const order = await storedOrder(id);
    expect(await bookedRow(env, order)).toMatchObject({
      id,
      clientId,
      reference,
      state: "successful",
      total: "10",
      charged: "10",
      refunded: "0",
      version: 3,
      codes: 0,
      lines: [{ sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 2, amount: "10", outcome: "delivered" }],
    });
    // The object holds the timer's removal in memory: its stored document was not written again for it.
    expect(await timersOf(id)).toEqual([]);
    const stored = await runInDurableObject(orderStub(id), (_instance, state) =>
      new OrderStore(state.storage).timers().map((timer) => timer.kind),
    );
    expect(stored).toEqual(["index"]);
    // An object that restarts runs it once more (when anything arms its alarm): the books take a repeat.
    await evictDurableObject(orderStub(id));
    expect(await orderStub(id).writeIndex()).toBe(0);
    expect(await bookedRow(env, order)).toMatchObject({ version: 3 });
  });

  it("writes each later change again, with a newer version", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key, undefined, false);
    expect(await afterIndexTimer(id)).toMatchObject({ state: "created", version: 1 });
    expectOk(await confirmOrder(id, key));
    await ended(id);
    expect((await timersOf(id)).map((each) => each.kind)).toEqual(["index"]);
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful", version: 3 });
  });

  it("writes an order that expired unconfirmed", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key, undefined, false);
    expect(await expireByAlarm(id)).toBe(true);
    expect(await storedOrder(id)).toMatchObject({ state: "rejected" });
    expect(await afterIndexTimer(id)).toMatchObject({ state: "rejected", charged: "0" });
  });

  it("records what a partial order was charged and refunded, line by line", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key, [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)]);
    expect(await ended(id)).toBe("partial");
    const row = await afterIndexTimer(id);
    expect(row).toMatchObject({
      state: "partial",
      total: "12",
      charged: "12",
      refunded: "7",
      skus: ["DEMO-US-FAILING", "DEMO-US-RANGE"],
    });
    expect(row!.lines).toEqual([
      { sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: "7", outcome: "failed" },
      { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: "5", outcome: "delivered" },
    ]);
  });

  it("retries a write that failed, with the timer's backoff, and then writes the row", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    armFault(ORDER_SEAMS.booksWrite, { when: "before" });
    try {
      await runDurableObjectAlarm(orderStub(id));
      expect(firedFaults()).toEqual([`${ORDER_SEAMS.booksWrite}:before`]);
    } finally {
      clearFaults();
    }
    expect(await booked(id)).toBeNull();
    expect((await timersOf(id)).map((each) => each.kind)).toEqual(["index"]);
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful" });
    expect(await timersOf(id)).toEqual([]);
  });

  it("writes nothing new when asked again, and the repair pass's ask is the same write", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    // The row and its wallet's counters row (and, the client's first of the day, the shard's tables and
    // meta); nothing in D1's order index.
    expect(await indexNow(id)).toBeGreaterThanOrEqual(2);
    expect(await indexRow(id)).toBeNull();
    expect(await indexNow(id)).toBe(0);
    // The timer set with the change still runs, and writes nothing new.
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful" });
    expect(await timersOf(id)).toEqual([]);
  });
});

describe("the operator's search, with nothing but the orders' own timers", () => {
  /** Polls the search until `orderId` shows in `state`; answers the milliseconds it took. */
  async function shownWithin(clientId: string, orderId: string, state: string, since: number): Promise<number> {
    for (;;) {
      const found = await admin("GET", `/admin/orders/search?clientId=${clientId}&state=${state}`);
      if (found.body.data.orders.some((order: { id: string }) => order.id === orderId)) return Date.now() - since;
      if (Date.now() - since > 10_000) throw new Error(`${orderId} not shown ${state} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("shows an order within 10 s of each change: created, then successful; and one expired", async () => {
    const { id: clientId, key } = await freshClient();
    let at = Date.now();
    const { id } = await orderOf(key, undefined, false);
    expect(await shownWithin(clientId, id, "created", at)).toBeLessThan(10_000);
    at = Date.now();
    expectOk(await confirmOrder(id, key));
    expect(await shownWithin(clientId, id, "successful", at)).toBeLessThan(10_000);
    const other = await orderOf(key, undefined, false);
    at = Date.now();
    expectOk(await call("POST", `/sandbox/orders/${other.id}/expire`, { key }));
    expect(await shownWithin(clientId, other.id, "rejected", at)).toBeLessThan(10_000);
  }, 40_000);
});

describe("the row an order makes", () => {
  it("is built from the stored order alone", async () => {
    const { key } = await freshClient();
    const created = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 3)], wallet: "USD", reference: uid("ref") }, key),
    );
    const order = await storedOrder(created.id);
    expect(indexRowOf({ ...order, state: "rejected" }, 7)).toMatchObject({
      charged: "0",
      total: "15",
      stage: 2,
      version: 7,
    });
    expect(indexRowOf({ ...order, state: "processing" })).toMatchObject({ charged: "15", stage: 1 });
  });
});
