import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { outcomeOfStatus } from "../../src/fulfilment/upstream-supplier";
import {
  applyOutcome,
  backoffMs,
  invoiceStatusAfter,
  linesPastBudget,
  unknownBudgetMs,
} from "../../src/orders/processing-rules";
import type { OrderLine, OrderRecord } from "../../src/orders/order-record";
import { Money } from "../../src/pricing/money";
import { admin } from "../admin-helpers";
import { rewriteStoredOrder, runIndexTimer, storedAlarm, timersOf } from "../order-helpers";
import {
  addClient,
  balanceOf,
  call,
  confirmOrder,
  createOrder,
  getOrder,
  ledgerSumOf,
  line,
  orderStub,
  seedDemo,
  wallet,
} from "../helpers";

const END_STATES = new Set(["successful", "partial", "failed", "rejected"]);

/**
 * Lets processing finish: runs the order's alarm at once (rather than waiting out retry backoffs) until
 * the order reaches an end state.
 */
async function drain(orderId: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (END_STATES.has((await stored(orderId)).state)) return;
    await runDurableObjectAlarm(orderStub(orderId));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`order ${orderId} did not finish processing in ${timeoutMs} ms`);
}

async function alarmIn(orderId: string): Promise<number | null> {
  const at = await runInDurableObject(orderStub(orderId), (_, state) => state.storage.getAlarm());
  return at === null ? null : at - Date.now();
}

async function stored(orderId: string): Promise<OrderRecord> {
  return (await orderStub(orderId).record()) as unknown as OrderRecord;
}

async function placeAndConfirm(key: string, productList: unknown[], wallet = "USD") {
  const created = await createOrder({ productList, wallet }, key);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const confirmed = await confirmOrder(created.body.data.id, key);
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return created.body.data as { id: string; invoice: { total: number } };
}

async function addUpstreamSku(sku: string, productCode = `UP-${sku}`) {
  await env.DB.prepare(
    `INSERT INTO products (sku, name, product_type, currency, country, region, min_quote, max_quote, supplier, supplier_config, updated_at)
     VALUES (?1, 'Upstream card', 'range', 'USD', 'US', 'North America', '1', '200', 'upstream', ?2, 0)`,
  )
    .bind(sku, JSON.stringify({ productCode }))
    .run();
}

interface SupplierCall {
  url: string;
  idempotencyKey: string | null;
  authorization: string | null;
  body: any;
}

/** A fake upstream supplier on the stubbed fetch: answers in the order given, recording each request. */
function fakeSupplier(
  answers: ((call: SupplierCall, signal: AbortSignal | null | undefined) => Promise<Response> | Response)[],
) {
  const calls: SupplierCall[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    expect(new URL(request.url).hostname).toBe("127.0.0.1");
    const entry = {
      url: request.url,
      idempotencyKey: request.headers.get("idempotency-key"),
      authorization: request.headers.get("authorization"),
      body: await request.json(),
    };
    calls.push(entry);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return answer(entry, init?.signal);
  });
  return { calls, spy };
}

function codes(count: number, prefix = "UP") {
  return Response.json({
    codes: Array.from({ length: count }, (_, index) => ({
      pin: `${prefix}-${index}`,
      link: `https://supplier.example.com/r/${prefix}-${index}`,
    })),
  });
}

let key: string;

beforeAll(async () => {
  await seedDemo();
  key = await addClient("fulfil", { USD: "100000", EUR: "1000" });
  await addUpstreamSku("UP-CARD");
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("processing after confirmation", () => {
  it("fulfils sandbox lines with one unique pin per unit and ends successful", async () => {
    const order = await placeAndConfirm(key, [line("DEMO-US-RANGE", 25, 3), line("DEMO-JP-RANGE", 1000, 2)]);
    await drain(order.id);
    const got = await getOrder(order.id, key);
    expect(got.body.data.state).toBe("successful");
    const us = got.body.data.redeem["DEMO-US-RANGE"];
    expect(us.redeemPin).toHaveLength(3);
    expect(new Set(us.redeemPin).size).toBe(3);
    expect(us).toMatchObject({ currency: "USD", value: 25 });
    expect(us.redeemLink).toBe(us.redeemLinks[0]);
    expect(got.body.data.redeem["DEMO-JP-RANGE"]).toMatchObject({ currency: "JPY", value: 1000 });
    expect(got.body.data.invoice.status).toBe("paid");
  });

  it("starts processing inside confirm; its timer, 5 s after the confirm as docs/fulfilment.md says, is only a safety net and goes with the end state", async () => {
    // The supplier holds its answer, so processing is caught halfway with its timer still stored.
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const { calls } = fakeSupplier([async () => (await answered, codes(1, "NET"))]);
    const created = await createOrder({ productList: [line("UP-CARD", 5, 1, "range")] }, key);
    const id = created.body.data.id;
    const before = Date.now();
    await confirmOrder(id, key);
    const after = Date.now();
    // No alarm is run here: processing started inside confirm reaches the supplier on its own.
    await vi.waitFor(() => expect(calls).toHaveLength(1), { timeout: 5000 });
    const timers = await timersOf(id);
    // The order index's timer, set with the create, comes first; the processing timer is the safety net.
    expect(timers.map((timer) => timer.kind)).toEqual(["index", "process"]);
    const safetyNet = timers[1]!;
    expect(safetyNet.due_at).toBeGreaterThanOrEqual(before + 5_000);
    expect(safetyNet.due_at).toBeLessThanOrEqual(after + 5_000);
    expect(await storedAlarm(id)).toBe(timers[0]!.due_at);
    release();
    await vi.waitFor(async () => expect((await stored(id)).state).toBe("successful"), { timeout: 5000 });
    // The safety net goes with the end state; the index's timer fires on its own and goes too.
    expect((await timersOf(id)).map((timer) => timer.kind)).not.toContain("process");
    await vi.waitFor(async () => expect(await timersOf(id)).toEqual([]), { timeout: 5000 });
    await vi.waitFor(async () => expect(await alarmIn(id)).toBeNull());
  });

  it("sells the codes an inventory order reserved, and never the same code to two orders", async () => {
    const first = await placeAndConfirm(key, [line("DEMO-EU-FIXED", 25, 2)]);
    const second = await placeAndConfirm(key, [line("DEMO-EU-FIXED", 25, 2)]);
    await drain(first.id);
    await drain(second.id);
    const pins = [];
    for (const order of [first, second]) {
      const got = await getOrder(order.id, key);
      expect(got.body.data.state).toBe("successful");
      pins.push(...got.body.data.redeem["DEMO-EU-FIXED"].redeemPin);
      const sold = await env.DB.prepare(`SELECT COUNT(*) AS n FROM codes WHERE order_id = ?1 AND status = 'sold'`)
        .bind(order.id)
        .first<{ n: number }>();
      expect(sold!.n).toBe(2);
    }
    expect(new Set(pins).size).toBe(4);
  });

  it("ends failed when every line fails, refunding the whole charge as its own ledger entry", async () => {
    const failing = await addClient("fail-all", { USD: "500" });
    const order = await placeAndConfirm(failing, [line("DEMO-US-FAILING", 33.33, 3)]);
    await drain(order.id);
    const got = await getOrder(order.id, failing);
    expect(got.body.data.state).toBe("failed");
    expect(got.body.data.redeem).toEqual({});
    expect(got.body.data.invoice.status).toBe("refunded");
    expect(got.body.data.invoice.total).toBe(0);
    const refundItem = got.body.data.invoice.records[0].items.find((item: { type: string }) => item.type === "refund");
    expect(refundItem.effect).toEqual({ amount: -99.99, currency: "USD" });
    expect(await balanceOf("fail-all", "USD")).toBe("500");
    const entries = await wallet("fail-all", "USD").entries(0, 100);
    expect(entries.map((entry) => [entry.kind, entry.amount])).toEqual([
      ["top_up", "500"],
      ["order_charge", "-99.99"],
      ["order_refund", "99.99"],
    ]);
    expect(await ledgerSumOf("fail-all", "USD")).toBe("500");
  });

  it("ends partial when some lines fail, refunding exactly the failed line's charge", async () => {
    const partial = await addClient("partial", { USD: "1000" });
    // 10 EUR at 0.92 costs 10.87 USD (10.869… rounded up); the failing line costs 17.5.
    const order = await placeAndConfirm(partial, [line("DEMO-EU-FIXED", 10, 1), line("DEMO-US-FAILING", 17.5, 1)]);
    expect(order.invoice.total).toBe(28.37);
    await drain(order.id);
    const got = await getOrder(order.id, partial);
    expect(got.body.data.state).toBe("partial");
    expect(Object.keys(got.body.data.redeem)).toEqual(["DEMO-EU-FIXED"]);
    expect(got.body.data.invoice.status).toBe("partially_refunded");
    expect(got.body.data.invoice.total).toBe(10.87);
    expect(await balanceOf("partial", "USD")).toBe("989.13");
    expect(await ledgerSumOf("partial", "USD")).toBe("989.13");
  });

  it("shows processing while a supplier is still answering", async () => {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    fakeSupplier([async () => (await answered, codes(1, "SLOW"))]);
    const created = await createOrder({ productList: [line("UP-CARD", 10, 1, "range")] }, key);
    await confirmOrder(created.body.data.id, key);
    // The alarm is due at once; wait until it has reached the supplier.
    await vi.waitFor(
      async () => expect((await getOrder(created.body.data.id, key)).body.data.state).toBe("processing"),
      { timeout: 5000 },
    );
    release();
    await vi.waitFor(
      async () => expect((await getOrder(created.body.data.id, key)).body.data.state).toBe("successful"),
      { timeout: 5000 },
    );
  });
});

describe("upstream supplier", () => {
  it("posts the contract's request and stores the codes it answers", async () => {
    const { calls } = fakeSupplier([() => codes(2, "OK")]);
    const order = await placeAndConfirm(key, [line("UP-CARD", 12.5, 2, "range")]);
    await drain(order.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe("http://127.0.0.1:9/supplier/v1/codes");
    expect(calls[0]!.authorization).toBe("Bearer test-upstream-key");
    expect(calls[0]!.idempotencyKey).toBe(`${order.id}:UP-CARD`);
    expect(calls[0]!.body).toEqual({
      productCode: "UP-UP-CARD",
      quote: "12.5",
      currency: "USD",
      quantity: 2,
      orderId: order.id,
    });
    const got = await getOrder(order.id, key);
    expect(got.body.data.redeem["UP-CARD"].redeemPin).toEqual(["OK-0", "OK-1"]);
  });

  it("retries 5xx answers with a growing delay, with the same idempotency key, then succeeds", async () => {
    const { calls } = fakeSupplier([
      () => new Response("busy", { status: 503 }),
      () => new Response("busy", { status: 503 }),
      () => codes(1, "LATE"),
    ]);
    const created = await createOrder({ productList: [line("UP-CARD", 10, 1, "range")] }, key);
    const id = created.body.data.id;
    await confirmOrder(id, key);
    await vi.waitFor(async () => expect((await stored(id)).lines[0]!.attempts).toBe(1));
    expect((await stored(id)).state).toBe("processing");
    await vi.waitFor(async () => expect(await alarmIn(id)).not.toBeNull());
    const firstDelay = (await alarmIn(id))!;
    // Loose below (the machine may be slow between storing and reading), exact above.
    expect(firstDelay).toBeGreaterThan(backoffMs(1) - 500);
    expect(firstDelay).toBeLessThanOrEqual(backoffMs(1));
    await runDurableObjectAlarm(orderStub(id));
    expect((await stored(id)).lines[0]!.attempts).toBe(2);
    const secondDelay = (await alarmIn(id))!;
    expect(secondDelay).toBeGreaterThan(backoffMs(2) - 500);
    expect(secondDelay).toBeLessThanOrEqual(backoffMs(2));
    await drain(id);
    expect(calls.map((call) => call.idempotencyKey)).toEqual(Array(3).fill(`${created.body.data.id}:UP-CARD`));
    const got = await getOrder(created.body.data.id, key);
    expect(got.body.data.state).toBe("successful");
    expect(got.body.data.redeem["UP-CARD"].redeemPin).toEqual(["LATE-0"]);
  });

  it("keeps asking a supplier that does not answer in time, past any count of attempts, and refunds nothing", async () => {
    const client = await addClient("timeouts", { USD: "100" });
    const { calls } = fakeSupplier([
      (_, signal) =>
        new Promise<Response>((_, reject) =>
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true }),
        ),
    ]);
    const order = await placeAndConfirm(client, [line("UP-CARD", 20, 1, "range")]);
    await vi.waitFor(async () => expect((await stored(order.id)).lines[0]!.attempts).toBe(1), { timeout: 5000 });
    // The alarm never throws for it (the platform would drop it after 6 retries): each run asks once more,
    // but the one that runs the order index's timer (set with the create, a couple of seconds ahead).
    for (let run = 0; run < 8; run += 1) expect(await runDurableObjectAlarm(orderStub(order.id))).toBe(true);
    // The platform may fire the stored alarm on its own in between: at least these 8 asks were made.
    expect(calls.length).toBeGreaterThanOrEqual(8);
    expect(new Set(calls.map((call) => call.idempotencyKey))).toEqual(new Set([`${order.id}:UP-CARD`]));
    const record = await stored(order.id);
    expect(record.state).toBe("processing");
    expect(record.lines[0]).toMatchObject({
      status: "pending",
      attempts: calls.length,
      refunded: "0",
      failureReason: "no answer within 200 ms",
    });
    expect(typeof record.lines[0]!.unknownSince).toBe("number");
    expect((await getOrder(order.id, client)).body.data.state).toBe("processing");
    expect(await balanceOf("timeouts", "USD")).toBe("80");
    expect(await timersOf(order.id)).toEqual([expect.objectContaining({ kind: "process" })]);
  });

  it("asks again after an unreadable answer, and fails and refunds on a refusal", async () => {
    const garbage = fakeSupplier([
      () => new Response("<html>oops</html>", { status: 200 }),
      () => Response.json({ codes: "nope" }),
      () => codes(1, "FIXED"),
    ]);
    const retried = await placeAndConfirm(key, [line("UP-CARD", 10, 1, "range")]);
    await drain(retried.id);
    expect(garbage.calls).toHaveLength(3);
    expect((await stored(retried.id)).state).toBe("successful");
    vi.restoreAllMocks();

    const refused = fakeSupplier([() => new Response(JSON.stringify({ error: "unknown product" }), { status: 400 })]);
    const client = await addClient("refused", { USD: "50" });
    const order = await placeAndConfirm(client, [line("UP-CARD", 10, 1, "range")]);
    await drain(order.id);
    expect(refused.calls).toHaveLength(1);
    expect((await stored(order.id)).state).toBe("failed");
    expect(await balanceOf("refused", "USD")).toBe("50");
  });

  it("resumes after the object is evicted between attempts, without issuing the line twice", async () => {
    const { calls } = fakeSupplier([() => new Response("down", { status: 502 }), () => codes(1, "AFTER-EVICT")]);
    const created = await createOrder({ productList: [line("UP-CARD", 10, 1, "range")] }, key);
    await confirmOrder(created.body.data.id, key);
    await vi.waitFor(async () => expect((await stored(created.body.data.id)).lines[0]!.attempts).toBe(1));
    await evictDurableObject(orderStub(created.body.data.id));
    await drain(created.body.data.id);
    expect(calls).toHaveLength(2);
    const got = await getOrder(created.body.data.id, key);
    expect(got.body.data.state).toBe("successful");
    expect(got.body.data.redeem["UP-CARD"].redeemPin).toEqual(["AFTER-EVICT-0"]);
  });
});

/** A supplier that never answers in time: the request aborts at UPSTREAM_TIMEOUT_MS. */
const noAnswer = (_: SupplierCall, signal: AbortSignal | null | undefined) =>
  new Promise<Response>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
const inProgress = () => Response.json({ error: "in progress" }, { status: 409 });

async function stuckRowOf(orderId: string) {
  const stuck = await admin("GET", "/admin/orders/stuck?limit=500");
  expect(stuck.status).toBe(200);
  return (stuck.body.data.orders as { orderId: string }[]).find((row) => row.orderId === orderId) as
    Record<string, unknown> | undefined;
}

describe("an unknown supplier outcome is not a failure", () => {
  it('a timeout and then 409 "in progress" leave the line pending and unrefunded; the codes issued meanwhile arrive on a later ask', async () => {
    const client = await addClient("in-progress", { USD: "100" });
    const { calls } = fakeSupplier([noAnswer, inProgress, () => codes(1, "ISSUED")]);
    const order = await placeAndConfirm(client, [line("UP-CARD", 20, 1, "range")]);
    await vi.waitFor(async () => expect((await stored(order.id)).lines[0]!.attempts).toBe(1), { timeout: 5000 });
    await runDurableObjectAlarm(orderStub(order.id));
    // The second answer was "in progress": the line is unknown, not failed, and nothing is refunded.
    const meanwhile = await stored(order.id);
    expect(meanwhile.state).toBe("processing");
    expect(meanwhile.lines[0]).toMatchObject({ status: "pending", attempts: 2, refunded: "0" });
    expect(meanwhile.lines[0]!.failureReason).toContain("409");
    expect(await balanceOf("in-progress", "USD")).toBe("80");
    await drain(order.id);
    expect(calls.map((call) => call.idempotencyKey)).toEqual(Array(3).fill(`${order.id}:UP-CARD`));
    const got = await getOrder(order.id, client);
    expect(got.body.data.state).toBe("successful");
    expect(got.body.data.redeem["UP-CARD"].redeemPin).toEqual(["ISSUED-0"]);
    expect(await balanceOf("in-progress", "USD")).toBe("80");
    expect((await wallet("in-progress", "USD").entries(0, 100)).map((entry) => entry.kind)).toEqual([
      "top_up",
      "order_charge",
    ]);
  });

  it("an answer that nothing was issued, after a timeout, fails the line and refunds it", async () => {
    const client = await addClient("refused-late", { USD: "100" });
    const { calls } = fakeSupplier([noAnswer, () => Response.json({ error: "unknown product" }, { status: 422 })]);
    const order = await placeAndConfirm(client, [line("UP-CARD", 20, 1, "range")]);
    await drain(order.id);
    expect(calls).toHaveLength(2);
    const record = await stored(order.id);
    expect(record.state).toBe("failed");
    expect(record.lines[0]).toMatchObject({
      status: "failed",
      refunded: "20",
      failureReason: "upstream refused the line (422)",
    });
    expect(await balanceOf("refused-late", "USD")).toBe("100");
    expect(await ledgerSumOf("refused-late", "USD")).toBe("100");
  });

  it("past its budget the line is on the operator's stuck list (order, SKU, since when, last answer), still asked and not refunded, until the supplier settles it", async () => {
    const client = await addClient("stuck-line", { USD: "100" });
    let settled = false;
    const { calls } = fakeSupplier([noAnswer, () => (settled ? codes(1, "AT-LAST") : inProgress())]);
    const order = await placeAndConfirm(client, [line("UP-CARD", 20, 1, "range"), line("DEMO-US-RANGE", 5, 1)]);
    await vi.waitFor(async () => expect((await stored(order.id)).lines[0]!.attempts).toBe(1), { timeout: 5000 });
    await runIndexTimer(order.id);
    await runDurableObjectAlarm(orderStub(order.id));
    // Within the budget (60 s in the test config): not on the list.
    expect(await stuckRowOf(order.id)).toBeUndefined();
    // As if the outcome had been unknown for just over the budget.
    const since = Date.now() - 61_000;
    await rewriteStoredOrder(order.id, (doc) => (doc.lines[0]!.unknownSince = since), { process: Date.now() });
    await runDurableObjectAlarm(orderStub(order.id));
    const row = await stuckRowOf(order.id);
    const due = (await timersOf(order.id)).find((timer) => timer.kind === "process")!.due_at;
    const asked = (await stored(order.id)).lines[0]!.attempts;
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(row).toMatchObject({
      orderId: order.id,
      clientId: "stuck-line",
      timer: "supplier",
      skus: ["UP-CARD"],
      failures: asked,
      lastError: "UP-CARD: upstream answered 409: still issuing under this key",
      firstFailedAt: since,
      nextAttemptAt: due,
    });
    expect(row!.lastFailedAt as number).toBeGreaterThanOrEqual(since + 61_000);
    // Still asked, with the same key, and never refunded; the client sees processing.
    for (let run = 0; run < 3; run += 1) expect(await runDurableObjectAlarm(orderStub(order.id))).toBe(true);
    expect(await stuckRowOf(order.id)).toMatchObject({
      timer: "supplier",
      failures: (await stored(order.id)).lines[0]!.attempts,
      firstFailedAt: since,
    });
    expect((await stored(order.id)).lines[0]!.attempts).toBeGreaterThanOrEqual(asked + 3);
    const record = await stored(order.id);
    expect(record.state).toBe("processing");
    expect(record.lines.map((l) => [l.sku, l.status, l.refunded])).toEqual([
      ["UP-CARD", "pending", "0"],
      ["DEMO-US-RANGE", "fulfilled", "0"],
    ]);
    expect((await getOrder(order.id, client)).body.data.state).toBe("processing");
    expect(await balanceOf("stuck-line", "USD")).toBe("75");
    // The supplier answers with the codes at last: the order ends and its row goes.
    settled = true;
    await drain(order.id);
    expect(new Set(calls.map((call) => call.idempotencyKey))).toEqual(new Set([`${order.id}:UP-CARD`]));
    expect((await getOrder(order.id, client)).body.data.redeem["UP-CARD"].redeemPin).toEqual(["AT-LAST-0"]);
    expect((await stored(order.id)).state).toBe("successful");
    expect(await stuckRowOf(order.id)).toBeUndefined();
    expect(await balanceOf("stuck-line", "USD")).toBe("75");
  });
});

/**
 * Puts a finished order back as the object would have left it had it died mid-processing: stored as
 * `processing`, with `rewind` undoing the step that was lost, and its processing timer due.
 */
async function rewindToProcessing(orderId: string, rewind: (doc: OrderRecord) => void): Promise<void> {
  await rewriteStoredOrder(
    orderId,
    (doc) => {
      doc.state = "processing";
      rewind(doc);
    },
    { process: Date.now() },
  );
}

describe("crash safety", () => {
  it("a processing step replayed after a crash refunds nothing twice", async () => {
    const client = await addClient("replay-refund", { USD: "300" });
    const order = await placeAndConfirm(client, [line("DEMO-US-RANGE", 10, 1), line("DEMO-US-FAILING", 40, 1)]);
    await drain(order.id);
    expect(await balanceOf("replay-refund", "USD")).toBe("290");
    // As if the object died after the wallet refunded the line but before the order stored it.
    await rewindToProcessing(order.id, (doc) => {
      doc.lines[1]!.refunded = "0";
    });
    await drain(order.id);
    const record = await stored(order.id);
    expect(record.state).toBe("partial");
    expect(record.lines[1]!.refunded).toBe("40");
    expect(await balanceOf("replay-refund", "USD")).toBe("290");
    const refunds = (await wallet("replay-refund", "USD").entries(0, 100)).filter(
      (entry) => entry.kind === "order_refund",
    );
    expect(refunds).toHaveLength(1);
  });

  it("an inventory line replayed after a crash gets the same codes, not new ones", async () => {
    const order = await placeAndConfirm(key, [line("DEMO-GB-FIXED", 20, 2)]);
    await drain(order.id);
    const first = (await stored(order.id)).lines[0]!.redeem!.pins;
    await rewindToProcessing(order.id, (doc) => {
      doc.lines[0] = { ...doc.lines[0]!, status: "pending", redeem: null };
    });
    await drain(order.id);
    const again = await stored(order.id);
    expect(again.state).toBe("successful");
    expect(again.lines[0]!.redeem!.pins).toEqual(first);
    const held = await env.DB.prepare(`SELECT COUNT(*) AS n FROM codes WHERE order_id = ?1`)
      .bind(order.id)
      .first<{ n: number }>();
    expect(held!.n).toBe(2);
  });
});

describe("racing for the last inventory codes", () => {
  it("gives each code to one order; the losers get the out-of-stock 500", async () => {
    const racer = await addClient("racer", { USD: "10000" });
    const available = await env.DB.prepare(
      `SELECT COUNT(*) AS n FROM codes WHERE sku = 'DEMO-GB-FIXED' AND status = 'available'`,
    ).first<{ n: number }>();
    const results = await Promise.all(
      Array.from({ length: available!.n + 4 }, (_, index) =>
        call("POST", "/order/create", {
          key: racer,
          body: { productList: [line("DEMO-GB-FIXED", 20, 1)], wallet: "USD", reference: `race-${index}` },
        }),
      ),
    );
    const won = results.filter((result) => result.status === 200);
    const lost = results.filter((result) => result.status !== 200);
    expect(won).toHaveLength(available!.n);
    expect(lost).toHaveLength(4);
    for (const result of lost)
      expect(result.body).toMatchObject({ code: "out_of_stock", message: "Requested item is out of stock" });
    const winners = won.map((result) => result.body.data.id as string);
    const holders = await env.DB.prepare(
      `SELECT order_id, COUNT(*) AS n FROM codes WHERE order_id IN (SELECT value FROM json_each(?1)) GROUP BY order_id`,
    )
      .bind(JSON.stringify(winners))
      .all<{ order_id: string; n: number }>();
    expect(holders.results).toHaveLength(winners.length);
    for (const holder of holders.results) expect(holder.n).toBe(1);
  });
});

describe("pure fulfilment rules", () => {
  const base = {
    status: "pending",
    attempts: 0,
    redeem: null,
    refunded: "0",
    failureReason: null,
    quote: "10",
    product: { currency: "USD" },
  } as unknown as OrderLine;

  it("keeps a line of unknown outcome pending however often it is asked, unknown since its first such answer", () => {
    const once = applyOutcome(base, { kind: "unknown", reason: "503" }, 1_000);
    expect(once).toMatchObject({ status: "pending", attempts: 1, failureReason: "503", unknownSince: 1_000 });
    const later = applyOutcome({ ...once, attempts: 500 }, { kind: "unknown", reason: "409" }, 9_000_000);
    expect(later).toMatchObject({ status: "pending", attempts: 501, failureReason: "409", unknownSince: 1_000 });
    const refused = applyOutcome(later, { kind: "failed", reason: "422" }, 9_000_001);
    expect(refused).toMatchObject({ status: "failed", failureReason: "422" });
    expect("unknownSince" in refused).toBe(false);
    const issued = applyOutcome(
      later,
      { kind: "issued", codes: [{ pin: "P", link: "https://x.example.com/P" }] },
      9_000_001,
    );
    expect(issued).toMatchObject({ status: "fulfilled", failureReason: null });
    expect("unknownSince" in issued).toBe(false);
  });

  it("lists the pending lines unknown for the budget or longer, longest first", () => {
    const lines = [
      { ...base, sku: "A", unknownSince: 5_000 },
      { ...base, sku: "B", unknownSince: 1_000 },
      { ...base, sku: "C", unknownSince: 9_500 },
      { ...base, sku: "D", unknownSince: 1_000, status: "failed" },
      { ...base, sku: "E" },
    ] as OrderLine[];
    expect(linesPastBudget(lines, 500, 10_000).map((line) => line.sku)).toEqual(["B", "A", "C"]);
    expect(linesPastBudget(lines, 5_000, 10_000).map((line) => line.sku)).toEqual(["B", "A"]);
    expect(linesPastBudget(lines, 9_001, 10_000)).toEqual([]);
  });

  it("reads the budget in seconds, and a value that is not a number ≥ 0 as the six-hour default", () => {
    expect(unknownBudgetMs("60")).toBe(60_000);
    expect(unknownBudgetMs("0")).toBe(0);
    for (const bad of [undefined, "", "six", "-1"]) expect(unknownBudgetMs(bad)).toBe(6 * 3600_000);
  });

  it("backs off 1 s, 2 s, 4 s … up to 5 minutes", () => {
    expect([1, 2, 3, 4, 8, 9, 10, 20].map(backoffMs)).toEqual([
      1000, 2000, 4000, 8000, 128_000, 256_000, 300_000, 300_000,
    ]);
  });

  it("reads the supplier's statuses as the contract says: only 400, 402, 404, 410 and 422 mean nothing was issued", () => {
    for (const status of [400, 402, 404, 410, 422]) expect(outcomeOfStatus(status).kind, String(status)).toBe("failed");
    for (const status of [401, 403, 405, 408, 409, 413, 425, 429, 500, 502, 503, 504])
      expect(outcomeOfStatus(status).kind, String(status)).toBe("unknown");
    expect(outcomeOfStatus(409)).toMatchObject({ kind: "unknown", reason: expect.stringContaining("still issuing") });
  });

  it("names the invoice status after the refunds", () => {
    const fulfilled = { ...base, status: "fulfilled" } as OrderLine;
    const failed = { ...base, status: "failed" } as OrderLine;
    expect(invoiceStatusAfter([fulfilled, fulfilled])).toBe("paid");
    expect(invoiceStatusAfter([fulfilled, failed])).toBe("partially_refunded");
    expect(invoiceStatusAfter([failed])).toBe("refunded");
  });

  it("charges and refunds balance to the cent", () => {
    expect(new Money("28.37").minus("17.5").toFixed()).toBe("10.87");
  });
});
