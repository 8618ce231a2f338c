/**
 * The order index: the indexer that writes an order's row from its wallet's ledger (and no order that
 * moved no money), reads open orders again, and loses nothing when its write fails; the upsert that only a
 * later write passes; what each write costs in D1 rows; and the plan of each filter (an index range or the
 * time index, never the table).
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  indexRowOf,
  listIndex,
  listQuery,
  openOrderIds,
  type IndexFilter,
  type IndexRow,
} from "../../src/orders/order-index";
import { SWEEP_SEAMS } from "../../src/inventory/sweep";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import { indexOrders, LEDGER_PAGE } from "../../src/orders/order-indexer";
import worker from "../../src/index";
import { confirmOrder, createOrder, line, seedDemo, topUp } from "../helpers";
import { ended, expectOk, expireByAlarm, freshClient, storedOrder, uid, writeIndexRow } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

async function indexed(clientId: string, reference: string): Promise<Record<string, unknown> | null> {
  return env.DB.prepare(`SELECT * FROM order_index WHERE client_id = ?1 AND reference = ?2`)
    .bind(clientId, reference)
    .first();
}

/** A one-unit sandbox order of a new reference, created, confirmed and processed to `successful`. */
async function successfulOrder(key: string): Promise<{ created: { id: string }; reference: string }> {
  const reference = uid("ref");
  const created = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference }, key),
  );
  expectOk(await confirmOrder(created.id, key));
  expect(await ended(created.id)).toBe("successful");
  return { created, reference };
}

describe("the indexer writes an order's row from its wallet's ledger", () => {
  it("indexes no order that has moved no money, and a processed one with its end state, amounts and SKUs", async () => {
    const { id: clientId, key } = await freshClient();
    const reference = uid("ref");
    const created = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 2)], wallet: "USD", reference }, key),
    );
    await indexOrders(env, clientId);
    expect(await indexed(clientId, reference)).toBeNull();
    expectOk(await confirmOrder(created.id, key));
    expect(await ended(created.id)).toBe("successful");
    const run = await indexOrders(env, clientId);
    const order = await storedOrder(created.id);
    expect(await indexed(clientId, reference)).toEqual({
      client_id: clientId,
      reference,
      id: created.id,
      state: "successful",
      wallet: "USD",
      total: "10",
      charged: "10",
      refunded: "0",
      skus: ",DEMO-US-RANGE,",
      created_at: order.createdAt,
      modified_at: order.modifiedAt,
      expires_at: order.expiresAt,
      stage: 2,
      lines: null,
    });
    // The row and its time index entry, and the wallet's cursor: the top-up and the charge were read; and
    // the daily figures' triggers (migration 0020): its day's bucket, its client's day and that day's entry.
    expect(run).toMatchObject({ wallets: 1, entries: 1, orders: 1, rowsWritten: 3 + 3 });
    // A second run reads nothing new and writes nothing.
    expect(await indexOrders(env, clientId)).toMatchObject({ entries: 0, orders: 0, rowsWritten: 0 });
  });

  it("is run by the scheduled job", async () => {
    const { id: clientId, key } = await freshClient();
    const { created, reference } = await successfulOrder(key);
    const controller = createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" });
    await worker.scheduled(controller, env);
    expect(await indexed(clientId, reference)).toMatchObject({ id: created.id, state: "successful" });
  });

  it("reads a wallet page after page while pages come full", async () => {
    const { id: clientId, key } = await freshClient();
    // More entries than a page before the order's charge.
    for (let entry = 0; entry < LEDGER_PAGE + 10; entry += 1) await topUp(clientId, "USD", "1");
    const { created, reference } = await successfulOrder(key);
    expect(await indexOrders(env, clientId)).toMatchObject({ wallets: 1, entries: 1, orders: 1, behind: 0 });
    expect(await indexed(clientId, reference)).toMatchObject({ id: created.id, state: "successful" });
  }, 60_000);

  it("is run by the scheduled job even when the sweep before it fails", async () => {
    const { id: clientId, key } = await freshClient();
    const { created, reference } = await successfulOrder(key);
    armFault(SWEEP_SEAMS.findStale, { when: "before" });
    try {
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env);
      expect(firedFaults()).toEqual([`${SWEEP_SEAMS.findStale}:before`]);
    } finally {
      clearFaults();
    }
    expect(await indexed(clientId, reference)).toMatchObject({ id: created.id, state: "successful" });
  });

  it("records what a partial order was charged and refunded", async () => {
    const { id: clientId, key } = await freshClient();
    const reference = uid("ref");
    const created = expectOk(
      await createOrder(
        { productList: [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference },
        key,
      ),
    );
    expectOk(await confirmOrder(created.id, key));
    expect(await ended(created.id)).toBe("partial");
    await indexOrders(env, clientId);
    expect(await indexed(clientId, reference)).toMatchObject({
      state: "partial",
      total: "12",
      charged: "12",
      refunded: "7",
      skus: ",DEMO-US-FAILING,DEMO-US-RANGE,",
    });
  });

  it("does not index an order that expired unconfirmed: it moved no money", async () => {
    const { id: clientId, key } = await freshClient();
    const reference = uid("ref");
    const created = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference }, key),
    );
    expect(await expireByAlarm(created.id)).toBe(true);
    await indexOrders(env, clientId);
    expect(await indexed(clientId, reference)).toBeNull();
  });

  it("reads an order indexed while open again, until it has ended", async () => {
    const { id: clientId, key } = await freshClient();
    const { created, reference } = await successfulOrder(key);
    await indexOrders(env, clientId);
    // As the indexer finds an order it read while an upstream line was still waiting on its supplier.
    await env.DB.prepare(
      `UPDATE order_index SET state = 'processing', stage = 1 WHERE client_id = ?1 AND reference = ?2`,
    )
      .bind(clientId, reference)
      .run();
    expect(await openOrderIds(env.DB, 10_000)).toContain(created.id);
    await indexOrders(env, clientId);
    expect(await indexed(clientId, reference)).toMatchObject({ state: "successful", stage: 2 });
    expect(await openOrderIds(env.DB, 10_000)).not.toContain(created.id);
  });

  it("leaves its cursor where it was when the write fails, and the next run writes the row", async () => {
    const { id: clientId, key } = await freshClient();
    const { created, reference } = await successfulOrder(key);
    const failing = new Proxy(env.DB, {
      get: (target, name) =>
        name === "batch"
          ? () => Promise.reject(new Error("D1 unavailable"))
          : (Reflect.get(target, name) as unknown as (...args: unknown[]) => unknown).bind(target),
    });
    await expect(indexOrders({ ...env, DB: failing }, clientId)).rejects.toThrow("D1 unavailable");
    expect(await indexed(clientId, reference)).toBeNull();
    expect(await indexOrders(env, clientId)).toMatchObject({ entries: 1, orders: 1 });
    expect(await indexed(clientId, reference)).toMatchObject({ state: "successful" });
  });
});

describe("the upsert only accepts a later write", () => {
  const row = (stage: number, state: IndexRow["state"], overrides: Partial<IndexRow> = {}): IndexRow => ({
    id: `ord_${"cd".repeat(32)}`,
    clientId: "upsert-client",
    reference: uid("upsert"),
    state,
    wallet: "USD",
    total: "10",
    charged: "10",
    refunded: "0",
    skus: ["DEMO-US-RANGE"],
    createdAt: 1_000,
    modifiedAt: 2_000,
    expiresAt: 601_000,
    stage,
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
    const done = { ...processing, state: "successful" as const, stage: 2, modifiedAt: 3_000 };
    expect(await writeIndexRow(env.DB, done)).toBe(1 + 2);
    // The open write arriving late changes nothing.
    expect(await writeIndexRow(env.DB, processing)).toBe(0);
    expect(await indexed(done.clientId, done.reference)).toMatchObject({ state: "successful", stage: 2 });
  });

  it("lets a later write of the same stage win, and never an earlier one", async () => {
    const own = row(2, "partial", { refunded: "5", modifiedAt: 1_500 });
    expect(await writeIndexRow(env.DB, own)).toBe(2 + 2);
    expect(await writeIndexRow(env.DB, { ...own, state: "failed", modifiedAt: 1_400 })).toBe(0);
    // A later write carries every field that can change, expiresAt too (the sandbox's expire-now moves it).
    expect(await writeIndexRow(env.DB, { ...own, state: "failed", modifiedAt: 1_600, expiresAt: 1_550 })).toBe(1 + 2);
    expect(await indexed(own.clientId, own.reference)).toMatchObject({
      state: "failed",
      modified_at: 1_600,
      expires_at: 1_550,
    });
  });

  it("is built from the stored order alone", async () => {
    const { key } = await freshClient();
    const created = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 3)], wallet: "USD", reference: uid("ref") }, key),
    );
    const order = await storedOrder(created.id);
    expect(indexRowOf({ ...order, state: "rejected" })).toMatchObject({ charged: "0", total: "15", stage: 2 });
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
      const expected =
        filter.clientId !== undefined && filter.reference !== undefined
          ? /^SEARCH order_index USING PRIMARY KEY \(client_id=\? AND reference>\? AND reference<\?\)/
          : /^(SCAN|SEARCH) order_index USING (COVERING )?INDEX order_index_created/;
      expect(reads[0], plan.join("; ")).toMatch(expected);
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
  });

  it("reads open orders from a given place on, wrapping around to the start", async () => {
    for (const at of [1, 2, 3]) await writeIndexRow(env.DB, openRow(`ord_zz${at}`, `open-${at}`));
    expect(await openOrderIds(env.DB, 2, "ord_zz2")).toEqual(["ord_zz2", "ord_zz3"]);
    const wrapped = await openOrderIds(env.DB, 10_000, "ord_zz3");
    expect(wrapped[0]).toBe("ord_zz3");
    expect(wrapped).toContain("ord_zz1");
    expect(new Set(wrapped).size).toBe(wrapped.length);
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
