/**
 * Timers never die: a failing timer is stored again with capped backoff and retried without limit (the
 * platform itself retries a throwing alarm only 6 times), is reported to the operator after 3 failures in
 * a row (GET /admin/orders/stuck) and cleared from that report once it succeeds.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import type { OrderObject } from "../../src/orders/order-object";
import { OrderStore } from "../../src/orders/order-store";
import type { Timer } from "../../src/orders/order-timers";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { TIMER_RETRY_CAP_MS, timerRetryDelayMs } from "../../src/orders/timer-policy";
import { admin } from "../admin-helpers";
import { addClient, confirmOrder, createOrder, getOrder, line, orderStub, seedDemo, wallet } from "../helpers";
import { backdateExpiry, drainTimers, liveStore, runIndexTimer, storedAlarm, storedOrder } from "../order-helpers";

async function timersOf(orderId: string): Promise<Timer[]> {
  return runInDurableObject(orderStub(orderId), (instance, state) => liveStore(instance, state).timers());
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Moves the order's alarm an hour out, so that on a slow machine the platform does not run a retry on its
 * own between the test's runs (a run the test makes still takes the earliest timer as due).
 */
async function holdAlarm(orderId: string): Promise<void> {
  await runInDurableObject(orderStub(orderId), (_instance, state) => state.storage.setAlarm(Date.now() + 3_600_000));
}

beforeAll(seedDemo);
afterEach(clearFaults);

describe("the retry policy (pure)", () => {
  it("doubles from 2 s and stops at 5 min, whatever the count", () => {
    expect([1, 2, 3, 4, 5].map(timerRetryDelayMs)).toEqual([2_000, 4_000, 8_000, 16_000, 32_000]);
    expect(timerRetryDelayMs(9)).toBe(TIMER_RETRY_CAP_MS);
    expect(timerRetryDelayMs(1_000)).toBe(TIMER_RETRY_CAP_MS);
  });
});

describe("a processing timer that keeps failing", () => {
  it("is retried far past the platform's 6 alarm retries, reported after 3 failures, and cleared when it recovers", async () => {
    const key = await addClient("timers-outage", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], reference: "outage-1" }, key);
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    // The supplier is down for 10 runs: longer than the 6 retries the platform would give a throwing alarm.
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 10 });
    expect((await confirmOrder(id, key)).status).toBe(200);
    // Processing started inside confirm, failed, and stored its timer again with one failure.
    let process = (
      await until(
        () => timersOf(id),
        (timers) => timers.some((t) => t.kind === "process" && t.failures === 1),
        "the first failure",
      )
    ).find((t) => t.kind === "process")!;
    // The order index's timer, set with the create, is due first; the alarm runs counted below are processing's.
    await runIndexTimer(id);
    await holdAlarm(id);
    expect(process.lastError).toMatch(/injected fault at order.supplier-sandbox/);
    expect(process.dueAt - Date.now()).toBeGreaterThan(1_000);
    for (let run = 2; run <= 10; run += 1) {
      // The alarm itself never throws: a throwing one would be dropped after 6 retries.
      expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
      await holdAlarm(id);
      process = (await timersOf(id)).find((t) => t.kind === "process")!;
      expect(process.failures).toBe(run);
      const stuck = await admin("GET", "/admin/orders/stuck");
      expect(stuck.status).toBe(200);
      const row = stuck.body.data.orders.find((o: { orderId: string }) => o.orderId === id);
      if (run < 3) expect(row).toBeUndefined();
      else
        expect(row).toMatchObject({
          orderId: id,
          clientId: "timers-outage",
          timer: "process",
          failures: run,
          lastError: expect.stringMatching(/supplier-sandbox/),
        });
    }
    expect(process.dueAt - Date.now()).toBeGreaterThan(TIMER_RETRY_CAP_MS - 5_000);
    expect((await getOrder(id, key)).body.data.state).toBe("confirmed");
    // The supplier is back: the next run fulfils the order and the operator's report is cleared.
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    const done = await getOrder(id, key);
    expect(done.body.data.state).toBe("successful");
    expect(Object.keys(done.body.data.redeem)).toEqual(["DEMO-US-RANGE"]);
    // The end state's row is the last thing the order writes.
    expect(await runIndexTimer(id)).toBe(true);
    expect(await timersOf(id)).toEqual([]);
    const stuck = await admin("GET", "/admin/orders/stuck");
    expect(stuck.body.data.orders.find((o: { orderId: string }) => o.orderId === id)).toBeUndefined();
    expect(await wallet("timers-outage", "USD").audit()).toMatchObject({ balance: "95", ledgerSum: "95" });
  });

  it("an expiry whose wallet void keeps failing is retried until it succeeds: the order ends rejected, its codes released", async () => {
    const key = await addClient("timers-expiry", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-EU-FIXED", 10, 1)], reference: "expiry-1" }, key);
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    armFault(ORDER_SEAMS.walletVoid, { when: "before", times: 8 });
    await backdateExpiry(id);
    await runInDurableObject(orderStub(id), (_instance, state) =>
      new OrderStore(state.storage).schedule("expire", Date.now() - 1),
    );
    for (let run = 1; run <= 8; run += 1) {
      expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
      expect((await timersOf(id)).find((t) => t.kind === "expire")?.failures).toBe(run);
    }
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await getOrder(id, key)).body.data.state).toBe("rejected");
    // The rejection's row is the last thing the order writes.
    expect(await runIndexTimer(id)).toBe(true);
    expect(await timersOf(id)).toEqual([]);
    const held = await admin("GET", "/admin/orders/stuck");
    expect(held.body.data.orders.map((o: { orderId: string }) => o.orderId)).not.toContain(id);
  });

  it("the stuck list pages by order id and refuses a bad limit with 400", async () => {
    expect((await admin("GET", "/admin/orders/stuck?limit=0")).status).toBe(400);
    expect((await admin("GET", "/admin/orders/stuck", undefined, { token: null })).status).toBe(403);
    const page = await admin("GET", "/admin/orders/stuck?limit=1");
    expect(page.status).toBe(200);
    expect(page.body.data).toEqual({ orders: expect.any(Array), next: null });
  });
});

describe("an alarm that fires before the order's expiresAt", () => {
  it("rejects nothing: the order stays created, its expiry stays due at expiresAt, and a confirm succeeds", async () => {
    const key = await addClient("timers-early", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "early-1" }, key);
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    const { expiresAt } = await storedOrder(id);
    // The stored alarm fires now, ten minutes early.
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("created");
    expect((await timersOf(id)).map((t) => [t.kind, t.dueAt, t.failures])).toEqual([["expire", expiresAt, 0]]);
    expect(await storedAlarm(id)).toBe(expiresAt);
    expect(await wallet("timers-early", "USD").entries()).toHaveLength(1);
    expect((await confirmOrder(id, key)).status).toBe(200);
  });

  it("a confirm refused for funds whose alarm write then failed leaves the alarm at its settle time: firing then rejects nothing", async () => {
    const key = await addClient("timers-early-settle", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "early-2" }, key);
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    const { expiresAt } = await storedOrder(id);
    const purse = wallet("timers-early-settle", "USD");
    await purse.post({ key: "drain", kind: "adjustment", amount: "-95" });
    // The confirm moves the alarm to its settle time (first alarm write); the wallet answers
    // insufficient_funds; the write that clears settle stores the order but the alarm write fails.
    armFault(ORDER_SEAMS.setAlarm, { when: "before", skip: 1 });
    expect((await confirmOrder(id, key)).status).toBe(500);
    const alarm = (await storedAlarm(id))!;
    expect(alarm).toBeLessThanOrEqual(Date.now() + 5_000);
    expect((await timersOf(id)).map((t) => t.kind)).toEqual(["expire"]);
    // The alarm fires at the settle time: only expiry is left, ten minutes before expiresAt.
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("created");
    expect(await storedAlarm(id)).toBe(expiresAt);
    expect((await purse.entries()).map((e) => e.kind)).toEqual(["top_up", "adjustment"]);
    await purse.post({ key: "refill", kind: "adjustment", amount: "95" });
    expect((await confirmOrder(id, key)).status).toBe(200);
  });

  it("at expiresAt the deferred expiry does reject it", async () => {
    const key = await addClient("timers-early-then-due", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "early-3" }, key);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("created");
    await backdateExpiry(id);
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("rejected");
    expect(await runIndexTimer(id)).toBe(true);
    expect(await timersOf(id)).toEqual([]);
  });
});

async function stuckRow(orderId: string): Promise<{ timer: string; failures: number } | undefined> {
  const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
  expect(stuck.status).toBe(200);
  return stuck.body.data.orders.find((o: { orderId: string }) => o.orderId === orderId);
}

describe("the stuck list shows an order's worst failing timer, and nothing once none is failing", () => {
  it("a settle that failed 3 times is listed, and unlisted once the client's retried confirm settled the order", async () => {
    const key = await addClient("timers-stuck-settle", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "stuck-settle" }, key);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    armFault(ORDER_SEAMS.walletCharge, { when: "after" });
    expect((await confirmOrder(id, key)).status).toBe(500);
    armFault(ORDER_SEAMS.chargeLookup, { when: "before", times: 3 });
    for (let run = 1; run <= 3; run += 1) expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect(await stuckRow(id)).toMatchObject({ timer: "settle", failures: 3 });
    // The client retries: the charge is found under its key, the confirmation completes, settle is gone.
    expect((await confirmOrder(id, key)).status).toBe(200);
    await drainTimers(id);
    expect((await getOrder(id, key)).body.data.state).toBe("successful");
    expect(await stuckRow(id)).toBeUndefined();
  });

  it("one timer recovering (the outbox) leaves the row of another that is still failing (processing)", async () => {
    const key = await addClient("timers-stuck-two", { USD: "100" });
    const created = await createOrder(
      {
        productList: [line("DEMO-US-RANGE", 10, 1)],
        reference: "stuck-two",
        webhookUrl: "http://127.0.0.1:9/hooks/stuck",
      },
      key,
    );
    const id = created.body.data.id as string;
    // The queue and the supplier are both down: the outbox and processing timers fail together.
    armFault(ORDER_SEAMS.queueSend, { when: "before", times: 1_000 });
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 1_000 });
    expect((await confirmOrder(id, key)).status).toBe(200);
    await until(
      () => timersOf(id),
      (timers) => timers.some((t) => t.kind === "process" && t.failures === 1),
      "the first processing failure",
    );
    for (let run = 0; run < 10; run += 1) {
      const timers = await timersOf(id);
      if (timers.every((t) => t.failures >= 3)) break;
      await runDurableObjectAlarm(orderStub(id));
    }
    expect((await timersOf(id)).map((t) => [t.kind, t.failures >= 3])).toEqual(
      expect.arrayContaining([
        ["outbox", true],
        ["process", true],
      ]),
    );
    expect(await stuckRow(id)).toBeDefined();
    // The queue is back, the supplier is not. The outbox is due now, processing in a minute.
    clearFaults();
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 1_000 });
    await runInDurableObject(orderStub(id), (_instance, state) => {
      const store = new OrderStore(state.storage);
      store.save(store.load()!, { outbox: Date.now() - 1, process: Date.now() + 60_000 }, null);
    });
    await evictDurableObject(orderStub(id));
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    const timers = await timersOf(id);
    expect(timers.map((t) => t.kind)).toEqual(["process"]);
    expect(await stuckRow(id)).toMatchObject({ timer: "process", failures: timers[0]!.failures });
    // The supplier is back: nothing is failing any more, and the row goes.
    clearFaults();
    await drainTimers(id);
    expect((await getOrder(id, key)).body.data.state).toBe("successful");
    expect(await stuckRow(id)).toBeUndefined();
  });

  it("a healthy run writes nothing to the stuck list", async () => {
    const key = await addClient("timers-stuck-healthy", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "stuck-healthy" }, key);
    const id = created.body.data.id as string;
    // The report itself would fail: a run that tried to write it would leave the report timer behind.
    armFault(ORDER_SEAMS.timerReport, { when: "before", times: 1_000 });
    expect((await confirmOrder(id, key)).status).toBe(200);
    await drainTimers(id);
    expect((await getOrder(id, key)).body.data.state).toBe("successful");
    expect(firedFaults()).toEqual([]);
  });

  it("a report that could not be written is dropped once nothing is failing: the order comes to rest with no timer and no alarm", async () => {
    const key = await addClient("timers-stuck-dropped", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "stuck-dropped" }, key);
    const id = created.body.data.id as string;
    // The order index's timer, set with the create, runs first, so that the alarm runs below are the others'.
    await runIndexTimer(id);
    armFault(ORDER_SEAMS.walletCharge, { when: "after" });
    expect((await confirmOrder(id, key)).status).toBe(500);
    // Settling fails 3 times and so does writing it to the stuck list (D1 is down for that write).
    armFault(ORDER_SEAMS.chargeLookup, { when: "before", times: 3 });
    armFault(ORDER_SEAMS.timerReport, { when: "before", times: 1_000 });
    for (let run = 1; run <= 3; run += 1) expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await timersOf(id)).map((t) => t.kind)).toContain("report");
    expect(await stuckRow(id)).toBeUndefined();
    // The client's retried confirm settles the order before the report could be written: the list never
    // held a row, so there is nothing left to report, and the report's own retry must go with it.
    expect((await confirmOrder(id, key)).status).toBe(200);
    await drainTimers(id);
    expect((await getOrder(id, key)).body.data.state).toBe("successful");
    expect(await storedAlarm(id)).toBeNull();
    expect(await stuckRow(id)).toBeUndefined();
  });
});

describe("re-arming the alarm at the end of a run", () => {
  it("fails: the alarm throws, so that the platform runs it again, and that retry runs the stored timer", async () => {
    const key = await addClient("timers-rearm", { USD: "100" });
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference: "rearm-1" }, key);
    const id = created.body.data.id as string;
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 2 });
    expect((await confirmOrder(id, key)).status).toBe(200);
    await until(
      () => timersOf(id),
      (timers) => timers.some((t) => t.kind === "process" && t.failures === 1),
      "the first processing failure",
    );
    // The order index's timer (the confirm's change) is due before processing's retry.
    await runIndexTimer(id);
    // The second processing failure is stored; the alarm write after it fails.
    armFault(ORDER_SEAMS.setAlarm, { when: "before" });
    await expect(runDurableObjectAlarm(orderStub(id))).rejects.toThrow(/order.set-alarm/);
    const process = (await timersOf(id)).find((t) => t.kind === "process")!;
    expect(process.failures).toBe(2);
    // The alarm that fired is gone and none was armed: only the platform's retry of the throwing alarm
    // brings the handler back. Its retry (run here by hand) runs the stored timer again, which now succeeds.
    expect(await storedAlarm(id)).toBeNull();
    await runInDurableObject(orderStub(id), (instance: OrderObject) => instance.alarm());
    expect((await getOrder(id, key)).body.data.state).toBe("successful");
  });
});
