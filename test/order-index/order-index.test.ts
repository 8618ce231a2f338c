/**
 * The order index: each order writes its own row, in every state (created and expired ones included), from
 * its `index` timer a couple of seconds after a change and never inside the client's request; the upsert
 * that only a newer version passes; what each write costs in D1 rows; and the plan of each filter (a range
 * of the key or the time index, never the whole table).
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  indexRowOf,
  listClientIndex,
  listIndex,
  listQuery,
  openOrderIds,
  type IndexFilter,
  type IndexRow,
} from "../../src/order-index/order-index-store";
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
  bareIndexRow,
  uid,
  writeIndexRow,
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

/** Runs the order's alarm (its `index` timer is the earliest) and answers the order's row then. */
async function afterIndexTimer(orderId: string): Promise<Record<string, unknown> | null> {
  expect(await runDurableObjectAlarm(orderStub(orderId))).toBe(true);
  return indexRow(orderId);
}

describe("an order writes its own row", () => {
  it("while created, from a timer set with the create, after the answer (the create wrote no row)", async () => {
    const { id: clientId, key } = await freshClient();
    const before = Date.now();
    const { id, reference } = await orderOf(key, undefined, false);
    // The answer came first: nothing in D1 yet, the `index` timer due INDEX_DELAY_MS after the create.
    expect(await indexRow(id)).toBeNull();
    const timer = (await timersOf(id)).find((each) => each.kind === "index");
    expect(timer?.due_at).toBeGreaterThanOrEqual(before + INDEX_DELAY_MS);
    expect(await storedAlarm(id)).toBe(timer?.due_at);
    const order = await storedOrder(id);
    expect(await afterIndexTimer(id)).toEqual({
      client_id: clientId,
      created_at: order.createdAt,
      id,
      reference,
      state: "created",
      wallet: "USD",
      total: "10",
      charged: "0",
      refunded: "0",
      skus: ",DEMO-US-RANGE,",
      lines: JSON.stringify([
        { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 2, amount: "10", outcome: "pending" },
      ]),
      modified_at: order.modifiedAt,
      expires_at: order.expiresAt,
      stage: 1,
      version: 1,
    });
    expect((await timersOf(id)).map((each) => each.kind)).toEqual(["expire"]);
  });

  it("writes a create confirmed and fulfilled within the delay once, in its end state", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    expect(await indexRow(id)).toBeNull();
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful", charged: "10", stage: 2, version: 3 });
    expect(JSON.parse((await indexRow(id))!.lines as string)).toEqual([
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
    expect(await indexRow(id)).toMatchObject({ state: "successful", version: 3 });
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
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful", stage: 2, version: 3 });
  });

  it("writes an order that expired unconfirmed", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key, undefined, false);
    expect(await expireByAlarm(id)).toBe(true);
    expect(await storedOrder(id)).toMatchObject({ state: "rejected" });
    expect(await afterIndexTimer(id)).toMatchObject({ state: "rejected", charged: "0", stage: 2 });
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
      skus: ",DEMO-US-FAILING,DEMO-US-RANGE,",
    });
    expect(JSON.parse(row!.lines as string)).toEqual([
      { sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: "7", outcome: "failed" },
      { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: "5", outcome: "delivered" },
    ]);
  });

  it("retries a write that failed, with the timer's backoff, and then writes the row", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    armFault(ORDER_SEAMS.indexWrite, { when: "before" });
    try {
      await runDurableObjectAlarm(orderStub(id));
      expect(firedFaults()).toEqual([`${ORDER_SEAMS.indexWrite}:before`]);
    } finally {
      clearFaults();
    }
    expect(await indexRow(id)).toBeNull();
    expect((await timersOf(id)).map((each) => each.kind)).toEqual(["index"]);
    expect(await afterIndexTimer(id)).toMatchObject({ state: "successful" });
    expect(await timersOf(id)).toEqual([]);
  });

  it("writes nothing new when asked again, and the repair pass's ask is the same write", async () => {
    const { key } = await freshClient();
    const { id } = await orderOf(key);
    // The row and its time index entry (the reconciliation reads by that one too, migration 0021); and the
    // daily figures' triggers (migration 0020, test/figures): its day's bucket, its client's day and that
    // day's entry, and its ended line's SKU.
    expect(await indexNow(id)).toBe(2 + 4);
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

describe("the upsert only accepts a newer version", () => {
  // Orders of today: a row of an order created long ago is a late row, which migration 0022's trigger
  // leaves over to the reconciliation (one row more).
  const base = Date.now();
  const row = (stage: number, state: IndexRow["state"], overrides: Partial<IndexRow> = {}): IndexRow =>
    bareIndexRow({
      clientId: "upsert-client",
      reference: uid("upsert"),
      state,
      total: "10",
      charged: "10",
      createdAt: base,
      modifiedAt: base + 1_000,
      stage,
      version: stage,
      ...overrides,
    });

  // Each count adds what the daily figures' triggers write (migration 0020, test/figures): a new order's
  // day and client buckets (and the client's day entry the first time), an ended order's move of bucket.
  it("writes 2 rows for an ended order (the row and its time index entry), none for a repeat", async () => {
    const done = row(2, "successful");
    expect(await writeIndexRow(env.DB, done)).toBe(2 + 3);
    expect(await writeIndexRow(env.DB, done)).toBe(0);
  });

  it("writes 3 rows for an open order (also its entry among the open), then 1 when it ends; never goes back", async () => {
    const processing = row(1, "processing");
    expect(await writeIndexRow(env.DB, processing)).toBe(3 + 2);
    expect(await writeIndexRow(env.DB, processing)).toBe(0);
    const done = { ...processing, state: "successful" as const, stage: 2, modifiedAt: base + 2_000, version: 2 };
    // The row (its time index entry stays; D1 counts no row for the entry it leaves among the open).
    expect(await writeIndexRow(env.DB, done)).toBe(1 + 2);
    // The open write arriving late changes nothing.
    expect(await writeIndexRow(env.DB, processing)).toBe(0);
    expect(await indexRow(done.id)).toMatchObject({ state: "successful", stage: 2 });
  });

  it("lets a newer version win, and never an older one, whatever its time", async () => {
    const own = row(2, "partial", { id: `ord_${"ce".repeat(32)}`, refunded: "5", modifiedAt: base + 500, version: 4 });
    expect(await writeIndexRow(env.DB, own)).toBe(2 + 2);
    expect(await writeIndexRow(env.DB, { ...own, state: "failed", modifiedAt: base + 900, version: 3 })).toBe(0);
    // The same version and a later time: a row of the ledger indexer (version 0) the order writes again.
    expect(await writeIndexRow(env.DB, { ...own, state: "failed", modifiedAt: base + 400, version: 4 })).toBe(0);
    // A newer write carries every field that can change, expiresAt too (the sandbox's expire-now moves it).
    expect(
      await writeIndexRow(env.DB, {
        ...own,
        state: "failed",
        modifiedAt: base + 600,
        expiresAt: base + 550,
        version: 5,
      }),
    ).toBe(1 + 2);
    expect(await indexRow(own.id)).toMatchObject({
      state: "failed",
      modified_at: base + 600,
      expires_at: base + 550,
    });
  });

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

describe("every filter reads an index, never the whole table", () => {
  const FILTERS: [string, IndexFilter][] = [
    ["nothing", {}],
    ["a client", { clientId: "c" }],
    ["a client's reference prefix", { clientId: "c", reference: "INV-2026" }],
    ["a state", { state: "failed" }],
    ["a SKU", { sku: "DEMO-US-RANGE" }],
    ["a period", { createdFrom: 1, createdTo: 2 }],
    ["a client, a state and a period", { clientId: "c", state: "failed", createdFrom: 1, createdTo: 2 }],
    ["everything", { clientId: "c", reference: "R", state: "partial", sku: "S", createdFrom: 1, createdTo: 2 }],
  ];

  for (const [name, filter] of FILTERS) {
    it(`${name}`, async () => {
      const { sql, params } = listQuery(filter, { createdAt: 5, id: `ord_${"ab".repeat(32)}` }, 50);
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const plan = results.map((step) => step.detail);
      const reads = plan.filter((detail) => /^(SCAN|SEARCH) order_index/.test(detail));
      expect(reads, plan.join("; ")).toHaveLength(1);
      // A client's orders are a range of the key, read newest first with no sort; no client walks the time index.
      const expected =
        filter.clientId !== undefined
          ? /^SEARCH order_index USING PRIMARY KEY \(client_id=\?/
          : /^(SCAN|SEARCH) order_index USING (COVERING )?INDEX order_index_created/;
      expect(reads[0], plan.join("; ")).toMatch(expected);
      expect(plan.join("; ")).not.toMatch(/TEMP B-TREE/);
    });
  }
});

describe("a list", () => {
  it("filters by client, state, SKU, period and a client's reference prefix, newest first", async () => {
    const clientId = uid("list");
    const base = 10_000_000;
    const rows: IndexRow[] = [
      ["INV-1", "successful", ["A"], 1],
      ["INV-2", "failed", ["B"], 2],
      ["INV-10", "partial", ["A", "B"], 3],
      ["OTHER", "successful", ["B"], 4],
    ].map(([reference, state, skus, at]) => ({
      id: `ord_${String(at).repeat(64)}`,
      clientId,
      reference: reference as string,
      state: state as IndexRow["state"],
      wallet: "USD",
      total: "1",
      charged: "1",
      refunded: "0",
      skus: skus as string[],
      createdAt: base + (at as number),
      modifiedAt: base + (at as number),
      expiresAt: base + 600_000,
      stage: 2,
      lines: [],
      version: 1,
    }));
    for (const row of rows) await writeIndexRow(env.DB, row);
    const refs = async (filter: IndexFilter) =>
      (await listIndex(env.DB, { clientId, ...filter }, null, 100)).map((row) => row.reference);
    expect(await refs({})).toEqual(["OTHER", "INV-10", "INV-2", "INV-1"]);
    expect(await refs({ reference: "INV-1" })).toEqual(["INV-10", "INV-1"]);
    expect(await refs({ state: "successful" })).toEqual(["OTHER", "INV-1"]);
    expect(await refs({ sku: "A" })).toEqual(["INV-10", "INV-1"]);
    expect(await refs({ sku: "%" })).toEqual([]);
    expect(await refs({ createdFrom: base + 2, createdTo: base + 3 })).toEqual(["INV-10", "INV-2"]);
    const first = await listIndex(env.DB, { clientId }, null, 2);
    const rest = await listIndex(env.DB, { clientId }, { createdAt: first[1]!.createdAt, id: first[1]!.id }, 2);
    expect([...first, ...rest].map((row) => row.reference)).toEqual(["OTHER", "INV-10", "INV-2", "INV-1"]);
    // A client's own list: the same range of the key, its filters and pages.
    const own = async (filter: Parameters<typeof listClientIndex>[2]) =>
      (await listClientIndex(env.DB, clientId, filter, null, 100)).map((row) => row.reference);
    expect(await own({ reference: "INV-1", state: "partial" })).toEqual(["INV-10"]);
    expect(await own({ createdFrom: base + 4 })).toEqual(["OTHER"]);
    // A page after a cursor is the same after orders newer than it were added.
    await writeIndexRow(env.DB, { ...rows[3]!, id: `ord_${"9".repeat(64)}`, reference: "NEWER", createdAt: base + 9 });
    const after = { createdAt: first[1]!.createdAt, id: first[1]!.id };
    expect((await listClientIndex(env.DB, clientId, {}, after, 2)).map((row) => row.reference)).toEqual([
      "INV-2",
      "INV-1",
    ]);
  });
});

describe("open orders and long SKUs", () => {
  const openRow = (id: string, reference: string, skus = ["DEMO-US-RANGE"]): IndexRow => ({
    id,
    clientId: "open-client",
    reference,
    state: "processing",
    wallet: "USD",
    total: "1",
    charged: "1",
    refunded: "0",
    skus,
    createdAt: 5_000,
    modifiedAt: 5_000,
    expiresAt: 605_000,
    stage: 1,
    lines: [],
    version: 1,
  });

  it("reads open orders in id order after a given one", async () => {
    for (const at of [1, 2, 3]) await writeIndexRow(env.DB, openRow(`ord_zz${at}`, `open-${at}`));
    expect((await openOrderIds(env.DB, "ord_zz1", 2)).ids).toEqual(["ord_zz2", "ord_zz3"]);
    expect((await openOrderIds(env.DB, "ord_zz3", 10)).ids).toEqual([]);
  });

  it("finds a SKU of any length, and only with its exact case", async () => {
    const long = `SKU-${"X".repeat(55)}_%`;
    await writeIndexRow(env.DB, {
      ...openRow(`ord_${"e".repeat(64)}`, "long-sku", [long]),
      stage: 2,
      state: "successful",
    });
    const found = async (sku: string) =>
      (await listIndex(env.DB, { clientId: "open-client", sku }, null, 10)).map((row) => row.reference);
    expect(await found(long)).toEqual(["long-sku"]);
    expect(await found(long.toLowerCase())).toEqual([]);
    expect(await found("SKU-")).toEqual([]);
  });
});
