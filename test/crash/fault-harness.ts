/**
 * The fault matrix's harness (test/crash/fault-matrix.test.ts): the clients it makes, the calls they send
 * and retry as a client would, the order object's alarm as the platform runs it, and the two outside
 * parties on loopback (an upstream supplier, a webhook receiver that verifies every delivery).
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { bookedRow } from "../../src/books/books-reader";
import type { Fault } from "../../src/kernel/faults";
import type { OrderObject } from "../../src/orders/order-object";
import type { OrderRecord } from "../../src/orders/order-record";
import { OrderStore } from "../../src/orders/order-store";
import { addClient, call, orderStub, seedDemo, wallet } from "../helpers";
import { testSecret, verifies } from "../webhooks/receiver";

/** Each client's deliveries go to its own path here, checked against its own secret. */
export const HOOKS = "http://127.0.0.1:9/hooks/";
export const webhookUrlOf = (clientId: string): string => `${HOOKS}${clientId}`;
/** How many times the platform retries an alarm that threw before it drops it. */
export const PLATFORM_ALARM_RETRIES = 6;
export const AT_REST = new Set(["successful", "partial", "failed", "rejected"]);
export const CONFIRMED_STATES = new Set(["confirmed", "processing", "successful", "partial", "failed"]);

/** The webhook receiver's view: each client's secret, what was delivered, and what did not verify. */
export const hooks = {
  secrets: new Map<string, string>(),
  delivered: new Set<string>(),
  deliveries: 0,
  bad: [] as string[],
};
/** Every event id an order object handed to the queue (its outbox entry marked sent). */
export const handedToQueue = new Set<string>();

/**
 * Each client calls from an address of its own (CF-Connecting-IP): a new API key is looked up under the
 * per-address limit on unknown keys (100 per 10 s), which this many clients from one address would pass.
 */
export const addressOfKey = new Map<string, string>();

export function createOrder(body: Record<string, unknown>, key: string) {
  return call("POST", "/order/create", {
    body: { wallet: "USD", ...body },
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

export function confirmOrder(orderId: string, key: string) {
  return call("PUT", "/order/confirm", {
    body: { orderId },
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

let caseNumber = 0;
export async function freshClient(funds = "1000"): Promise<{ clientId: string; key: string }> {
  caseNumber += 1;
  const clientId = `crash-${caseNumber}`;
  const key = await addClient(clientId, { USD: funds });
  addressOfKey.set(key, `10.${(caseNumber >> 16) & 255}.${(caseNumber >> 8) & 255}.${caseNumber & 255}`);
  // A Standard Webhooks secret, so that deliveries are signed and the receiver can verify them.
  const secret = testSecret();
  await env.DB.prepare(`UPDATE clients SET webhook_secret = ?2 WHERE id = ?1`).bind(clientId, secret).run();
  hooks.secrets.set(clientId, secret);
  return { clientId, key };
}

/** The order object's id for (client, reference), the way the Worker names it. */
export async function objectOrderId(clientId: string, reference: string): Promise<string> {
  const { orderObjectName } = await import("../../src/orders/order-id");
  return `ord_${env.ORDERS.idFromName(orderObjectName(clientId, reference)).toString()}`;
}

/** Calls `attempt` as a client would: again after a 500 (up to 4 times), until it answers anything else. */
export async function asClient(
  attempt: () => Promise<{ status: number; body: any }>,
): Promise<{ status: number; body: any; retried: boolean }> {
  let result = await attempt();
  let tries = 1;
  for (; result.status === 500 && tries < 4; tries += 1) result = await attempt();
  return { ...result, retried: tries > 1 };
}

/**
 * Confirms as a client would (retrying a 500) and expects it done: 200, or 409 (already confirmed) for
 * a retry after a 500 whose confirm had gone through.
 */
export async function confirmAsClient(orderId: string, key: string): Promise<void> {
  const confirmed = await asClient(() => confirmOrder(orderId, key));
  if (confirmed.retried && confirmed.status === 409) return;
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
}

/** After the fault: optionally the object dies (evicted), as a real crash would leave it. */
export async function maybeEvict(orderId: string, fault: Fault): Promise<void> {
  if (fault.reset) await evictDurableObject(orderStub(orderId));
}

/** What drains found wrong on the way (a timer with no alarm, an alarm dropped): checked with the case. */
export const drainProblems: string[] = [];

/**
 * The alarm as the platform runs it: an alarm that throws is run again, up to 6 times, and then dropped.
 * (runDurableObjectAlarm deletes the stored alarm and runs the handler once.)
 */
/** The order's index version, as its storage holds it. */
export async function indexVersionOf(orderId: string): Promise<number> {
  return runInDurableObject(orderStub(orderId), (_instance, state) => new OrderStore(state.storage).indexVersion());
}

export async function fireAlarm(orderId: string): Promise<boolean> {
  try {
    return await runDurableObjectAlarm(orderStub(orderId));
  } catch (first) {
    for (let retry = 1; retry <= PLATFORM_ALARM_RETRIES; retry += 1) {
      try {
        await runInDurableObject(orderStub(orderId), (instance: OrderObject) => instance.alarm());
        return true;
      } catch {
        // the platform would try again, with backoff
      }
    }
    drainProblems.push(`${orderId}: alarm dropped after ${PLATFORM_ALARM_RETRIES} retries (${String(first)})`);
    return false;
  }
}

/** Runs the order's timers until it is at rest with no timer left (at most 40 alarm runs). */
export async function drain(orderId: string): Promise<void> {
  for (let run = 0; run < 40; run += 1) {
    const { state, timers } = await inspect(orderId);
    if ((state === null || AT_REST.has(state)) && timers.length === 0) return;
    if (!(await fireAlarm(orderId))) {
      // No alarm is stored: processing started by confirm may still be running (it arms one at its end).
      await new Promise((resolve) => setTimeout(resolve, 20));
      const again = await inspect(orderId);
      const armed = await runInDurableObject(orderStub(orderId), (_instance, state) => state.storage.getAlarm());
      if (again.timers.length > 0 && armed === null) {
        drainProblems.push(`${orderId}: timers ${again.timers} stored with no alarm armed`);
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The order as its storage holds it. Its timers leave out an `index` timer whose write is done (its
 * client's books and the order index both have the stored version, and it has not failed): its removal is
 * held in the object's memory, not stored on its own (src/orders/index-flow.ts), and it waits for nothing.
 */
export async function inspect(orderId: string): Promise<{
  state: string | null;
  timers: string[];
  events: { eventId: string; type: string; sent: boolean }[];
  order: OrderRecord | null;
}> {
  const { indexVersion, indexFailures, ...seen } = await runInDurableObject(orderStub(orderId), (_instance, state) => {
    const store = new OrderStore(state.storage);
    const order = store.load();
    const index = store.timers().find((timer) => timer.kind === "index");
    const timers = store.timers().map((t) => t.kind);
    return { state: order?.state ?? null, order, timers, events: store.events(), ...indexOf(store, index) };
  });
  if (seen.order === null || !seen.timers.includes("index") || indexFailures > 0) return seen;
  const books = await bookedRow(env, seen.order);
  const done = books?.version === indexVersion;
  return done ? { ...seen, timers: seen.timers.filter((kind) => kind !== "index") } : seen;
}

function indexOf(store: OrderStore, timer: { failures: number } | undefined) {
  return { indexVersion: store.indexVersion(), indexFailures: timer?.failures ?? 0 };
}

export async function codesHeldBy(orderId: string): Promise<{ sku: string; status: string; pin: string }[]> {
  const { results } = await env.DB.prepare(`SELECT sku, status, pin FROM codes WHERE order_id = ?1 ORDER BY id`)
    .bind(orderId)
    .all<{ sku: string; status: string; pin: string }>();
  return results;
}

/** Every object the wallet has been (the registry's earlier ones, its current one, one a move is taking it to). */
export async function walletObjects(clientId: string, currency: string) {
  const row = await env.DB.prepare(
    `SELECT region, generation, previous, moving_to FROM wallets WHERE client_id = ?1 AND currency = ?2`,
  )
    .bind(clientId, currency)
    .first<{ region: string | null; generation: number; previous: string; moving_to: string | null }>();
  if (row === null) return [];
  const placements: { generation: number; region: string | null }[] = [
    ...JSON.parse(row.previous),
    { generation: row.generation, region: row.region },
  ];
  if (row.moving_to !== null) placements.push({ generation: row.generation + 1, region: row.moving_to });
  return placements.map(({ generation, region }) => ({
    generation,
    region,
    stub: wallet(clientId, currency, generation, region),
  }));
}

/** The upstream product whose supplier answers 409 "in progress" to the first IN_PROGRESS_ASKS asks of a key. */
export const UNKNOWN_PRODUCT_CODE = "UP-CRASH-SLOW";
export const IN_PROGRESS_ASKS = 3;
export const upstreamAsks = new Map<string, number>();

/**
 * The demo seed, two upstream SKUs, stock for every case that sells or holds inventory codes, and the two
 * outside parties on loopback: an upstream supplier that issues codes idempotently per key, and a webhook
 * receiver that takes every delivery.
 */
export async function setUpOutsideParties(): Promise<void> {
  await seedDemo();
  await env.DB.prepare(
    `INSERT INTO products (sku, name, product_type, currency, country, region, min_quote, max_quote, supplier, supplier_config, updated_at)
     VALUES ('CRASH-UPSTREAM', 'Upstream card', 'range', 'USD', 'US', 'North America', '1', '200', 'upstream', '{"productCode":"UP-CRASH"}', 0),
            ('CRASH-UPSTREAM-SLOW', 'Upstream card, slow', 'range', 'USD', 'US', 'North America', '1', '200', 'upstream', ?1, 0)`,
  )
    .bind(JSON.stringify({ productCode: UNKNOWN_PRODUCT_CODE }))
    .run();
  // The two outside parties, on loopback: an upstream supplier that issues codes idempotently per key,
  // and a webhook receiver that takes every delivery.
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const url = new URL(request.url);
    if (url.hostname !== "127.0.0.1") throw new TypeError(`refused ${url.origin}`);
    if (url.pathname.startsWith("/hooks/")) {
      // A webhook delivery: verified as the client would, with its secret and the standardwebhooks library.
      const body = await request.text();
      const clientId = url.pathname.slice("/hooks/".length);
      const secret = hooks.secrets.get(clientId);
      hooks.deliveries += 1;
      if (secret === undefined || !verifies(secret, body, request.headers)) {
        hooks.bad.push(`${request.headers.get("webhook-id")} to ${url.pathname}`);
        return new Response("bad signature", { status: 401 });
      }
      hooks.delivered.add(String((JSON.parse(body) as { id: unknown }).id));
      return new Response("ok");
    }
    const idempotencyKey = request.headers.get("idempotency-key") ?? "none";
    const { quantity, productCode } = (await request.json()) as { quantity: number; productCode: string };
    if (productCode === UNKNOWN_PRODUCT_CODE) {
      // Still issuing for the first few asks of a key ("in progress"), then the codes.
      const asked = (upstreamAsks.get(idempotencyKey) ?? 0) + 1;
      upstreamAsks.set(idempotencyKey, asked);
      if (asked <= IN_PROGRESS_ASKS) return Response.json({ error: "in progress" }, { status: 409 });
    }
    return Response.json({
      codes: Array.from({ length: quantity }, (_, index) => ({
        pin: `${idempotencyKey}-${index}`,
        link: `https://codes.example.com/${index}`,
      })),
    });
  });
  // Enough stock for every case that sells or holds inventory codes.
  const values = Array.from(
    { length: 400 },
    (_, index) => `('DEMO-EU-FIXED', '10', 'CRASH-${index}', 'https://codes.example.com/c/${index}', 'available', 0)`,
  );
  await env.DB.prepare(
    `INSERT INTO codes (sku, value, pin, link, status, created_at) VALUES ${values.join(", ")}`,
  ).run();
}
