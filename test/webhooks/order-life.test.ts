/**
 * One event per committed transition across a whole order life (docs/webhooks.md, Events).
 *
 * Orders are created through the Worker's own fetch handler with a webhookUrl on 127.0.0.1 and driven
 * through their life (confirm, processing by the alarm, expiry by the alarm). Deliveries are observed
 * end to end: the order object's outbox → the real Miniflare queue `order-webhooks` → the Worker's queue
 * handler → a POST that a stubbed fetch receives (order-life-receiver.ts) and checks with its own HMAC.
 * The queue batches for up to 1 s (max_batch_timeout), so each test waits for its events and then a
 * quiet period longer than one batch, to see that nothing more arrives.
 *
 * The one thing the real queue is too slow for is a redelivery (its first retry is 10 s away), so the
 * redelivery test hands the stored outbox rows to the queue handler itself with createMessageBatch, as
 * the Queue would on a retry.
 *
 * The last tests break the path from outbox to queue on purpose, through the order object's fault seams
 * (src/orders/seams.ts, armed with src/kernel/faults.ts): a queue that refuses sends, an object that dies
 * at its send after the confirmation is stored, and a confirm cut off before its confirmation is stored.
 * Each fault is cleared before the test goes on, so the next instance has the real queue again.
 */
import { env } from "cloudflare:workers";
import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { armFault, clearFaults } from "../../src/kernel/faults";
import type { OrderRecord } from "../../src/orders/order-record";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import type { WebhookMessage } from "../../src/webhooks/events";
import {
  addClient,
  balanceOf,
  confirmOrder,
  createOrder,
  DEMO_KEY,
  getOrder,
  line,
  orderStub,
  seedDemo,
  topUp,
} from "../helpers";
import { backdateExpiry, runIndexTimer, timersOf } from "../order-helpers";
import { LifeReceiver, type LifeDelivery } from "./order-life-receiver";

/** Longer than the queue's max_batch_timeout (1 s): after it, a message sent earlier has been handed out. */
const QUIET_MS = 1_600;
/** The demo client's secret as schema/seed/demo.sql sets it (and `npm start` prints it). */
const DEMO_WEBHOOK_SECRET = "whsec_i1PA/S2sBB1e9oLQoP6Bta4Z8ai0fdVNnZroQ+TCNB0=";
const END_STATES = new Set(["successful", "partial", "failed", "rejected"]);

let receiver: LifeReceiver;
/** What the queue consumer logs (one JSON line per message), kept out of the test output. */
const logs: string[] = [];

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
  for (const level of ["log", "warn", "error"] as const) {
    vi.spyOn(console, level).mockImplementation(
      (...args: unknown[]) => void logs.push(`${level} ${args.map(String).join(" ")}`),
    );
  }
  receiver = new LifeReceiver();
});

afterAll(() => {
  receiver.restore();
  vi.restoreAllMocks();
});

type OutboxRow = {
  seq: number;
  event_id: string;
  message: string;
  sent: number;
};

/**
 * The order object's outbox as stored (read by a store of its own, not the instance's memory), in the
 * order its events were written; an order that never announced anything has none.
 */
async function outboxOf(orderId: string): Promise<OutboxRow[]> {
  return runInDurableObject(orderStub(orderId), (_instance, state) =>
    new OrderStore(state.storage)
      .outbox()
      .map((entry) => ({ seq: entry.seq, event_id: entry.eventId, message: entry.message, sent: entry.sent ? 1 : 0 })),
  );
}

async function stateOf(orderId: string): Promise<string> {
  return ((await orderStub(orderId).record()) as unknown as OrderRecord).state;
}

/** Lets processing finish at once: runs the order's alarm until the order reaches an end state. */
async function drain(orderId: string, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const state = await stateOf(orderId);
    if (END_STATES.has(state)) return state;
    await runDurableObjectAlarm(orderStub(orderId));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`order ${orderId} did not finish processing in ${timeoutMs} ms`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the receiver has `count` deliveries for the order, then a quiet period, and returns all of
 * them (so that a duplicate or an extra event arriving in a later batch is seen too).
 */
async function deliveriesFor(orderId: string, count: number): Promise<LifeDelivery[]> {
  await vi.waitFor(
    () => expect(receiver.forOrder(orderId).length, `deliveries for ${orderId}`).toBeGreaterThanOrEqual(count),
    {
      timeout: 8_000,
      interval: 25,
    },
  );
  await sleep(QUIET_MS);
  return receiver.forOrder(orderId);
}

interface Placed {
  id: string;
  reference: string;
  webhookUrl: string | undefined;
}

async function place(
  key: string,
  productList: unknown[],
  webhookUrl: string | undefined,
  referencePrefix = "life",
): Promise<Placed> {
  const reference = `${referencePrefix}-${crypto.randomUUID()}`;
  const created = await createOrder(
    { productList, reference, ...(webhookUrl === undefined ? {} : { webhookUrl }) },
    key,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { id: created.body.data.id, reference, webhookUrl };
}

async function confirmed(key: string, orderId: string): Promise<void> {
  const res = await confirmOrder(orderId, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toEqual({ id: orderId, state: "confirmed" });
}

/**
 * The whole check of an order's events: exactly one delivery per expected transition, in the order the
 * transitions were stored; each a signed POST of `{id, type, createdAt, data: {orderId, state, reference}}`
 * with its own event id; and the outbox holding exactly those events, marked sent, byte for byte what the
 * receiver got.
 */
async function expectEvents(order: Placed, clientId: string, states: string[], since: number): Promise<LifeDelivery[]> {
  const deliveries = await deliveriesFor(order.id, states.length);
  const context = JSON.stringify(deliveries.map((delivery) => delivery.body));
  expect(deliveries, context).toHaveLength(states.length);

  for (const delivery of deliveries) {
    expect(delivery.url).toBe(order.webhookUrl);
    expect(delivery.method).toBe("POST");
    expect(delivery.headers.get("content-type")).toBe("application/json");
    expect(delivery.headers.get("user-agent")).toBe("order-service-webhooks/1");
    expect(delivery.signature, "webhook-signature header").not.toBeNull();
    expect(delivery.headers.get("webhook-id")).toBe(delivery.event!.id);
    expect(delivery.headers.has("x-signature")).toBe(false);
    expect(delivery.signatureValid, `signature of ${delivery.body} with the secret of ${clientId}`).toBe(true);
    expect(delivery.status).toBe(204);
    const event = delivery.event!;
    expect(Object.keys(event).sort()).toEqual(["createdAt", "data", "id", "livemode", "type"]);
    // The suites run in sandbox mode.
    expect((event as { livemode?: unknown }).livemode).toBe(false);
    expect(Object.keys(event.data!).sort()).toEqual(["orderId", "reference", "state"]);
    expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(event.createdAt).toEqual(expect.any(Number));
    expect(Number.isInteger(event.createdAt)).toBe(true);
    expect(event.createdAt as number).toBeGreaterThanOrEqual(since);
    expect(event.createdAt as number).toBeLessThanOrEqual(Date.now());
  }

  // Delivery order is not promised (README, Webhooks); the stored order of the transitions is createdAt's.
  const events = deliveries
    .map((delivery) => delivery.event!)
    .sort((a, b) => (a.createdAt as number) - (b.createdAt as number));
  expect(events.map((event) => event.type)).toEqual(states.map((state) => `order.${state}`));
  expect(events.map((event) => event.data)).toEqual(
    states.map((state) => ({ orderId: order.id, state, reference: order.reference })),
  );
  expect(new Set(events.map((event) => event.id)).size, "distinct event ids").toBe(states.length);

  // The outbox: one row per event, written in transition order, each sent, each exactly what was delivered.
  const rows = await outboxOf(order.id);
  expect(rows.map((row) => (JSON.parse(row.message) as WebhookMessage).event.type)).toEqual(
    states.map((state) => `order.${state}`),
  );
  for (const row of rows) {
    const message = JSON.parse(row.message) as WebhookMessage;
    expect(message.clientId).toBe(clientId);
    expect(message.url).toBe(order.webhookUrl);
    expect(row.event_id).toBe(message.event.id);
    expect(row.sent, `outbox row ${row.event_id} marked sent`).toBe(1);
    const delivered = deliveries.filter((delivery) => delivery.event!.id === message.event.id);
    expect(delivered, `deliveries of ${message.event.id}`).toHaveLength(1);
    expect(delivered[0]!.body).toBe(JSON.stringify(message.event));
  }
  return deliveries;
}

describe("one event per committed transition across a whole order life", () => {
  it("created → confirmed → successful: order.confirmed then order.successful, signed with the client's secret", async () => {
    const since = Date.now();
    const order = await place(
      DEMO_KEY,
      [line("DEMO-US-RANGE", 25, 2)],
      await receiver.urlFor("demo", DEMO_WEBHOOK_SECRET),
    );
    // `created` is not announced: nothing in the outbox yet.
    expect(await outboxOf(order.id)).toEqual([]);

    await confirmed(DEMO_KEY, order.id);
    // A repeated confirm is refused and stores nothing, so it announces nothing either.
    expect((await confirmOrder(order.id, DEMO_KEY)).status).toBe(409);
    expect(await drain(order.id)).toBe("successful");

    await expectEvents(order, "demo", ["confirmed", "successful"], since);
    expect((await getOrder(order.id, DEMO_KEY)).body.data.state).toBe("successful");

    // Running the alarm again after the end sends nothing again: the outbox rows are marked sent.
    await runDurableObjectAlarm(orderStub(order.id));
    await sleep(QUIET_MS);
    expect(receiver.forOrder(order.id)).toHaveLength(2);
  });

  for (const { end, products } of [
    { end: "partial", products: [line("DEMO-US-RANGE", 10, 1), line("DEMO-US-FAILING", 5, 1)] },
    { end: "failed", products: [line("DEMO-US-FAILING", 5, 2)] },
  ]) {
    it(`created → confirmed → ${end}: order.confirmed then order.${end}`, async () => {
      const clientId = `life-${end}`;
      const key = await addClient(clientId, { USD: "500" });
      const since = Date.now();
      const order = await place(key, products, await receiver.urlFor(clientId));
      await confirmed(key, order.id);
      expect(await drain(order.id)).toBe(end);
      await expectEvents(order, clientId, ["confirmed", end], since);
    });
  }

  it("created → rejected by the expiry alarm: order.rejected alone, and a late confirm adds nothing", async () => {
    const clientId = "life-rejected";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const order = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));
    expect(await outboxOf(order.id)).toEqual([]);

    // expiresAt passes; once the order index's timer has run, the expire timer is the order's only one,
    // so the alarm runs it now.
    await runIndexTimer(order.id);
    await backdateExpiry(order.id);
    expect(await runDurableObjectAlarm(orderStub(order.id))).toBe(true);
    expect(await stateOf(order.id)).toBe("rejected");
    expect((await confirmOrder(order.id, key)).status).toBe(419);

    await expectEvents(order, clientId, ["rejected"], since);
  });

  it("announces nothing for an order without webhookUrl, whatever its life", async () => {
    const clientId = "life-silent";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const silentDone = await place(key, [line("DEMO-US-RANGE", 10, 1)], undefined);
    const silentFailed = await place(key, [line("DEMO-US-FAILING", 5, 1)], undefined);
    const silentExpired = await place(key, [line("DEMO-US-RANGE", 10, 1)], undefined);
    // Same client, same time, with a webhookUrl: shows the pipe from outbox to receiver is working meanwhile.
    const control = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));

    for (const order of [silentDone, silentFailed, control]) await confirmed(key, order.id);
    await runIndexTimer(silentExpired.id);
    await backdateExpiry(silentExpired.id);
    expect(await runDurableObjectAlarm(orderStub(silentExpired.id))).toBe(true);
    expect(await drain(silentDone.id)).toBe("successful");
    expect(await drain(silentFailed.id)).toBe("failed");
    expect(await stateOf(silentExpired.id)).toBe("rejected");
    expect(await drain(control.id)).toBe("successful");

    await expectEvents(control, clientId, ["confirmed", "successful"], since);
    for (const order of [silentDone, silentFailed, silentExpired]) {
      expect(await outboxOf(order.id), `outbox of ${order.id}`).toEqual([]);
      expect(receiver.forOrder(order.id), `deliveries for ${order.id}`).toEqual([]);
    }
  });

  it("announces nothing for a confirm refused for insufficient funds; the confirm after a top-up announces once", async () => {
    const clientId = "life-poor";
    const key = await addClient(clientId, { USD: "20" });
    const url = await receiver.urlFor(clientId);
    const since = Date.now();
    // Both fit the balance at create (nothing is held then); only one fits it at confirm.
    const first = await place(key, [line("DEMO-US-RANGE", 15, 1)], url);
    const second = await place(key, [line("DEMO-US-RANGE", 15, 1)], url);
    await confirmed(key, first.id);

    const refused = await confirmOrder(second.id, key);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.code).toBe("insufficient_funds");
    expect(await stateOf(second.id)).toBe("created");
    expect(await outboxOf(second.id)).toEqual([]);

    expect(await drain(first.id)).toBe("successful");
    await expectEvents(first, clientId, ["confirmed", "successful"], since);
    expect(receiver.forOrder(second.id), "no event for the refused confirm").toEqual([]);

    // Top up and retry before expiry: now the change is stored, and announced, once.
    await topUp(clientId, "USD", "10");
    await confirmed(key, second.id);
    expect(await drain(second.id)).toBe("successful");
    await expectEvents(second, clientId, ["confirmed", "successful"], since);
  });

  it("keeps each event in the outbox as delivered; a redelivery of the same message carries the same event id", async () => {
    const clientId = "life-redeliver";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const order = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));
    await confirmed(key, order.id);
    expect(await drain(order.id)).toBe("successful");
    const firstDeliveries = await expectEvents(order, clientId, ["confirmed", "successful"], since);

    // The Queue's part of a retry, played here: the same message (an outbox row as it was sent) again,
    // attempt 1 answered 503 and retried, attempt 2 accepted.
    const rows = await outboxOf(order.id);
    for (const row of rows) {
      const message = JSON.parse(row.message) as WebhookMessage;
      receiver.failNext(message.event.id, 1);
      const messageId = `msg-${row.event_id}`;
      for (const attempts of [1, 2]) {
        const batch = createMessageBatch<WebhookMessage>("order-webhooks", [
          { id: messageId, timestamp: new Date(), attempts, body: structuredClone(message) },
        ]);
        const ctx = createExecutionContext();
        await worker.queue(batch as MessageBatch, env, ctx);
        const result = await getQueueResult(batch, ctx);
        if (attempts === 1) {
          expect(result.retryMessages.map((retry) => retry.msgId)).toEqual([messageId]);
          expect(result.explicitAcks).toEqual([]);
        } else {
          expect(result.explicitAcks).toEqual([messageId]);
          expect(result.retryMessages).toEqual([]);
        }
      }
      const all = receiver.deliveries.filter((delivery) => delivery.event?.id === message.event.id);
      // The real queue's delivery, then the 503 and the accepted redelivery.
      expect(all.map((delivery) => delivery.status)).toEqual([204, 503, 204]);
      for (const delivery of all) {
        expect(delivery.body).toBe(JSON.stringify(message.event));
        expect(delivery.signatureValid).toBe(true);
      }
    }
    // Still two events for the receiver to act on, whatever the number of deliveries.
    expect(new Set(receiver.forOrder(order.id).map((delivery) => delivery.event!.id))).toEqual(
      new Set(firstDeliveries.map((delivery) => delivery.event!.id)),
    );
    // Redelivery is the Queue's business: the outbox is untouched by it.
    expect(await outboxOf(order.id)).toEqual(rows);
  });

  it("keeps events the queue refused in the outbox and sends them later, once each, with their ids", async () => {
    const clientId = "life-outbox-retry";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const order = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));

    // The queue is down: every send of an order's outbox fails (this test's order is the only one sending).
    armFault(ORDER_SEAMS.queueSend, { when: "before", times: Number.MAX_SAFE_INTEGER });
    // Everything that reads the outbox happens while the queue still refuses: the outbox timer is due a
    // few seconds ahead and the platform runs it on its own, so it may fire at any point of this block.
    let kept: OutboxRow[];
    try {
      await confirmed(key, order.id);
      expect(await drain(order.id)).toBe("successful");
      kept = await outboxOf(order.id);
      expect(kept.map((row) => [(JSON.parse(row.message) as WebhookMessage).event.type, row.sent])).toEqual([
        ["order.confirmed", 0],
        ["order.successful", 0],
      ]);
      await sleep(QUIET_MS);
      expect(receiver.forOrder(order.id), "nothing delivered while the queue refused").toEqual([]);
      expect(
        (await outboxOf(order.id)).map((row) => row.sent),
        "still unsent after the quiet period",
      ).toEqual([0, 0]);
    } finally {
      clearFaults();
    }

    // The outbox timer is the order's only one left; the next alarm run (ours, or the platform's if it
    // came first) hands the events to the queue.
    await runDurableObjectAlarm(orderStub(order.id));
    const deliveries = await expectEvents(order, clientId, ["confirmed", "successful"], since);
    expect(deliveries.map((delivery) => delivery.event!.id).sort()).toEqual(kept.map((row) => row.event_id).sort());
    expect((await outboxOf(order.id)).map(({ event_id, message }) => ({ event_id, message }))).toEqual(
      kept.map(({ event_id, message }) => ({ event_id, message })),
    );
    expect(await timersOf(order.id), "no timer left").toEqual([]);
  });

  afterEach(() => clearFaults());

  it("a confirmation lost in a crash (not stored) announces nothing; the retried confirm announces once", async () => {
    const clientId = "life-crash-lost";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const order = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));

    // The charge lands, and the object dies before it stores the confirmation (the wallet's answer is lost).
    armFault(ORDER_SEAMS.walletCharge, { when: "after", reset: true });
    const crashed = await confirmOrder(order.id, key).catch((error: unknown) => ({ status: 0, body: String(error) }));
    expect(crashed.status, JSON.stringify(crashed.body)).not.toBe(200);
    clearFaults();
    // No confirmation was stored: no event either, the two are written together.
    expect(await stateOf(order.id)).toBe("created");
    expect(await outboxOf(order.id)).toEqual([]);
    await sleep(QUIET_MS);
    expect(receiver.forOrder(order.id)).toEqual([]);

    // The client retries (a new instance, with the real queue): the charge is found, not taken twice.
    await confirmed(key, order.id);
    expect(await drain(order.id)).toBe("successful");
    await expectEvents(order, clientId, ["confirmed", "successful"], since);
    expect(await balanceOf(clientId, "USD")).toBe("490");
  });

  it("a confirmation stored just before a crash is still announced, once, from the outbox", async () => {
    const clientId = "life-crash-stored";
    const key = await addClient(clientId, { USD: "500" });
    const since = Date.now();
    const order = await place(key, [line("DEMO-US-RANGE", 10, 1)], await receiver.urlFor(clientId));

    // The confirmation is stored with its event, and the object dies at its send: no send of this
    // instance reaches the queue, and the instance is gone before the fault is cleared.
    armFault(ORDER_SEAMS.queueSend, { when: "before", reset: true, times: Number.MAX_SAFE_INTEGER });
    await confirmed(key, order.id);
    await evictDurableObject(orderStub(order.id));
    clearFaults();
    expect(await stateOf(order.id)).not.toBe("created");
    expect((await confirmOrder(order.id, key)).status).toBe(409);
    // Stored with the confirmation; the instance that died never sent it.
    // Whether the alarm has sent it yet is a race (the new instance's alarm is due at once), so no `sent` here.
    const kept = await outboxOf(order.id);
    expect((JSON.parse(kept[0]!.message) as WebhookMessage).event.type).toBe("order.confirmed");

    // The alarm (armed in the same transaction) runs the outbox timer and processing on a new instance.
    expect(await drain(order.id)).toBe("successful");
    const deliveries = await expectEvents(order, clientId, ["confirmed", "successful"], since);
    expect(deliveries.map((delivery) => delivery.event!.id)).toContain(kept[0]!.event_id);
    expect(await balanceOf(clientId, "USD")).toBe("490");
  });
});
