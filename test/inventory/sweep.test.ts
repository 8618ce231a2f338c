/**
 * The scheduled sweep, driven through the Worker's own `scheduled` handler against real D1 and real order
 * objects: what it releases, what it keeps, how it reports.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { SWEEP_GRACE_MS, SWEEP_MAX_ASKS, SWEEP_MAX_ORDERS, SWEEP_SEAMS } from "../../src/inventory/sweep";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { orderIdOf } from "../../src/orders/order-id";
import { createOrder, line, seedDemo } from "../helpers";
import {
  addCodes,
  addProduct,
  backdateExpiry,
  rewriteStoredOrder,
  codesOfOrder,
  expectOk,
  expireByAlarm,
  freshClient,
  storedOrder,
  uid,
} from "../order-helpers";

const LONG_AGO = () => Date.now() - SWEEP_GRACE_MS - 60_000;
const DAY = 86_400_000;

beforeAll(async () => {
  await seedDemo();
  await addProduct({ sku: "T-SWEEP", productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
  await addCodes("T-SWEEP", "10", 400);
});

afterEach(() => {
  clearFaults();
  vi.restoreAllMocks();
});

async function runSweep(): Promise<void> {
  const exec = createExecutionContext();
  await worker.scheduled!(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env);
  await waitOnExecutionContext(exec);
}

/** Holds `count` available codes under `orderId` as reserved until `until`, as a create would. */
async function reserveUnder(orderId: string, count: number, until = LONG_AGO()): Promise<void> {
  await env.DB.prepare(
    `UPDATE codes SET status = 'reserved', order_id = ?1, reserved_until = ?2
      WHERE id IN (SELECT id FROM codes WHERE sku = 'T-SWEEP' AND status = 'available' ORDER BY id LIMIT ?3)`,
  )
    .bind(orderId, until, count)
    .run();
}

async function backdateReservations(orderId: string, until = LONG_AGO()): Promise<void> {
  await env.DB.prepare(`UPDATE codes SET reserved_until = ?2 WHERE order_id = ?1 AND status = 'reserved'`)
    .bind(orderId, until)
    .run();
}

function unstoredOrderId(): string {
  return orderIdOf(env.ORDERS.idFromName(uid("never-stored")));
}

async function newOrder(key: string, quantity = 2): Promise<string> {
  return expectOk(await createOrder({ productList: [line("T-SWEEP", 10, quantity, "fixed")] }, key)).id;
}

async function sweepAudits(): Promise<any[]> {
  const { results } = await env.DB.prepare(
    `SELECT actor, action, target, request_id, details FROM audit_log WHERE actor = 'system:sweep' ORDER BY id`,
  ).all<any>();
  return results.map((row) => ({ ...row, details: JSON.parse(row.details) }));
}

describe("the scheduled sweep releases reservations nobody will use", () => {
  it("releases stale codes of an order that was never stored, and of an id that cannot be an order", async () => {
    const missing = unstoredOrderId();
    await reserveUnder(missing, 3);
    await reserveUnder("ord_not-an-object-id", 1);
    await runSweep();
    expect(await codesOfOrder(missing)).toEqual([]);
    expect(await codesOfOrder("ord_not-an-object-id")).toEqual([]);
  });

  it("releases an expired still-created order's codes, and keeps a live created order's", async () => {
    const client = await freshClient({ USD: "1000" });
    const expired = await newOrder(client.key);
    const live = await newOrder(client.key);
    await backdateExpiry(expired, SWEEP_GRACE_MS + 60_000);
    await backdateReservations(expired);
    await backdateReservations(live, LONG_AGO() - DAY);
    await runSweep();
    expect(await codesOfOrder(expired)).toEqual([]);
    expect((await codesOfOrder(live)).map((code) => code.status)).toEqual(["reserved", "reserved"]);
  });

  it.each(["confirmed", "processing"] as const)("keeps a %s order's codes: processing sells them", async (state) => {
    const client = await freshClient({ USD: "1000" });
    const held = await newOrder(client.key);
    // Processing runs at once after a confirm here, so the order is put in the state it would be in between.
    await rewriteStoredOrder(held, (doc) => {
      doc.state = state;
    });
    expect((await storedOrder(held)).state).toBe(state);
    await backdateReservations(held, LONG_AGO() - DAY);
    await runSweep();
    expect((await codesOfOrder(held)).map((code) => code.status)).toEqual(["reserved", "reserved"]);
  });

  it("releases codes left reserved under a rejected order", async () => {
    const client = await freshClient({ USD: "1000" });
    const rejected = await newOrder(client.key);
    expect(await expireByAlarm(rejected)).toBe(true);
    expect((await storedOrder(rejected)).state).toBe("rejected");
    await reserveUnder(rejected, 2);
    await runSweep();
    expect(await codesOfOrder(rejected)).toEqual([]);
  });

  it("never releases a reservation whose reserved_until is within the grace period, even under a missing order", async () => {
    const missing = unstoredOrderId();
    await reserveUnder(missing, 1);
    await reserveUnder(missing, 1, Date.now() + 60_000);
    await runSweep();
    expect((await codesOfOrder(missing)).map((code) => code.status)).toEqual(["reserved"]);
  });

  it("reports one JSON log line and one audit row when it released something, and none when it did not", async () => {
    const missing = unstoredOrderId();
    await reserveUnder(missing, 2);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const auditsBefore = (await sweepAudits()).length;
    await runSweep();
    const reports = lines.map((line) => JSON.parse(line)).filter((line) => line.message === "inventory sweep");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ level: "info", step: "sweep", released: 2, failed: 0 });
    expect(reports[0].orders).toContainEqual({ orderId: missing, state: "missing", released: 2 });
    const audits = await sweepAudits();
    expect(audits).toHaveLength(auditsBefore + 1);
    expect(audits.at(-1)).toMatchObject({
      actor: "system:sweep",
      action: "inventory.reservations_released",
      target: "codes",
      details: { released: 2 },
    });
    expect(audits.at(-1).details.orders).toContainEqual({ orderId: missing, state: "missing", released: 2 });

    await runSweep();
    expect(await sweepAudits()).toHaveLength(auditsBefore + 1);
  });

  it("does bounded work per run: it releases the codes of at most SWEEP_MAX_ORDERS orders, the next run takes the rest", async () => {
    const ids = Array.from({ length: SWEEP_MAX_ORDERS + 3 }, unstoredOrderId);
    for (const id of ids) await reserveUnder(id, 1);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    await runSweep();
    const report = lines.map((line) => JSON.parse(line)).find((line) => line.message === "inventory sweep");
    expect(report.orders).toHaveLength(SWEEP_MAX_ORDERS);
    expect(report.stoppedBy).toBe("orders");
    const left = await Promise.all(ids.map(async (id) => (await codesOfOrder(id)).length));
    expect(left.filter((count) => count > 0).length).toBeGreaterThanOrEqual(3);
    await runSweep();
    expect(
      (await Promise.all(ids.map(async (id) => (await codesOfOrder(id)).length))).every((count) => count === 0),
    ).toBe(true);
  });

  it("logs a failed order as one failure line and goes on with the others; the next run releases it", async () => {
    const first = unstoredOrderId();
    const second = unstoredOrderId();
    await reserveUnder(first, 1, LONG_AGO() - 2 * DAY);
    await reserveUnder(second, 1);
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    armFault(SWEEP_SEAMS.orderRecord, { when: "before" });
    await runSweep();
    const failures = errors.map((line) => JSON.parse(line)).filter((line) => line.message === "failure");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ step: "sweep.order", orderId: first });
    expect(failures[0].error).toMatch(/InjectedFault/);
    expect(await codesOfOrder(first)).toHaveLength(1);
    expect(await codesOfOrder(second)).toEqual([]);
    await runSweep();
    expect(await codesOfOrder(first)).toEqual([]);
  });

  it("pages past the orders it keeps: SWEEP_MAX_ORDERS processing orders overdue longer do not hide the others", async () => {
    const client = await freshClient({ USD: "1000" });
    const kept: string[] = [];
    for (let batch = 0; batch < SWEEP_MAX_ORDERS; batch += 10) {
      kept.push(...(await Promise.all(Array.from({ length: 10 }, () => newOrder(client.key, 1)))));
    }
    for (const id of kept) {
      await rewriteStoredOrder(id, (doc) => {
        doc.state = "processing";
      });
      // Overdue longer than anything else in the table, so they come first in the sweep's order.
      await backdateReservations(id, LONG_AGO() - 30 * DAY);
    }
    const behind = Array.from({ length: 3 }, unstoredOrderId);
    for (const id of behind) await reserveUnder(id, 1);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    await runSweep();
    expect((await Promise.all(behind.map(codesOfOrder))).map((codes) => codes.length)).toEqual([0, 0, 0]);
    expect(
      (await Promise.all(kept.map(codesOfOrder))).every(
        (codes) => codes.length === 1 && codes[0]!.status === "reserved",
      ),
    ).toBe(true);
    const report = lines.map((line) => JSON.parse(line)).find((line) => line.message === "inventory sweep");
    expect(report.kept).toBeGreaterThanOrEqual(SWEEP_MAX_ORDERS);
    expect(report.orders).toEqual(
      expect.arrayContaining(behind.map((orderId) => ({ orderId, state: "missing", released: 1 }))),
    );
  });

  it("asks at most SWEEP_MAX_ASKS orders per run, kept and failed ones included, and says so in a warning", async () => {
    await addCodes("T-SWEEP", "10", SWEEP_MAX_ASKS + 10);
    // Every available code under an order id of its own (not an object id: such an order is missing).
    await env.DB.prepare(
      `UPDATE codes SET status = 'reserved', order_id = 'ord_budget-' || id, reserved_until = ?1 WHERE sku = 'T-SWEEP' AND status = 'available'`,
    )
      .bind(LONG_AGO())
      .run();
    const stale = await env.DB.prepare(
      `SELECT COUNT(DISTINCT order_id) AS n FROM codes WHERE status = 'reserved' AND reserved_until < ?1`,
    )
      .bind(Date.now() - SWEEP_GRACE_MS)
      .first<{ n: number }>();
    expect(stale!.n).toBeGreaterThan(SWEEP_MAX_ASKS);
    armFault(SWEEP_SEAMS.orderRecord, { when: "before", times: stale!.n });
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, "warn").mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, "error").mockImplementation(() => {});
    await runSweep();
    const report = lines.map((line) => JSON.parse(line)).find((line) => line.message === "inventory sweep");
    expect(report).toMatchObject({ level: "warn", looked: SWEEP_MAX_ASKS, stoppedBy: "asks", released: 0 });
    expect(report.failed + report.kept).toBe(SWEEP_MAX_ASKS);
  });
});
