/**
 * The fault-injection suite: every operation of an order's life, failed at each of its I/O seams in turn
 * (before the call, after it with the reply lost, and each with the order object's memory reset and the
 * object evicted), then left to what really follows a fault: the client retries what answered 500, the
 * platform retries an alarm that threw, and the order's timers run until it is at rest. A seam an
 * operation passes more than once is failed at each of its calls in turn: the first (skip 0), then the
 * second (skip 1), and so on until the operation no longer reaches that many calls (at most MAX_SKIP + 1).
 * After every run the crash-safety invariants are checked:
 *
 * - a wallet's balance equals the sum of its ledger and never went below zero, in each object a wallet
 *   has been (a wallet moved to another region is a new object): the old one holds nothing, and every
 *   transfer out of it (the move, and each credit it passed on) is in its successor once, for the same
 *   amount: the money is never in both objects, nor in neither, once retries and timers have run;
 * - an order is charged exactly once iff it was confirmed, refunded exactly its failed lines, and a
 *   rejected order is voided, owes nothing and can never be charged later;
 * - a code is held by at most one order, an order holds exactly what its open lines need (and no code of
 *   a SKU it has no line for) and nothing once done, and every sold code is in the redeem of exactly its
 *   order;
 * - no timer is dropped: an order not at rest has the timer that moves it on, an order at rest has none,
 *   and stored timers always have an alarm armed;
 * - once the indexer has run, an order that moved money has its row in the order index, with its state
 *   and amounts;
 * - one webhook event per stored transition, each handed to the queue; every delivery that reaches the
 *   receiver verifies with the client's secret (the `standardwebhooks` library), and every event handed
 *   to the queue is delivered.
 *
 * The seams are data (src/orders/seams.ts, src/inventory/seams.ts, src/wallets/seams.ts,
 * src/sandbox/seams.ts): a seam
 * without a case here fails the coverage test, so a new I/O call cannot arrive without its fault case.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ALL_INVENTORY_SEAMS } from "../../src/inventory/seams";
import { armFault, clearFaults, firedFaults, type Fault, type FaultWhen } from "../../src/kernel/faults";
import { bookedRow } from "../../src/books/books-reader";
import { indexRowOf } from "../../src/order-index/order-index-store";
import type { OrderObject } from "../../src/orders/order-object";
import type { OrderRecord } from "../../src/orders/order-record";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { Money } from "../../src/pricing/money";
import type { LedgerEntry } from "../../src/wallets/ledger";
import { chargeKey, refundKey, sandboxTopUpKey, topUpKey, voidKey } from "../../src/wallets/ledger-keys";
import { ALL_SANDBOX_SEAMS } from "../../src/sandbox/seams";
import { ALL_WALLET_SEAMS, OPERATOR_POSTING_SEAMS, WALLET_MOVE_SEAMS } from "../../src/wallets/seams";
import { admin } from "../admin-helpers";
import { addClient, call, line, orderStub, seedDemo, wallet } from "../helpers";
import { backdateExpiry, holdsOf, rewriteStoredOrder } from "../order-helpers";
import { testSecret, verifies } from "../webhooks/receiver";

/** Each client's deliveries go to its own path here, checked against its own secret. */
const HOOKS = "http://127.0.0.1:9/hooks/";
const webhookUrlOf = (clientId: string): string => `${HOOKS}${clientId}`;
/** Skips tried per (operation, seam, variant) beyond the first call: calls 1 to MAX_SKIP + 1 fail in turn. */
const MAX_SKIP = 7;
/** How many times the platform retries an alarm that threw before it drops it. */
const PLATFORM_ALARM_RETRIES = 6;
const AT_REST = new Set(["successful", "partial", "failed", "rejected"]);
const CONFIRMED_STATES = new Set(["confirmed", "processing", "successful", "partial", "failed"]);

interface Variant {
  when: FaultWhen;
  reset: boolean;
}
const VARIANTS: Variant[] = [
  { when: "before", reset: false },
  { when: "after", reset: false },
  { when: "before", reset: true },
  { when: "after", reset: true },
];

/** What a case leaves behind to check: the client and its wallet, and the orders it made or tried. */
interface Outcome {
  clientId: string;
  currency: string;
  orderIds: string[];
  /** The order ids whose create was refused (no order stored): they must hold nothing. */
  refusedOrderIds?: string[];
  /** The state each order must end in. */
  expect: Record<string, string>;
  /** What the wallet must hold at the end, where a case knows it (a move must neither lose nor add). */
  total?: string;
}

/** The webhook receiver's view: each client's secret, what was delivered, and what did not verify. */
const hooks = { secrets: new Map<string, string>(), delivered: new Set<string>(), deliveries: 0, bad: [] as string[] };
/** Every event id an order object handed to the queue (its outbox entry marked sent). */
const handedToQueue = new Set<string>();

/**
 * Each client calls from an address of its own (CF-Connecting-IP): a new API key is looked up under the
 * per-address limit on unknown keys (100 per 10 s), which this many clients from one address would pass.
 */
const addressOfKey = new Map<string, string>();

function createOrder(body: Record<string, unknown>, key: string) {
  return call("POST", "/order/create", {
    body: { wallet: "USD", ...body },
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

function confirmOrder(orderId: string, key: string) {
  return call("PUT", "/order/confirm", {
    body: { orderId },
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

let caseNumber = 0;
async function freshClient(funds = "1000"): Promise<{ clientId: string; key: string }> {
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
async function objectOrderId(clientId: string, reference: string): Promise<string> {
  const { orderObjectName } = await import("../../src/orders/order-id");
  return `ord_${env.ORDERS.idFromName(orderObjectName(clientId, reference)).toString()}`;
}

/** Calls `attempt` as a client would: again after a 500 (up to 4 times), until it answers anything else. */
async function asClient(
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
async function confirmAsClient(orderId: string, key: string): Promise<void> {
  const confirmed = await asClient(() => confirmOrder(orderId, key));
  if (confirmed.retried && confirmed.status === 409) return;
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
}

/** After the fault: optionally the object dies (evicted), as a real crash would leave it. */
async function maybeEvict(orderId: string, fault: Fault): Promise<void> {
  if (fault.reset) await evictDurableObject(orderStub(orderId));
}

/** What drains found wrong on the way (a timer with no alarm, an alarm dropped): checked with the case. */
const drainProblems: string[] = [];

/**
 * The alarm as the platform runs it: an alarm that throws is run again, up to 6 times, and then dropped.
 * (runDurableObjectAlarm deletes the stored alarm and runs the handler once.)
 */
/** The order's index version, as its storage holds it. */
async function indexVersionOf(orderId: string): Promise<number> {
  return runInDurableObject(orderStub(orderId), (_instance, state) => new OrderStore(state.storage).indexVersion());
}

async function fireAlarm(orderId: string): Promise<boolean> {
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
async function drain(orderId: string): Promise<void> {
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
async function inspect(orderId: string): Promise<{
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
  const [books, indexed] = await Promise.all([
    bookedRow(env, seen.order),
    env.DB.prepare(`SELECT version FROM order_index WHERE id = ?1`).bind(orderId).first<{ version: number }>(),
  ]);
  const done = books?.version === indexVersion && indexed?.version === indexVersion;
  return done ? { ...seen, timers: seen.timers.filter((kind) => kind !== "index") } : seen;
}

function indexOf(store: OrderStore, timer: { failures: number } | undefined) {
  return { indexVersion: store.indexVersion(), indexFailures: timer?.failures ?? 0 };
}

async function codesHeldBy(orderId: string): Promise<{ sku: string; status: string; pin: string }[]> {
  const { results } = await env.DB.prepare(`SELECT sku, status, pin FROM codes WHERE order_id = ?1 ORDER BY id`)
    .bind(orderId)
    .all<{ sku: string; status: string; pin: string }>();
  return results;
}

/** Every object the wallet has been (the registry's earlier ones, its current one, one a move is taking it to). */
async function walletObjects(clientId: string, currency: string) {
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

/** Every invariant of crash safety for what one case touched; returns the violations found. */
async function violations(outcome: Outcome): Promise<string[]> {
  const found: string[] = drainProblems.splice(0);
  const check = (ok: boolean, what: string) => {
    if (!ok) found.push(what);
  };
  found.push(...hooks.bad.splice(0).map((bad) => `webhook delivery did not verify: ${bad}`));
  // Every object the wallet has been, oldest first; the entries of all of them are the wallet's ledger.
  const objects = await walletObjects(outcome.clientId, outcome.currency);
  const entries: LedgerEntry[] = [];
  for (const [index, object] of objects.entries()) {
    const audit = await object.stub.audit();
    check(
      audit.balance === audit.ledgerSum,
      `generation ${object.generation}: balance ${audit.balance} != ledger sum ${audit.ledgerSum}`,
    );
    const own = await object.stub.entries(0, 10_000);
    check(
      own.every((entry) => !new Money(entry.balanceAfter).isNegative()),
      `generation ${object.generation}: a balance went below zero`,
    );
    entries.push(...own);
    const next = objects[index + 1];
    if (next === undefined) continue;
    check(audit.balance === "0", `generation ${object.generation} moved on but holds ${audit.balance}`);
    const arrived = await next.stub.entries(0, 10_000);
    for (const out of own.filter((entry) => entry.kind === "move_out")) {
      const taken = arrived.filter((entry) => entry.key === out.key);
      check(
        taken.length === 1 &&
          taken[0]!.kind === "move_in" &&
          new Money(taken[0]!.amount).equals(new Money(out.amount).negated()),
        `transfer ${out.key} of ${out.amount} arrived as ${JSON.stringify(taken.map((entry) => entry.amount))}`,
      );
    }
  }
  if (outcome.total !== undefined) {
    const total = objects.length === 0 ? new Money(0) : new Money(await objects.at(-1)!.stub.balance());
    check(total.equals(outcome.total), `the wallet holds ${total.toFixed()}, expected ${outcome.total}`);
  }

  for (const orderId of outcome.refusedOrderIds ?? []) {
    const { order, timers } = await inspect(orderId);
    check(order === null, `${orderId}: a refused create stored an order`);
    check(timers.length === 0, `${orderId}: a refused create left timers ${timers}`);
    check((await codesHeldBy(orderId)).length === 0, `${orderId}: a refused create holds codes`);
    for (const object of objects) {
      const holds = await holdsOf(outcome.clientId, outcome.currency, object.generation, object.region);
      check(
        !holds.includes(orderId),
        `${orderId}: a refused create still holds balance (generation ${object.generation})`,
      );
    }
    check(!entries.some((entry) => entry.orderId === orderId), `${orderId}: a refused create moved money`);
  }

  for (const orderId of outcome.orderIds) {
    const { order, timers, events } = await inspect(orderId);
    if (order === null) {
      found.push(`${orderId}: no order stored`);
      continue;
    }
    const want = outcome.expect[orderId];
    check(want === undefined || order.state === want, `${orderId}: state ${order.state}, expected ${want}`);
    const mine = entries.filter((entry) => entry.orderId === orderId);
    const charges = mine.filter((entry) => entry.key === chargeKey(orderId));
    const voids = mine.filter((entry) => entry.key === voidKey(orderId));
    if (CONFIRMED_STATES.has(order.state)) {
      check(
        charges.length === 1 && new Money(charges[0]!.amount).negated().equals(order.charge),
        `${orderId}: ${order.state} but charged ${JSON.stringify(charges.map((c) => c.amount))}`,
      );
      check(voids.length === 0, `${orderId}: confirmed and voided`);
    } else if (order.state === "rejected") {
      // The void is a mark beside the ledger; it is a ledger entry only where it gave back a charge.
      const purse = wallet(outcome.clientId, outcome.currency, order.walletGeneration ?? 0, order.walletRegion ?? null);
      check((await purse.chargeStatus(orderId)).status === "voided", `${orderId}: rejected without a void`);
      check(voids.length === charges.length, `${orderId}: ${charges.length} charges but ${voids.length} void credits`);
      const net = mine.reduce((sum, entry) => sum.plus(entry.amount), new Money(0));
      check(net.isZero(), `${orderId}: rejected but owes ${net.toFixed()}`);
      check(order.invoiceStatus === "void", `${orderId}: rejected with invoice ${order.invoiceStatus}`);
      // It can never be charged later: the wallet refuses its charge, whatever arrives.
      const late = await purse.post({ key: chargeKey(orderId), kind: "order_charge", amount: order.charge, orderId });
      check(
        !late.ok && late.code === "order_voided",
        `${orderId}: rejected, but a late charge answered ${JSON.stringify(late)}`,
      );
    } else {
      check(charges.length === 0 || Boolean(order.chargeIntentAt), `${orderId}: created but charged`);
    }
    // Refunds: exactly the failed lines, once each.
    for (const orderLine of order.lines) {
      const refunds = mine.filter((entry) => entry.key === refundKey(orderId, orderLine.sku));
      if (orderLine.status === "failed" && AT_REST.has(order.state)) {
        check(
          refunds.length === 1 && new Money(refunds[0]!.amount).equals(orderLine.charge),
          `${orderId}/${orderLine.sku}: failed line refunded ${refunds.length}×`,
        );
      } else {
        check(refunds.length === 0, `${orderId}/${orderLine.sku}: ${orderLine.status} line refunded`);
      }
    }
    // Codes: what the order holds is exactly what its open lines need; sold codes are its redeem.
    const held = await codesHeldBy(orderId);
    const lineSkus = new Set(order.lines.filter((l) => l.product.supplier === "inventory").map((l) => l.sku));
    const foreign = held.filter((code) => !lineSkus.has(code.sku));
    check(
      foreign.length === 0,
      `${orderId}: holds ${foreign.length} codes of SKUs it has no line for (${foreign.map((c) => `${c.sku} ${c.status}`)})`,
    );
    for (const orderLine of order.lines.filter((l) => l.product.supplier === "inventory")) {
      const reserved = held.filter((code) => code.sku === orderLine.sku && code.status === "reserved");
      const sold = held.filter((code) => code.sku === orderLine.sku && code.status === "sold");
      const open =
        orderLine.status === "pending" &&
        (order.state === "created" || CONFIRMED_STATES.has(order.state)) &&
        !AT_REST.has(order.state);
      check(
        reserved.length === (open ? orderLine.quantity : 0),
        `${orderId}/${orderLine.sku}: holds ${reserved.length} reserved, line ${orderLine.status}, order ${order.state}`,
      );
      const pins = orderLine.status === "fulfilled" ? (orderLine.redeem?.pins ?? []) : [];
      check(
        JSON.stringify(sold.map((code) => code.pin).sort()) === JSON.stringify([...pins].sort()),
        `${orderId}/${orderLine.sku}: sold ${sold.length} codes, redeem has ${pins.length}`,
      );
      check(
        orderLine.status !== "fulfilled" || sold.length === orderLine.quantity,
        `${orderId}/${orderLine.sku}: fulfilled with ${sold.length} codes`,
      );
    }
    // Holds: an order that is no longer open holds nothing of the balance.
    if (order.state !== "created") {
      for (const object of objects) {
        const holds = await holdsOf(outcome.clientId, outcome.currency, object.generation, object.region);
        check(
          !holds.includes(orderId),
          `${orderId}: ${order.state} but still holds balance (generation ${object.generation})`,
        );
      }
    }
    // Timers: an order at rest has none; an order that is not has the one that moves it on.
    if (AT_REST.has(order.state))
      check(timers.length === 0, `${orderId}: at rest (${order.state}) with timers ${timers}`);
    if (order.state === "created") check(timers.includes("expire"), `${orderId}: created without its expiry timer`);
    if (order.state === "confirmed" || order.state === "processing")
      check(timers.includes("process"), `${orderId}: ${order.state} without its processing timer`);
    // Index: an order whose `index` timer has run (every order at rest: it has no timer left) has its row,
    // written by itself, with its state, amounts, lines and the version it is at.
    if (!timers.includes("index")) {
      const row = await env.DB.prepare(
        `SELECT state, total, charged, refunded, lines, version FROM order_index WHERE id = ?1`,
      )
        .bind(orderId)
        .first<{ state: string; total: string; charged: string; refunded: string; lines: string; version: number }>();
      const want = indexRowOf(order, await indexVersionOf(orderId));
      check(
        row !== null &&
          row.state === want.state &&
          row.total === want.total &&
          row.charged === want.charged &&
          row.refunded === want.refunded &&
          row.lines === JSON.stringify(want.lines) &&
          row.version === want.version,
        `${orderId}: ${order.state} (charged ${want.charged}, refunded ${want.refunded}, version ${want.version}) but indexed as ${JSON.stringify(row)}`,
      );
    }
    // Webhooks: one event per stored transition it announces, each handed to the queue.
    if (order.webhookUrl !== null) {
      const wantEvents = [
        ...(CONFIRMED_STATES.has(order.state) ? ["order.confirmed"] : []),
        ...(AT_REST.has(order.state) ? [`order.${order.state}`] : []),
      ];
      check(
        JSON.stringify(events.map((e) => e.type)) === JSON.stringify(wantEvents),
        `${orderId}: events ${events.map((e) => e.type)}, expected ${wantEvents}`,
      );
      check(
        events.every((e) => e.sent),
        `${orderId}: an event was never handed to the queue`,
      );
      for (const event of events) if (event.sent) handedToQueue.add(event.eventId);
    }
  }
  // A code is held by at most one order: order_id is one column, so that holds by construction; what
  // can go wrong is a code sold to nobody.
  const strays = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM codes WHERE status != 'available' AND order_id IS NULL`,
  ).first<{ n: number }>();
  check(strays!.n === 0, `${strays!.n} codes reserved or sold to no order`);
  return found;
}

/** One kind of order used by the scenarios. */
const INVENTORY_LINE = () => line("DEMO-EU-FIXED", 10, 2);
const SANDBOX_LINE = () => line("DEMO-US-RANGE", 5, 1);

async function placeOrder(key: string, clientId: string, productList: unknown[], reference = crypto.randomUUID()) {
  const created = await asClient(() =>
    createOrder({ productList, reference, webhookUrl: webhookUrlOf(clientId) }, key),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { orderId: created.body.data.id as string, reference, clientId };
}

/** Where the move scenarios move a client's wallets. */
const MOVE_REGION = "apac";

function moveWallets(clientId: string) {
  return admin("POST", `/admin/clients/${clientId}/region`, { region: MOVE_REGION });
}

/** Waits until the processing that confirm started has run and failed once (its timer is stored again). */
async function waitForTimerRun(orderId: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const stored = await runInDurableObject(orderStub(orderId), (_instance, state) =>
      new OrderStore(state.storage).timers(),
    );
    if (stored.some((timer) => timer.kind === "process" && timer.failures > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${orderId}: processing never failed`);
}

/** The upstream product whose supplier answers 409 "in progress" to the first IN_PROGRESS_ASKS asks of a key. */
const UNKNOWN_PRODUCT_CODE = "UP-CRASH-SLOW";
const IN_PROGRESS_ASKS = 3;
const upstreamAsks = new Map<string, number>();

/** The stuck list's row of the order, if any. */
async function stuckRow(orderId: string): Promise<{ timer: string; skus: string[] } | undefined> {
  const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
  return (stuck.body.data.orders as { orderId: string; timer: string; skus: string[] }[]).find(
    (row) => row.orderId === orderId,
  );
}

/** What a scenario's steps are given: its client, the order it placed (or will create) and the fault. */
interface Run {
  clientId: string;
  key: string;
  reference: string;
  /** The placed order's id, or the id its create will have (the object is named by client and reference). */
  orderId: string;
  seam: string;
  fault: Fault;
}

/**
 * A scenario: an operation, the seams it passes through, and its steps, which the runner (runScenario)
 * takes in turn: a fresh client; the order placed (`order`); `before`; the fault armed at the seam; `act`,
 * the operation it fails; the order object evicted when the fault resets it (unless `evict` is false);
 * `after`, what follows the fault (a client's retry); the order's timers run until it is at rest (unless
 * the operation is `orderless`); `settled`, checks of the end. The
 * outcome checked is the order in the state `expect` names, unless `outcome` says otherwise.
 */
interface Scenario {
  name: string;
  seams: readonly string[];
  /** The client's USD funds (1000 unless given). */
  funds?: string;
  /** The lines of the order placed before the fault; none: the operation makes the order, or none. */
  order?: () => unknown[];
  before?: (run: Run) => Promise<unknown>;
  act: (run: Run) => Promise<unknown>;
  /** The order object is not evicted after a fault that resets (the fault is not in the order's object). */
  evict?: false;
  /** The operation involves no order: nothing is evicted or drained. */
  orderless?: true;
  after?: (run: Run) => Promise<void>;
  settled?: (run: Run) => Promise<void>;
  /** The order's end state (successful unless given). */
  expect?: string;
  /** What the wallet must hold at the end, where the scenario knows it. */
  total?: (run: Run) => Promise<string> | string;
  /** The outcome to check, where it is not the one order in its `expect` state. */
  outcome?: (run: Run) => Outcome;
}

/** A create of `productList` under the run's reference, to its client's receiver. */
const createOf =
  (productList: () => unknown[], webhook = true) =>
  ({ clientId, key, reference }: Run) =>
    createOrder(
      { productList: productList(), reference, ...(webhook ? { webhookUrl: webhookUrlOf(clientId) } : {}) },
      key,
    );

/** The same create retried as a client would, until it is taken. */
const createdAsClient =
  (productList: () => unknown[]) =>
  async (run: Run): Promise<void> => {
    const created = await asClient(() => createOf(productList)(run));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  };

const confirmOnce = ({ orderId, key }: Run) => confirmOrder(orderId, key);
const confirmed = ({ orderId, key }: Run) => confirmAsClient(orderId, key);
/** A confirm retried after a 500: taken (200), or already taken by the attempt whose answer was lost (409). */
const confirmRetried = async ({ orderId, key }: Run): Promise<void> => {
  const retried = await asClient(() => confirmOrder(orderId, key));
  expect([200, 409], JSON.stringify(retried.body)).toContain(retried.status);
};
/** A confirm after the order was rejected: 419, and nothing charged (the void refuses any charge). */
const lateConfirmRefused = async ({ orderId, key }: Run): Promise<void> => {
  expect((await confirmOrder(orderId, key)).status).toBe(419);
};
const moved = async ({ clientId }: Run): Promise<void> => {
  const answer = await asClient(() => moveWallets(clientId));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
};
/** The wallet's funds less the order's charge (plus what a failed line gave back). */
const lessCharge =
  (refunded = 0) =>
  async ({ orderId }: Run): Promise<string> =>
    new Money(1000)
      .minus((await inspect(orderId)).order!.charge)
      .plus(refunded)
      .toFixed();
/** A refused create: no order, and whatever its attempts held given back. */
const refusedCreate = ({ clientId, orderId }: Run): Outcome => ({
  clientId,
  currency: "USD",
  orderIds: [],
  refusedOrderIds: [orderId],
  expect: {},
});
const noOrder = ({ clientId }: Run): Outcome => ({ clientId, currency: "USD", orderIds: [], expect: {} });

async function runScenario(scenario: Scenario, seam: string, fault: Fault): Promise<Outcome> {
  const { clientId, key } = await freshClient(scenario.funds);
  const reference = crypto.randomUUID();
  const orderId =
    scenario.order === undefined
      ? await objectOrderId(clientId, reference)
      : (await placeOrder(key, clientId, scenario.order(), reference)).orderId;
  const run: Run = { clientId, key, reference, orderId, seam, fault };
  // The wallet's end, where the scenario knows it, is reckoned from the order as placed.
  const total = await scenario.total?.(run);
  await scenario.before?.(run);
  armFault(seam, fault);
  await scenario.act(run);
  if (scenario.evict !== false && scenario.orderless !== true) await maybeEvict(orderId, fault);
  await scenario.after?.(run);
  if (scenario.orderless !== true) await drain(orderId);
  await scenario.settled?.(run);
  if (scenario.outcome !== undefined) return scenario.outcome(run);
  return {
    clientId,
    currency: "USD",
    orderIds: [orderId],
    expect: { [orderId]: scenario.expect ?? "successful" },
    ...(total !== undefined ? { total } : {}),
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: "create",
    seams: [ORDER_SEAMS.setAlarm, ORDER_SEAMS.reserveCodes, "inventory.reserve", ORDER_SEAMS.walletHold],
    act: createOf(() => [INVENTORY_LINE(), SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [INVENTORY_LINE(), SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "create of an order that holds no codes",
    seams: [ORDER_SEAMS.walletBalance, ORDER_SEAMS.setAlarm],
    act: createOf(() => [SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "create refused for its balance",
    // Refused at its hold, before any code is reserved: what it reads then is whether the stock is short.
    seams: [ORDER_SEAMS.reserveCodes, "inventory.reserve"],
    funds: "1",
    act: createOf(() => [INVENTORY_LINE()], false),
    // Nobody retries after the 400: whatever the failed attempt left is the expiry timer's to give back.
    after: async (run) => {
      const refused = await asClient(() => createOf(() => [INVENTORY_LINE()], false)(run));
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    },
    outcome: refusedCreate,
  },
  {
    name: "create refused for stock after its hold",
    seams: [ORDER_SEAMS.walletRelease],
    // A SKU with no codes: the hold stands, the reservation finds the stock short.
    act: createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false),
    after: async (run) => {
      // out_of_stock is a 500 too: the client retries only a server_error.
      let refused = await createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false)(run);
      for (let tries = 1; refused.body.code === "server_error" && tries < 4; tries += 1)
        refused = await createOf(() => [line("DEMO-US-SOLDOUT", 10, 1)], false)(run);
      expect(refused.body.code, JSON.stringify(refused.body)).toBe("out_of_stock");
    },
    outcome: refusedCreate,
  },
  {
    name: "create retried with another body",
    seams: [ORDER_SEAMS.releaseCodes, "inventory.release"],
    // The first attempt holds and reserves an inventory code, and is cut off before it stores the order.
    before: async (run) => {
      armFault(ORDER_SEAMS.reserveCodes, { when: "after" });
      expect((await createOf(() => [INVENTORY_LINE()])(run)).status).toBe(500);
    },
    // The client sends the reference again with another body: what the first attempt held goes back.
    act: createOf(() => [SANDBOX_LINE()]),
    after: async (run) => {
      await createdAsClient(() => [SANDBOX_LINE()])(run);
      await confirmed(run);
    },
  },
  {
    name: "confirm",
    seams: [ORDER_SEAMS.walletCharge, ORDER_SEAMS.setAlarm, ORDER_SEAMS.queueSend],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: confirmOnce,
    after: confirmRetried,
  },
  {
    name: "settle a confirm cut off after the charge (nobody retries)",
    seams: [ORDER_SEAMS.chargeLookup],
    order: () => [SANDBOX_LINE()],
    before: async (run) => {
      armFault(ORDER_SEAMS.walletCharge, { when: "after" });
      expect((await confirmOnce(run)).status).toBe(500);
    },
    act: async () => undefined,
  },
  {
    name: "processing an inventory line",
    seams: [ORDER_SEAMS.supplierInventory, "inventory.sell", ORDER_SEAMS.releaseCodes, "inventory.release"],
    order: () => [INVENTORY_LINE()],
    act: confirmed,
  },
  {
    name: "writing the order's row to the order index",
    // Its client's books first (test/crash/books-faults.test.ts has the books' own seams), then D1's index.
    seams: [ORDER_SEAMS.booksWrite, ORDER_SEAMS.indexWrite],
    order: () => [SANDBOX_LINE()],
    // The created order's row (its index timer is the first due), then the end state's: each passes the seam.
    act: ({ orderId }) => fireAlarm(orderId),
    after: confirmed,
  },
  {
    name: "processing a sandbox line",
    seams: [ORDER_SEAMS.supplierSandbox],
    order: () => [SANDBOX_LINE()],
    act: confirmed,
  },
  {
    name: "processing an upstream line",
    seams: [ORDER_SEAMS.supplierUpstream],
    order: () => [line("CRASH-UPSTREAM", 20, 2)],
    act: confirmed,
  },
  {
    // An outcome that stays unknown ("in progress") past its budget: the line is on the stuck list, is
    // asked again with the same key and never refunded, and leaves the list when the codes arrive.
    name: "an upstream line of unknown outcome past its budget",
    seams: [ORDER_SEAMS.supplierUpstream, ORDER_SEAMS.timerReport],
    order: () => [line("CRASH-UPSTREAM-SLOW", 20, 1)],
    act: confirmed,
    after: async ({ orderId }) => {
      // Until an ask has left the line unknown; at least once, as fireAlarm waits for the run confirm started.
      for (
        let run = 0;
        run === 0 || (run < 10 && typeof (await inspect(orderId)).order?.lines[0]?.unknownSince !== "number");
        run += 1
      )
        await fireAlarm(orderId);
      const before = (await inspect(orderId)).order!;
      expect(before.state).toBe("processing");
      expect(before.lines[0]).toMatchObject({ status: "pending", refunded: "0" });
      // As if it had been unknown for longer than the budget (60 s in the test config).
      await rewriteStoredOrder(orderId, (doc) => (doc.lines[0]!.unknownSince = Date.now() - 61_000), {
        process: Date.now(),
      });
      if ((upstreamAsks.get(`${orderId}:CRASH-UPSTREAM-SLOW`) ?? 0) < IN_PROGRESS_ASKS) {
        // Another ask still answers "in progress": the order is listed, unrefunded.
        expect(await fireAlarm(orderId)).toBe(true);
        const listed = await inspect(orderId);
        if (
          listed.order!.lines[0]!.status === "pending" &&
          !firedFaults().includes(`${ORDER_SEAMS.timerReport}:before`)
        ) {
          expect(await stuckRow(orderId)).toMatchObject({ timer: "supplier", skus: ["CRASH-UPSTREAM-SLOW"] });
        }
      }
    },
    settled: async ({ orderId }) => {
      expect(upstreamAsks.get(`${orderId}:CRASH-UPSTREAM-SLOW`)).toBeGreaterThan(IN_PROGRESS_ASKS);
      expect(await stuckRow(orderId)).toBeUndefined();
    },
  },
  {
    name: "refunding a failed line",
    seams: [ORDER_SEAMS.walletRefund],
    order: () => [line("DEMO-US-FAILING", 7, 1), SANDBOX_LINE()],
    act: confirmed,
    expect: "partial",
  },
  {
    name: "expiry",
    seams: [
      ORDER_SEAMS.releaseCodes,
      "inventory.release",
      ORDER_SEAMS.walletVoid,
      ORDER_SEAMS.setAlarm,
      ORDER_SEAMS.queueSend,
    ],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    // expiresAt passes; the expiry timer is the order's earliest, so running the alarm now is its expiry.
    before: ({ orderId }) => backdateExpiry(orderId),
    act: ({ orderId }) => fireAlarm(orderId),
    settled: lateConfirmRefused,
    expect: "rejected",
  },
  {
    name: "reporting a failing timer",
    seams: [ORDER_SEAMS.timerReport],
    order: () => [SANDBOX_LINE()],
    // The supplier fails 3 times, so the 3rd failure is reported; the report itself fails.
    before: async () => armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 3 }),
    act: confirmed,
    settled: async ({ orderId }) => {
      const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
      expect(stuck.body.data.orders.map((o: { orderId: string }) => o.orderId)).not.toContain(orderId);
    },
  },
  {
    name: "expire now (sandbox)",
    seams: [
      ORDER_SEAMS.setAlarm,
      ORDER_SEAMS.releaseCodes,
      "inventory.release",
      ORDER_SEAMS.walletVoid,
      ORDER_SEAMS.queueSend,
    ],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: (run) => expireNow(run),
    // The client retries a 500; a retry after a lost answer finds the order rejected.
    after: async (run) => {
      const retried = await asClient(() => expireNow(run));
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.data.state).toBe("rejected");
    },
    settled: lateConfirmRefused,
    expect: "rejected",
  },
  {
    // The operator moves the client's wallet to another region while an order holds part of it; the
    // order is confirmed afterwards, against the old wallet it was created with.
    name: "moving a client's wallet with an order open",
    seams: Object.values(WALLET_MOVE_SEAMS),
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    act: ({ clientId }) => moveWallets(clientId),
    evict: false,
    after: async (run) => {
      await moved(run);
      const row = await env.DB.prepare(`SELECT generation, region, moving_to FROM wallets WHERE client_id = ?1`)
        .bind(run.clientId)
        .first();
      expect(row).toEqual({ generation: 1, region: MOVE_REGION, moving_to: null });
      await confirmed(run);
    },
    total: lessCharge(),
  },
  {
    // The move is cut off with the money in transit (the old wallet moved out, the new one has nothing
    // yet); the order's charge meets the old wallet, delivers the transfer and lands at the new one.
    name: "confirm meeting a wallet moved, its transfer in transit",
    seams: [ORDER_SEAMS.walletMoveIn, ORDER_SEAMS.walletCharge],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    before: async ({ clientId }) => {
      armFault(WALLET_MOVE_SEAMS.moveIn, { when: "before" });
      expect((await moveWallets(clientId)).status).toBe(500);
    },
    act: confirmOnce,
    after: confirmRetried,
    settled: moved,
    total: lessCharge(),
  },
  {
    // Charged before the move, a line fails after it: the old wallet takes the refund and passes it on.
    name: "refunding a failed line after the wallet moved",
    seams: [ORDER_SEAMS.walletRefund, ORDER_SEAMS.walletMoveIn],
    order: () => [line("DEMO-US-FAILING", 7, 1), SANDBOX_LINE()],
    before: async (run) => {
      // Processing waits for its timer: its first supplier call fails.
      armFault(ORDER_SEAMS.supplierSandbox, { when: "before" });
      await confirmed(run);
      await waitForTimerRun(run.orderId);
      // Its retry waits for the drain below, not for the platform's alarm, which may fire during the move.
      await rewriteStoredOrder(run.orderId, () => {}, { process: Date.now() + 60_000 });
      await moved(run);
    },
    act: ({ orderId }) => drain(orderId),
    expect: "partial",
    total: lessCharge(7),
  },
  {
    // A confirm cut off after its charge landed in the old wallet; the wallet moves; the order expires:
    // the void credits the charge back in the old wallet, which passes it on, and voids it in the new.
    name: "expiry after the wallet moved, its charge in the old wallet",
    seams: [ORDER_SEAMS.walletVoid, ORDER_SEAMS.walletMoveIn],
    order: () => [INVENTORY_LINE(), SANDBOX_LINE()],
    before: async (run) => {
      armFault(ORDER_SEAMS.walletCharge, { when: "after" });
      expect((await confirmOnce(run)).status).toBe(500);
      // Past expiresAt at once, so that settling (its alarm 5 s ahead) confirms nothing; the void waits
      // for the drain, after the move.
      await backdateExpiry(run.orderId);
      await moved(run);
    },
    act: ({ orderId }) => drain(orderId),
    settled: lateConfirmRefused,
    expect: "rejected",
    total: () => "1000",
  },
  {
    name: "a sandbox top-up",
    seams: ALL_SANDBOX_SEAMS,
    act: (run) => sandboxTopUp(run),
    orderless: true,
    after: toppedUpOnce(sandboxTopUp, sandboxTopUpKey),
    outcome: noOrder,
  },
  {
    name: "an operator top-up",
    seams: OPERATOR_POSTING_SEAMS,
    act: (run) => operatorTopUp(run),
    orderless: true,
    after: toppedUpOnce(operatorTopUp, topUpKey),
    outcome: noOrder,
  },
];

/**
 * A top-up retried as a client would after the fault: taken, to 1012.34, and written once, under the
 * ledger key its idempotency key (the run's reference) gives.
 */
function toppedUpOnce(
  topUp: (run: Run) => Promise<{ status: number; body: any }>,
  ledgerKey: (idempotencyKey: string) => string,
) {
  return async (run: Run): Promise<void> => {
    const retried = await asClient(() => topUp(run));
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.data.balance).toBe(1012.34);
    const entries = await wallet(run.clientId, "USD").entries(0, 1000);
    expect(entries.filter((entry) => entry.key === ledgerKey(run.reference))).toHaveLength(1);
  };
}

/** POST /sandbox/orders/:orderId/expire, as the order's client. */
function expireNow({ orderId, key }: Run) {
  return call("POST", `/sandbox/orders/${orderId}/expire`, {
    key,
    headers: { "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

/** A sandbox top-up of 12.34 by the client itself, its idempotency key the run's reference. */
function sandboxTopUp({ key, reference }: Run) {
  return call("POST", "/sandbox/wallets/USD/top-ups", {
    key,
    body: { amount: "12.34" },
    headers: { "idempotency-key": reference, "cf-connecting-ip": addressOfKey.get(key)! },
  });
}

/** An operator's top-up of 12.34, its idempotency key the run's reference. */
function operatorTopUp({ clientId, reference }: Run) {
  return admin("POST", `/admin/wallets/${clientId}/USD/top-ups`, {
    amount: "12.34",
    idempotencyKey: reference,
    reason: "fault matrix",
  });
}

const CASES = SCENARIOS.flatMap((scenario) =>
  scenario.seams.flatMap((seam) => VARIANTS.map((variant) => ({ scenario, seam, variant }))),
);
const report = {
  cases: 0,
  runs: 0,
  faultsFired: 0,
  deliveries: 0,
  violations: [] as string[],
  callsFailed: {} as Record<string, number>,
  capped: [] as string[],
};

beforeAll(async () => {
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
});

afterEach(() => clearFaults());

afterAll(() => {
  vi.restoreAllMocks();
  console.log(
    JSON.stringify({
      faultMatrix: {
        operations: SCENARIOS.length,
        seamCases: CASES.length,
        runs: report.runs,
        faultsFired: report.faultsFired,
        webhookDeliveries: report.deliveries,
        casesByCallsFailed: report.callsFailed,
        casesStoppedAtTheBound: report.capped,
        violations: report.violations.length,
      },
    }),
  );
});

describe("fault matrix: every operation × every seam × each of its calls × before/after × with and without reset", () => {
  it("has a case for every seam the service lists", () => {
    const covered = new Set(CASES.map((c) => c.seam));
    const listed = [...Object.values(ORDER_SEAMS), ...ALL_INVENTORY_SEAMS, ...ALL_WALLET_SEAMS, ...ALL_SANDBOX_SEAMS];
    expect(listed.filter((seam) => !covered.has(seam))).toEqual([]);
  });

  it.each(
    CASES.map((c) => [c.scenario.name, c.seam, `${c.variant.when}${c.variant.reset ? " + reset" : ""}`, c] as const),
  )(
    "%s, %s fails %s at each of its calls in turn: every invariant holds once retries and timers have run",
    async (_name, seam, variantName, { scenario, variant }) => {
      const found: string[] = [];
      for (let skip = 0; skip <= MAX_SKIP; skip += 1) {
        clearFaults();
        const outcome = await runScenario(scenario, seam, { ...variant, skip });
        const fired = firedFaults().some((entry) => entry.startsWith(`${seam}:`));
        report.runs += 1;
        report.faultsFired += firedFaults().length;
        // The first call must fail, or the case proves nothing; a later one ends the case once the
        // operation no longer passes the seam that many times (that run is still checked, fault-free).
        if (skip === 0) expect(fired, `fired: ${firedFaults()}`).toBe(true);
        found.push(
          ...(await violations(outcome)).map(
            (v) => `${scenario.name} / ${seam} / ${variantName} / call ${skip + 1}: ${v}`,
          ),
        );
        if (!fired) {
          report.callsFailed[skip] = (report.callsFailed[skip] ?? 0) + 1;
          break;
        }
        if (skip === MAX_SKIP) report.capped.push(`${scenario.name} / ${seam} / ${variantName}`);
      }
      report.cases += 1;
      report.violations.push(...found);
      expect(found).toEqual([]);
    },
  );

  it("every event handed to the queue is delivered, each delivery signed with its client's secret", async () => {
    // The queue hands out a batch within 1 s (max_batch_timeout); deliveries run in the background.
    const deadline = Date.now() + 20_000;
    const missing = () => [...handedToQueue].filter((id) => !hooks.delivered.has(id));
    while (missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    report.deliveries = hooks.deliveries;
    expect(handedToQueue.size).toBeGreaterThan(0);
    expect(missing()).toEqual([]);
    expect(hooks.bad).toEqual([]);
  });
});
