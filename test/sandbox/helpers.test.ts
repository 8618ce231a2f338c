/**
 * The sandbox's helpers (src/sandbox/sandbox-routes.ts), as a client building an integration calls them:
 * a self-serve top-up that a retry cannot repeat, expire-now through the order's own expiry, and a signed
 * test webhook under the webhook URL policy. Their 404 in live is test/live/sandbox-off.test.ts.
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { armFault, clearFaults } from "../../src/kernel/faults";
import type { WebhookMessage } from "../../src/webhooks/events";
import { sandboxTopUpKey, voidKey } from "../../src/wallets/ledger-keys";
import { balanceOf, call, ledgerSumOf, line, orderStub, seedDemo, wallet } from "../helpers";
import { availableCodes, expectError, freshClient, ledgerOf, timersOf, uid } from "../order-helpers";
import { FakeReceiver, RECEIVER_URL, testSecret, verifies } from "../webhooks/receiver";
import { addWebhookClient } from "../webhooks/support";

beforeAll(async () => {
  await seedDemo();
});

const topUp = (key: string, currency: string, body: unknown, headers: Record<string, string> = {}) =>
  call("POST", `/sandbox/wallets/${currency}/top-ups`, { key, body, headers });

describe("POST /sandbox/wallets/:currency/top-ups", () => {
  it("credits the caller's wallet once per idempotency key: a retry answers the first top-up and adds nothing", async () => {
    const { id, key } = await freshClient({ USD: "10" });
    const first = await topUp(key, "USD", { amount: "250.50" }, { "idempotency-key": "k-1" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({
      message: "Wallet topped up",
      data: { currency: "USD", amount: 250.5, balance: 260.5, idempotencyKey: "k-1", replayed: false },
    });
    const retried = await topUp(key, "USD", { amount: "250.50", idempotencyKey: "k-1" }, { "idempotency-key": "k-1" });
    expect(retried.body).toEqual({
      message: "Top-up already applied",
      data: { currency: "USD", amount: 250.5, balance: 260.5, idempotencyKey: "k-1", replayed: true },
    });
    const other = await topUp(key, "USD", { amount: 5, idempotencyKey: "k-2" });
    expect(other.body.data.balance).toBe(265.5);
    expect((await ledgerOf(id, "USD")).filter((entry) => entry.key === sandboxTopUpKey("k-1"))).toHaveLength(1);
    expect(await balanceOf(id, "USD")).toBe("265.5");
    expect(await ledgerSumOf(id, "USD")).toBe("265.5");
  });

  it("opens a wallet the caller did not have", async () => {
    const { key } = await freshClient({ USD: "1" });
    expect((await topUp(key, "GBP", { amount: "40" }, { "idempotency-key": uid() })).body.data.balance).toBe(40);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([
      { currency: "GBP", balance: 40 },
      { currency: "USD", balance: 1 },
    ]);
  });

  it("refuses, changing nothing: no key, keys that differ, the same key with another amount, over the cap, not positive, too many decimals, an unknown currency", async () => {
    const { id, key } = await freshClient({ USD: "10" });
    await topUp(key, "USD", { amount: "1" }, { "idempotency-key": "used" });
    const refusals: [unknown, Record<string, string>, string, number, string, string?][] = [
      [
        { amount: "1" },
        {},
        "USD",
        400,
        "invalid_request_body",
        "an Idempotency-Key header (or idempotencyKey in the body) is required: a retry with the same key adds nothing",
      ],
      [
        { amount: "1", idempotencyKey: "a" },
        { "idempotency-key": "b" },
        "USD",
        400,
        "invalid_request_body",
        "Idempotency-Key and idempotencyKey differ",
      ],
      [{ amount: "2" }, { "idempotency-key": "used" }, "USD", 409, "idempotency_conflict"],
      [
        { amount: "1000000.01" },
        { "idempotency-key": uid() },
        "USD",
        400,
        "invalid_request_body",
        "amount must be at most 1000000 per sandbox top-up",
      ],
      [
        { amount: "0" },
        { "idempotency-key": uid() },
        "USD",
        400,
        "invalid_request_body",
        "amount must be positive with at most the minor units of USD",
      ],
      [
        { amount: "1.001" },
        { "idempotency-key": uid() },
        "USD",
        400,
        "invalid_request_body",
        "amount must be positive with at most the minor units of USD",
      ],
      [{ amount: -5 }, { "idempotency-key": uid() }, "USD", 400, "invalid_request_body"],
      [{ amount: "1", extra: true }, { "idempotency-key": uid() }, "USD", 400, "invalid_request_body"],
      [{ amount: "1" }, { "idempotency-key": uid() }, "XYZ", 400, "invalid_parameters"],
    ];
    for (const [body, headers, currency, status, code, reason] of refusals) {
      const answer = await topUp(key, currency, body, headers);
      expect([answer.status, answer.body.code], JSON.stringify({ body, answer: answer.body })).toEqual([status, code]);
      if (reason !== undefined) expect(answer.body.details).toEqual({ reason });
    }
    expect(await balanceOf(id, "USD")).toBe("11");
    expect(await ledgerOf(id, "USD")).toHaveLength(2);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 11 }]);
  });

  it("is the caller's own: without a key 403, and no client id in the path to name another", async () => {
    expect((await topUp(null as unknown as string, "USD", { amount: "1" }, { "idempotency-key": uid() })).status).toBe(
      403,
    );
  });
});

describe("POST /sandbox/orders/:orderId/expire", () => {
  async function placed(key: string, extra: Record<string, unknown> = {}) {
    const created = await call("POST", "/order/create", {
      key,
      body: {
        productList: [line("DEMO-EU-FIXED", 10, 2), line("DEMO-US-RANGE", 5)],
        wallet: "USD",
        reference: uid("ref"),
        ...extra,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.data.id as string;
  }

  it("expires a created order at once by its own expiry: codes back on sale, voided for good, rejected, announced", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    const before = await availableCodes("DEMO-EU-FIXED", "10");
    const orderId = await placed(key, { webhookUrl: "http://127.0.0.1:9797/hooks" });
    expect(await availableCodes("DEMO-EU-FIXED", "10")).toBe(before - 2);
    const expired = await call("POST", `/sandbox/orders/${orderId}/expire`, { key });
    expect(expired.status, JSON.stringify(expired.body)).toBe(200);
    expect(expired.body.message).toBe("Order expired");
    expect(expired.body.data).toMatchObject({ uid: orderId, state: "rejected", redeem: {}, livemode: false });
    expect(expired.body.data.invoice.status).toBe("void");
    expect(await availableCodes("DEMO-EU-FIXED", "10")).toBe(before);
    // Voided for good: a mark beside the ledger (nothing was charged, so no ledger entry).
    expect(await wallet(id, "USD").chargeStatus(orderId)).toMatchObject({ status: "voided" });
    expect((await ledgerOf(id, "USD")).map((entry) => entry.key)).not.toContain(voidKey(orderId));
    // Only the order index's write of the rejection is left.
    expect((await timersOf(orderId)).map((timer) => timer.kind)).toEqual(["index"]);
    const events = await runInDurableObject(orderStub(orderId), (_instance, state) =>
      new OrderStore(state.storage).outbox().map((entry) => (JSON.parse(entry.message) as WebhookMessage).event.type),
    );
    expect(events).toEqual(["order.rejected"]);
    // As after a real expiry: a confirm is 419, the order reads rejected, the wallet is untouched.
    expectError(await call("PUT", "/order/confirm", { key, body: { orderId } }), 419, "Expired", "order_expired");
    expect((await call("GET", `/order/get?orderId=${orderId}`, { key })).body.data.state).toBe("rejected");
    expect(await balanceOf(id, "USD")).toBe("1000");
    // Asked again (a retry after a lost answer): the same rejected order, nothing more.
    const again = await call("POST", `/sandbox/orders/${orderId}/expire`, { key });
    expect(again.status).toBe(200);
    expect(again.body.data.state).toBe("rejected");
    expect(await wallet(id, "USD").chargeStatus(orderId)).toMatchObject({ status: "voided" });
    expect(await balanceOf(id, "USD")).toBe("1000");
  });

  it("gives back the charge of a confirm cut off after it landed, and refuses it for good, as a real expiry does", async () => {
    const { id, key } = await freshClient({ USD: "100" });
    const orderId = await placed(key);
    armFault(ORDER_SEAMS.walletCharge, { when: "after" });
    expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(500);
    clearFaults();
    expect(Number(await balanceOf(id, "USD"))).toBeLessThan(100);
    const expired = await call("POST", `/sandbox/orders/${orderId}/expire`, { key });
    expect(expired.body.data.state).toBe("rejected");
    expect(await balanceOf(id, "USD")).toBe("100");
    expect(await ledgerSumOf(id, "USD")).toBe("100");
    expectError(await call("PUT", "/order/confirm", { key, body: { orderId } }), 419, "Expired", "order_expired");
    expect(await balanceOf(id, "USD")).toBe("100");
  });

  it("another client's order is 404 like an unknown one; a confirmed order is 409; neither changes", async () => {
    const owner = await freshClient({ USD: "1000" });
    const other = await freshClient({ USD: "1000" });
    const orderId = await placed(owner.key);
    for (const [key, id] of [
      [other.key, orderId],
      [owner.key, "ord_" + "0".repeat(64)],
      [owner.key, "not-an-order"],
    ]) {
      expectError(await call("POST", `/sandbox/orders/${id}/expire`, { key }), 404, "Not Found", "order_not_found");
    }
    expect((await call("GET", `/order/get?orderId=${orderId}`, { key: owner.key })).body.data.state).toBe("created");
    expect((await call("PUT", "/order/confirm", { key: owner.key, body: { orderId } })).status).toBe(200);
    const confirmed = await call("POST", `/sandbox/orders/${orderId}/expire`, { key: owner.key });
    expectError(confirmed, 409, "Order already confirmed", "order_already_confirmed");
    expect(["confirmed", "processing", "successful"]).toContain(confirmed.body.details.state);
  });
});

describe("POST /sandbox/webhooks/test", () => {
  let receiver: FakeReceiver | undefined;
  afterEach(() => {
    receiver?.restore();
    receiver = undefined;
  });

  async function webhookClient(secret: string) {
    const { id, key } = await freshClient({ USD: "1" });
    await addWebhookClient(id, secret);
    return key;
  }

  it("POSTs an example of the event type, signed with the caller's secret as Standard Webhooks, and says how the receiver answered", async () => {
    const secret = testSecret();
    const key = await webhookClient(secret);
    receiver = new FakeReceiver({ secret });
    for (const type of ["order.confirmed", "order.successful", "order.partial", "order.failed", "order.rejected"]) {
      const sent = await call("POST", "/sandbox/webhooks/test", { key, body: { type, url: RECEIVER_URL } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.message).toBe("Test webhook delivered");
      expect(sent.body.data).toMatchObject({ delivered: true, status: 204, error: null });
      const delivery = receiver.deliveries.at(-1)!;
      expect(delivery.url).toBe(RECEIVER_URL);
      expect(verifies(secret, delivery.body, delivery.headers)).toBe(true);
      expect(verifies(testSecret(), delivery.body, delivery.headers)).toBe(false);
      expect(JSON.parse(delivery.body)).toEqual(sent.body.data.event);
      expect(sent.body.data.event).toMatchObject({
        type,
        data: { state: type.slice("order.".length) },
        livemode: false,
      });
      expect(Object.keys(sent.body.data.event)).toEqual(["id", "type", "createdAt", "data", "livemode"]);
    }
  });

  it("reports a receiver that does not take it, without retrying", async () => {
    const secret = testSecret();
    const key = await webhookClient(secret);
    receiver = new FakeReceiver({ secret, failFirst: 1, failWith: 503 });
    const sent = await call("POST", "/sandbox/webhooks/test", {
      key,
      body: { type: "order.failed", url: RECEIVER_URL },
    });
    expect(sent.body).toMatchObject({
      message: "Test webhook not delivered",
      data: { delivered: false, status: 503, error: "HTTP 503" },
    });
    expect(receiver.deliveries).toHaveLength(1);
  });

  it("refuses a URL an order's webhookUrl may not have, an unknown type or no key, and sends nothing", async () => {
    const key = await webhookClient(testSecret());
    receiver = new FakeReceiver({ secret: testSecret() });
    for (const url of ["https://10.0.0.1/hooks", "ftp://127.0.0.1/x", "https://192.168.1.1/x", "not a url"]) {
      const answer = await call("POST", "/sandbox/webhooks/test", { key, body: { type: "order.failed", url } });
      expect([answer.status, answer.body.code], url).toEqual([400, "invalid_webhook_url"]);
    }
    expect(
      (await call("POST", "/sandbox/webhooks/test", { key, body: { type: "order.created", url: RECEIVER_URL } })).body
        .code,
    ).toBe("invalid_request_body");
    expect(
      (await call("POST", "/sandbox/webhooks/test", { key: null, body: { type: "order.failed", url: RECEIVER_URL } }))
        .status,
    ).toBe(403);
    expect(receiver.deliveries).toEqual([]);
  });
});
