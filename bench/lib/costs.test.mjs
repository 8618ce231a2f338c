// The metrics pass's waits (bench/lib/costs.mjs), against a target that plays the instrumented build's
// counters (GET /__bench/cost) on a timeline: `node --test bench/`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { measureCosts } from "./costs.mjs";

/**
 * A target whose counters move as the instrumented build's do: `indexAfterMs` after each create, the order
 * object's alarm runs and writes 6 D1 rows (null: no alarm at all, as the floor); `webhookAfterMs` after
 * each confirm, the queue consumer takes the order's two webhook events.
 */
function fakeTarget({ indexAfterMs = null, webhookAfterMs = 20 } = {}) {
  const counters = {
    requests: 0,
    doAlarms: {},
    doAlarmsDone: {},
    d1: { rowsWritten: 0, byOwner: {} },
    sqlite: { rowsWritten: 0, byClass: {} },
    queue: { messagesConsumed: 0 },
  };
  const bump = (record, key, n = 1) => (record[key] = (record[key] ?? 0) + n);
  const timers = new Set();
  const later = (ms, work) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timers.add(timer);
  };
  let orders = 0;
  return {
    counters,
    close: () => timers.forEach((timer) => clearTimeout(timer)),
    async request(method, path, { body } = {}) {
      if (path === "/__bench/cost") return { status: 200, json: structuredClone(counters) };
      counters.requests += 1;
      if (path === "/order/create") {
        orders += 1;
        if (indexAfterMs !== null)
          later(indexAfterMs, () => {
            bump(counters.doAlarms, "OrderObject");
            later(5, () => {
              // The order's row and its wallet's counters, in its client's books shard.
              counters.sqlite.rowsWritten += 2;
              bump((counters.sqlite.byClass.BooksObject ??= {}), "rowsWritten", 2);
              bump(counters.doAlarmsDone, "OrderObject");
            });
          });
        return { status: 200, json: { data: { id: `ord_${orders}` } } };
      }
      if (path === "/order/confirm") {
        if (body?.orderId && webhookAfterMs !== null)
          later(webhookAfterMs, () => (counters.queue.messagesConsumed += 2));
        return { status: 200, json: null };
      }
      return { status: 200, json: { data: { state: "successful" } } };
    },
  };
}

const run = (target, options) =>
  measureCosts(target, { runId: "t", key: "k", skus: ["SKU"], flows: 2, label: "test", ...options });

test("a target with no order index (the floor) is measured without waiting for an alarm", async () => {
  const target = fakeTarget({ indexAfterMs: null });
  const costs = await run(target, { indexedBy: null, waitMs: 1_000 });
  target.close();
  assert.deepEqual(costs.warm.index.counters, {});
  assert.equal(costs.warm.order.summary.workerRequests, 3);
  assert.equal(costs.indexEarly, 0);
});

test("the order's index write is counted in the part `index`, not in the get", async () => {
  const target = fakeTarget({ indexAfterMs: 300 });
  const costs = await run(target, { indexedBy: "OrderObject" });
  target.close();
  assert.equal(costs.warm.index.summary.sqliteRowsWritten, 2);
  assert.equal(costs.warm.index.summary.doAlarms, 1);
  assert.equal(costs.warm.get.summary.sqliteRowsWritten, 0);
  assert.equal(costs.warm.order.summary.sqliteRowsWritten, 2);
  assert.equal(costs.indexEarly, 0);
});

test("an index write that lands before the webhook deliveries end is seen, and counted as early", async () => {
  const target = fakeTarget({ indexAfterMs: 10, webhookAfterMs: 400 });
  const costs = await run(target, { indexedBy: "OrderObject", webhookUrl: "http://127.0.0.1:9/hook" });
  target.close();
  assert.equal(costs.indexEarly, 2);
  assert.equal(costs.warm.afterConfirm.summary.sqliteRowsWritten, 2);
  assert.equal(costs.warm.order.summary.sqliteRowsWritten, 2);
  assert.equal(costs.warm.order.summary.queueMessagesConsumed, 2);
});

test("an index write that never comes fails, naming what did not arrive", async () => {
  const target = fakeTarget({ indexAfterMs: null });
  await assert.rejects(
    run(target, { indexedBy: "OrderObject", waitMs: 300 }),
    /order ord_1's order index write: not there 0\.3 s after confirm: OrderObject alarm runs finished \(doAlarmsDone\.OrderObject\): 0 of 1; rows written to the books \(sqlite\.byClass\.BooksObject\.rowsWritten\): 0 of 1/,
  );
  target.close();
});

test("webhook deliveries that never come fail, naming them", async () => {
  const target = fakeTarget({ indexAfterMs: 10, webhookAfterMs: null });
  await assert.rejects(
    run(target, { indexedBy: "OrderObject", webhookUrl: "http://127.0.0.1:9/hook", waitMs: 300 }),
    /order ord_1's webhook deliveries: not there 0\.3 s after confirm: webhook events consumed \(queue\.messagesConsumed\): 0 of 2/,
  );
  target.close();
});
