/**
 * Inventory reserved at create and released at expiry; expiry through the alarm (runDurableObjectAlarm)
 * and through the clock (expiresAt passed, alarm not yet run): 419, nothing charged.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { chargeKey } from "../../src/wallets/ledger-keys";
import {
  balanceOf,
  confirmOrder,
  createOrder,
  getOrder,
  ledgerSumOf,
  line,
  orderStub,
  seedDemo,
  topUp,
  wallet,
} from "../helpers";
import {
  MESSAGES,
  addCodes,
  addProduct,
  availableCodes,
  backdateExpiry,
  codesOfOrder,
  expectError,
  expectOk,
  expireByAlarm,
  freshClient,
  ledgerOf,
  storedOrder,
  timersOf,
  uid,
  runIndexTimer,
} from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100000");
  await addProduct({
    sku: "T-INV",
    productType: "fixed",
    currency: "USD",
    quotes: ["10", "20"],
    supplier: "inventory",
  });
  await addCodes("T-INV", "10", 80);
  await addCodes("T-INV", "20", 5);
});

async function newOrder(key: string, productList = [line("T-INV", 10, 3, "fixed")]) {
  return expectOk(await createOrder({ productList }, key));
}

describe("stock is reserved at create", () => {
  it("the available count in D1 drops by the quantity, per value, and the codes name the order", async () => {
    const client = await freshClient({ USD: "500" });
    const ten = await availableCodes("T-INV", "10");
    const twenty = await availableCodes("T-INV", "20");
    const eu = await availableCodes("DEMO-EU-FIXED", "25");
    const data = await newOrder(client.key, [line("T-INV", 10, 3, "fixed"), line("DEMO-EU-FIXED", 25, 2)]);
    expect(await availableCodes("T-INV", "10")).toBe(ten - 3);
    expect(await availableCodes("T-INV", "20")).toBe(twenty);
    expect(await availableCodes("DEMO-EU-FIXED", "25")).toBe(eu - 2);
    const codes = await codesOfOrder(data.id);
    expect(codes).toHaveLength(5);
    expect(codes.every((code) => code.status === "reserved")).toBe(true);
    expect(codes.filter((code) => code.sku === "T-INV").every((code) => code.value === "10")).toBe(true);
  });

  it("reserved codes are not sold twice: the rest of the stock is what later orders can take", async () => {
    const client = await freshClient({ USD: "500" });
    const left = await availableCodes("T-INV", "20");
    expect(left).toBe(5);
    await newOrder(client.key, [line("T-INV", 20, 3, "fixed")]);
    expectError(
      await createOrder({ productList: [line("T-INV", 20, 3, "fixed")] }, client.key),
      500,
      MESSAGES.outOfStock,
    );
    const last = await newOrder(client.key, [line("T-INV", 20, 2, "fixed")]);
    expect(await availableCodes("T-INV", "20")).toBe(0);
    // expiring the last order gives its 2 codes back, and only those
    await expireByAlarm(last.id);
    expect(await availableCodes("T-INV", "20")).toBe(2);
  });

  it("racing creates for the last codes: never more reserved than there are", async () => {
    await addProduct({ sku: "T-LAST", productType: "fixed", currency: "USD", quotes: ["5"], supplier: "inventory" });
    await addCodes("T-LAST", "5", 4);
    const client = await freshClient({ USD: "500" });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => createOrder({ productList: [line("T-LAST", 5, 1, "fixed")] }, client.key)),
    );
    const won = results.filter((res) => res.status === 200);
    expect(won).toHaveLength(4);
    for (const res of results.filter((r) => r.status !== 200)) expectError(res, 500, MESSAGES.outOfStock);
    expect(await availableCodes("T-LAST", "5")).toBe(0);
    for (const res of won) expect(await codesOfOrder(res.body.data.id)).toHaveLength(1);
  });
});

describe("expiry through the alarm", () => {
  it("runDurableObjectAlarm at expiresAt: created → rejected, invoice void, codes released, nothing charged; confirm then 419", async () => {
    const client = await freshClient({ USD: "100" });
    const before = await availableCodes("T-INV", "10");
    const data = await newOrder(client.key);
    expect(await availableCodes("T-INV", "10")).toBe(before - 3);
    const ledger = await ledgerOf(client.id, "USD");
    // expiresAt passed and the expire timer due, then the alarm runs (expireByAlarm → runDurableObjectAlarm)
    expect(await expireByAlarm(data.id)).toBe(true);
    const view = expectOk(await getOrder(data.id, client.key));
    expect(view.state).toBe("rejected");
    expect(view.invoice.status).toBe("void");
    expect(await availableCodes("T-INV", "10")).toBe(before);
    expect(await codesOfOrder(data.id)).toEqual([]);
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired, "order_expired");
    // Nothing was charged, so the ledger gains nothing: the void that makes the order final is a mark
    // beside it, which moves no money.
    expect(await ledgerOf(client.id, "USD")).toEqual(ledger);
    expect(await wallet(client.id, "USD").chargeStatus(data.id)).toMatchObject({ status: "voided" });
    expect(await balanceOf(client.id, "USD")).toBe("100");
  });

  it("a charge that reaches the wallet after the expiry's void is refused: the order stays rejected, owing nothing", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    expect(await expireByAlarm(data.id)).toBe(true);
    // The charge of a confirm that was cut off before it reached the wallet, arriving late.
    const late = await wallet(client.id, "USD").post({
      key: chargeKey(data.id),
      kind: "order_charge",
      amount: String(data.invoice.total),
      orderId: data.id,
    });
    expect(late).toMatchObject({ ok: false, code: "order_voided" });
    expect(await balanceOf(client.id, "USD")).toBe("100");
    expect(expectOk(await getOrder(data.id, client.key)).state).toBe("rejected");
    expect(await wallet(client.id, "USD").audit()).toMatchObject({ balance: "100", ledgerSum: "100" });
  });

  it("after the alarm rejected, a second alarm run changes nothing", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    expect(await expireByAlarm(data.id)).toBe(true);
    const rejected = await storedOrder(data.id);
    expect(rejected.state).toBe("rejected");
    const available = await availableCodes("T-INV", "10");
    await runDurableObjectAlarm(orderStub(data.id));
    expect(await storedOrder(data.id)).toEqual(rejected);
    expect(await availableCodes("T-INV", "10")).toBe(available);
    expect(await timersOf(data.id)).toEqual([]);
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired);
  });

  it("the alarm does not touch a confirmed order: no rejection, codes stay with it", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    expectOk(await confirmOrder(data.id, client.key));
    expect(await timersOf(data.id).then((timers) => timers.map((t) => t.kind))).not.toContain("expire");
    await runDurableObjectAlarm(orderStub(data.id));
    const view = expectOk(await getOrder(data.id, client.key));
    expect(view.state).not.toBe("rejected");
    expect(view.invoice.status).not.toBe("void");
    const codes = await codesOfOrder(data.id);
    expect(codes).toHaveLength(3);
    expect(codes.every((code) => code.status !== "available")).toBe(true);
    expect(await balanceOf(client.id, "USD")).toBe("70");
  });

  it("a charge left by a confirm that died before saving is credited back at expiry", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    // The wallet took the charge, the order never recorded the confirmation.
    const charged = await wallet(client.id, "USD").post({
      key: chargeKey(data.id),
      kind: "order_charge",
      amount: "30",
      orderId: data.id,
    });
    expect(charged.ok).toBe(true);
    expect(await balanceOf(client.id, "USD")).toBe("70");
    await expireByAlarm(data.id);
    expect((await storedOrder(data.id)).state).toBe("rejected");
    expect(await balanceOf(client.id, "USD")).toBe("100");
    expect(await ledgerSumOf(client.id, "USD")).toBe("100");
    const kinds = (await ledgerOf(client.id, "USD")).map((entry) => entry.kind);
    expect(kinds).toEqual(["top_up", "order_charge", "order_void"]);
  });

  it("a confirm retried after such a crash finds the charge instead of charging twice", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    await wallet(client.id, "USD").post({
      key: chargeKey(data.id),
      kind: "order_charge",
      amount: "30",
      orderId: data.id,
    });
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "USD")).toBe("70");
    expect((await ledgerOf(client.id, "USD")).filter((entry) => entry.kind === "order_charge")).toHaveLength(1);
  });
});

describe("expiry through the clock (before the alarm has run)", () => {
  it("confirm after expiresAt → 419 Expired, nothing charged; the alarm later rejects and releases", async () => {
    const client = await freshClient({ USD: "100" });
    const before = await availableCodes("T-INV", "10");
    const data = await newOrder(client.key);
    await backdateExpiry(data.id, 1);
    // the alarm has not run: the expire timer is still there
    expect((await timersOf(data.id)).map((timer) => timer.kind)).toContain("expire");
    expect((await storedOrder(data.id)).state).toBe("created");
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired, "order_expired");
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired);
    expect(await balanceOf(client.id, "USD")).toBe("100");
    expect((await ledgerOf(client.id, "USD")).map((entry) => entry.kind)).toEqual(["top_up"]);
    expect((await storedOrder(data.id)).state).toBe("created");
    // The order index's timer, set with the create, is due first; the alarm after it is the expiry's.
    await runIndexTimer(data.id);
    await runDurableObjectAlarm(orderStub(data.id));
    expect((await storedOrder(data.id)).state).toBe("rejected");
    expect(await availableCodes("T-INV", "10")).toBe(before);
  });

  it("expiresAt equal to now is already expired", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    await backdateExpiry(data.id, 0);
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired);
  });

  it("still inside expiresAt: confirm succeeds (the check is not too eager)", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await newOrder(client.key);
    await backdateExpiry(data.id, -5_000); // expires 5 s from now
    expect(expectOk(await confirmOrder(data.id, client.key)).state).toBe("confirmed");
  });

  it("expired and too little money: 419 wins (an expired order cannot be paid for)", async () => {
    const client = await freshClient({ USD: "30" });
    const data = await newOrder(client.key);
    await wallet(client.id, "USD").post({ key: uid("drain"), kind: "order_charge", amount: "30" });
    await backdateExpiry(data.id);
    expectError(await confirmOrder(data.id, client.key), 419, MESSAGES.expired);
  });

  it("expired order of another client: 404, not 419", async () => {
    const owner = await freshClient({ USD: "100" });
    const other = await freshClient({ USD: "100" });
    const data = await newOrder(owner.key);
    await backdateExpiry(data.id);
    expectError(await confirmOrder(data.id, other.key), 404, MESSAGES.notFound);
  });
});
