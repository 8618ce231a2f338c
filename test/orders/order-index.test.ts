/**
 * The order index: written through the order's outbox (a version and the `index` timer in the write that
 * changes the state), applied by the alarm as an upsert that only a newer version passes; what each write
 * costs in D1 rows; and every filter of the lists served by an index range, never a scan of the table.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { indexRowOf, listQuery, writeIndexRow, type IndexFilter, type IndexRow } from "../../src/orders/order-index";
import { INDEX_LAG_MS, OrderStore } from "../../src/orders/order-store";
import { confirmOrder, createOrder, getOrder, line, seedDemo } from "../helpers";
import { expectOk, freshClient, orderStubOf, storedOrder, timersOf, uid } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

async function indexed(orderId: string): Promise<Record<string, unknown> | null> {
  return env.DB.prepare(`SELECT * FROM order_index WHERE id = ?1`).bind(orderId).first();
}

/** Runs the order's alarm until its index timer has run (processing started by confirm first settles). */
async function applyIndex(orderId: string): Promise<void> {
  const state = async () =>
    runInDurableObject(orderStubOf(orderId), async (_instance, storage) => ({
      timers: new OrderStore(storage.storage).timers(),
      alarm: await storage.storage.getAlarm(),
      now: Date.now(),
    }));
  // Processing started by confirm runs after its answer: wait until the order is no longer on its way.
  for (let wait = 0; wait < 100 && ["confirmed", "processing"].includes((await storedOrder(orderId)).state); wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  for (let run = 0; run < 10 && (await state()).timers.some((timer) => timer.kind === "index"); run += 1) {
    await runDurableObjectAlarm(orderStubOf(orderId));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const after = await state();
  expect(after.timers.map((timer) => timer.kind), JSON.stringify(after)).not.toContain("index");
}

describe("the order index is written through the order's outbox", () => {
  it("a create stores the index timer with the order, and the alarm applies the row", async () => {
    const { id: clientId, key } = await freshClient();
    const reference = uid("ref");
    const before = Date.now();
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 5, 2)], wallet: "USD", reference }, key));
    const timers = await timersOf(created.id);
    const index = timers.find((timer) => timer.kind === "index");
    expect(index, JSON.stringify(timers)).toBeDefined();
    expect(index!.due_at).toBeGreaterThanOrEqual(before + INDEX_LAG_MS);
    expect(await indexed(created.id)).toBeNull();

    await applyIndex(created.id);
    const row = await indexed(created.id);
    const order = await storedOrder(created.id);
    expect(row).toMatchObject({
      client_id: clientId,
      reference,
      state: "created",
      wallet: "USD",
      total: "10",
      charged: "0",
      refunded: "0",
      skus: JSON.stringify(["DEMO-US-RANGE"]),
      created_at: order.createdAt,
      expires_at: order.expiresAt,
      version: 1,
    });
  });

  it("states in quick succession reach the index as one write of the latest, charged and refunded as the ledger has them", async () => {
    const { key } = await freshClient();
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("ref") }, key));
    expectOk(await confirmOrder(created.id, key));
    // Processing (started by confirm) does not run the index timer ahead of its time.
    for (let wait = 0; wait < 100 && (await storedOrder(created.id)).state !== "partial"; wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await indexed(created.id)).toBeNull();
    await applyIndex(created.id);
    const view = expectOk(await getOrder(created.id, key));
    expect(view.state).toBe("partial");
    // created, confirmed, partial (processing is stored only for an upstream line): three changes of
    // state, one row written with the last.
    expect(await indexed(created.id)).toMatchObject({ state: "partial", total: "12", charged: "12", refunded: "7", version: 3 });
  });

  it("an expired order is indexed as rejected, with nothing charged", async () => {
    const { key } = await freshClient();
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("ref") }, key));
    await applyIndex(created.id);
    const { expireByAlarm } = await import("../order-helpers");
    await expireByAlarm(created.id);
    await applyIndex(created.id);
    expect(await indexed(created.id)).toMatchObject({ state: "rejected", charged: "0", version: 2 });
  });
});

describe("the upsert only accepts a newer version", () => {
  const row = (version: number, state: IndexRow["state"], overrides: Partial<IndexRow> = {}): IndexRow => ({
    id: `ord_${"ab".repeat(32)}`,
    clientId: "upsert-client",
    reference: "upsert-ref",
    state,
    wallet: "USD",
    total: "10",
    charged: state === "created" ? "0" : "10",
    refunded: "0",
    skus: ["DEMO-US-RANGE"],
    createdAt: 1_000,
    modifiedAt: 1_000 + version,
    expiresAt: 601_000,
    version,
    ...overrides,
  });

  it("repeats and out-of-order writes change nothing and write no row", async () => {
    expect(await writeIndexRow(env.DB, row(2, "successful"))).toBeGreaterThan(0);
    // An older version arriving late, and the same version again.
    expect(await writeIndexRow(env.DB, row(1, "created"))).toBe(0);
    expect(await writeIndexRow(env.DB, row(2, "successful"))).toBe(0);
    expect(await indexed(row(2, "successful").id)).toMatchObject({ state: "successful", version: 2 });
    expect(await writeIndexRow(env.DB, row(3, "failed", { refunded: "10" }))).toBeGreaterThan(0);
    expect(await indexed(row(3, "failed").id)).toMatchObject({ state: "failed", refunded: "10", version: 3 });
  });

  it("costs this many D1 rows, index entries included (docs/benchmarks.md's cost section)", async () => {
    const first = row(1, "created", { id: `ord_${"cd".repeat(32)}` });
    const inserted = await writeIndexRow(env.DB, first);
    const updated = await writeIndexRow(env.DB, { ...first, state: "successful", charged: "10", version: 2 });
    // The insert: the row (keyed by client, time and id), four index entries and one SKU entry. A change
    // of state rewrites the row and its entry in the two indexes that hold the state: 3 rows.
    expect({ inserted, updated }).toEqual({ inserted: 6, updated: 3 });
  });

  it("builds a row from an order exactly as stored", async () => {
    const { key } = await freshClient();
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("ref") }, key));
    const order = await storedOrder(created.id);
    expect(indexRowOf(order, 7)).toMatchObject({ id: order.id, state: "created", total: order.charge, charged: "0", skus: ["DEMO-US-RANGE"], version: 7 });
  });
});

describe("every filter uses an index range, never a scan of the table", () => {
  const cursor = { createdAt: 5_000, id: `ord_${"ef".repeat(32)}` };
  const filters: Record<string, IndexFilter> = {
    "a client's orders": { clientId: "c" },
    "a client's orders in a state": { clientId: "c", state: "failed" },
    "a client's orders created in a period": { clientId: "c", createdFrom: 1, createdTo: 2 },
    "a client's orders in a state created in a period": { clientId: "c", state: "failed", createdFrom: 1, createdTo: 2 },
    "a client's orders by reference prefix": { clientId: "c", reference: "po-" },
    "a client's orders by reference prefix in a state": { clientId: "c", reference: "po-", state: "successful" },
    "every client's orders": {},
    "every client's orders created in a period": { createdFrom: 1, createdTo: 2 },
    "every client's orders in a state": { state: "failed" },
    "every client's orders in a state created in a period": { state: "failed", createdFrom: 1, createdTo: 2 },
    "orders of a SKU": { sku: "DEMO-US-RANGE" },
    "a client's orders of a SKU in a state": { sku: "DEMO-US-RANGE", clientId: "c", state: "failed", createdFrom: 1 },
  };

  it.each(Object.entries(filters))("%s", async (_name, filter) => {
    for (const after of [null, cursor]) {
      const { sql, params } = listQuery(filter, after, 100);
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
      const plan = results.map((step) => step.detail);
      // Only the unfiltered list walks a whole index (in order, up to the page's limit); everything else
      // searches a range of one.
      const unfiltered = filter.clientId === undefined && filter.state === undefined && filter.sku === undefined && filter.createdFrom === undefined;
      for (const step of plan) {
        expect(step, plan.join(" | ")).not.toMatch(/^SCAN (order_index|o|s)$/);
        if (!unfiltered) expect(step, plan.join(" | ")).not.toMatch(/^SCAN/);
      }
      expect(plan.some((step) => /USING (COVERING )?INDEX|USING PRIMARY KEY/.test(step)), plan.join(" | ")).toBe(true);
      // Newest first straight from the index, without sorting what it found, except for a reference prefix
      // (its few matches sorted by time).
      if (filter.reference === undefined) expect(plan.join(" | ")).not.toMatch(/TEMP B-TREE/);
    }
  });
});
