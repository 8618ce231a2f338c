/**
 * A confirm cut off between its intent and the wallet's answer, around the order's expiresAt: it is
 * settled within seconds while the order is live; once expiresAt has passed (the client's retry is then
 * answered 419) the order can only expire, and its void gives back a charge that landed; a confirm that
 * meets the wallet's void answers 419 and takes nothing.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { Money } from "../../src/pricing/money";
import { chargeKey, voidKey } from "../../src/wallets/ledger-keys";
import { confirmOrder, createOrder, getOrder, line, orderStub, seedDemo, wallet } from "../helpers";
import { drainTimers, freshClient, liveStore, rewriteStoredOrder, storedAlarm, storedOrder } from "../order-helpers";

beforeAll(seedDemo);
afterEach(clearFaults);

const SETTLE_AFTER_MS = 5_000;

async function timerKinds(orderId: string): Promise<string[]> {
  return runInDurableObject(orderStub(orderId), (instance, state) =>
    liveStore(instance, state)
      .timers()
      .map((timer) => timer.kind),
  );
}

async function newOrder(key: string): Promise<string> {
  const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)] }, key);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.id as string;
}

describe("a confirm cut off after the charge landed", () => {
  it("is settled within seconds: the alarm stands at most 5 s ahead, and running it confirms and processes the order", async () => {
    const client = await freshClient({ USD: "100" });
    const id = await newOrder(client.key);
    armFault(ORDER_SEAMS.walletCharge, { when: "after", reset: true });
    expect((await confirmOrder(id, client.key)).status).toBe(500);
    expect(await timerKinds(id)).toContain("settle");
    const alarm = await storedAlarm(id);
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeLessThanOrEqual(SETTLE_AFTER_MS + 500);
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    await drainTimers(id);
    const view = (await getOrder(id, client.key)).body.data;
    expect(view.state).toBe("successful");
    expect(Object.keys(view.redeem)).toEqual(["DEMO-US-RANGE"]);
    const charges = (await wallet(client.id, "USD").entries()).filter((entry) => entry.key === chargeKey(id));
    expect(charges.map((entry) => entry.amount)).toEqual(["-10"]);
  });

  it("once expiresAt has passed and the retry was answered 419, the order expires: its void gives the charge back, for good", async () => {
    const client = await freshClient({ USD: "100" });
    const id = await newOrder(client.key);
    armFault(ORDER_SEAMS.walletCharge, { when: "after" });
    expect((await confirmOrder(id, client.key)).status).toBe(500);
    // The first settle cannot reach the wallet; it is due again in 2 s.
    armFault(ORDER_SEAMS.chargeLookup, { when: "before" });
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect(await timerKinds(id)).toEqual(["settle", "expire"]);
    // Then expiresAt passes: the expiry timer is due, and the client's retried confirm is told 419.
    await rewriteStoredOrder(id, (doc) => (doc.expiresAt = Date.now() - 1_000), { expire: Date.now() - 1_000 });
    expect((await confirmOrder(id, client.key)).status).toBe(419);
    // The expiry's void fails once; in the next pass settle's lookup would find the charge.
    armFault(ORDER_SEAMS.walletVoid, { when: "before" });
    await drainTimers(id);

    const order = await storedOrder(id);
    expect(order.state).toBe("rejected");
    expect(order.invoiceStatus).toBe("void");
    const purse = wallet(client.id, "USD");
    const mine = (await purse.entries()).filter((entry) => entry.orderId === id);
    expect(mine.map((entry) => [entry.key, entry.amount])).toEqual([
      [chargeKey(id), "-10"],
      [voidKey(id), "10"],
    ]);
    expect(mine.reduce((net, entry) => net.plus(entry.amount), new Money(0)).isZero()).toBe(true);
    expect(await purse.balance()).toBe("100");
    expect(await purse.post({ key: chargeKey(id), kind: "order_charge", amount: "10", orderId: id })).toMatchObject({
      ok: false,
      code: "order_voided",
    });
    expect((await confirmOrder(id, client.key)).status).toBe(419);
  });
});

describe("a confirm that meets the wallet's void", () => {
  it("answers 419 and charges nothing, although the order still reads created and live", async () => {
    const client = await freshClient({ USD: "100" });
    const id = await newOrder(client.key);
    // Expiry runs at expiresAt: its void lands in the wallet, but the answer is lost with the instance.
    await rewriteStoredOrder(id, (doc) => (doc.expiresAt = Date.now() - 1_000), { expire: Date.now() - 1_000 });
    armFault(ORDER_SEAMS.walletVoid, { when: "after", reset: true });
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("created");
    const purse = wallet(client.id, "USD");
    expect(await purse.chargeStatus(id)).toMatchObject({ status: "voided" });
    // A void of an order never charged moves no money: it is no ledger entry.
    expect(await purse.entry(voidKey(id))).toBeNull();
    // The instance that answers the confirm reads a clock behind the one that ran expiry (an object can
    // move to another machine): by its clock expiresAt is still a minute away, so only the wallet knows.
    await rewriteStoredOrder(id, (doc) => (doc.expiresAt = Date.now() + 60_000));

    const confirm = await confirmOrder(id, client.key);
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(419);
    expect(confirm.body.code).toBe("order_expired");
    expect(await purse.entry(chargeKey(id))).toBeNull();
    expect(await purse.balance()).toBe("100");
    const order = await storedOrder(id);
    expect(order).toMatchObject({ state: "created", chargeIntentAt: null, invoiceStatus: "unpaid" });
    expect(await timerKinds(id)).toEqual(["index", "expire"]);
  });
});

describe("settling a confirm whose order the wallet has voided since", () => {
  it("treats the void as final: the order is rejected, hands out no codes, and the wallet neither loses nor gains", async () => {
    const client = await freshClient({ USD: "100" });
    const id = await newOrder(client.key);
    // The charge lands, its reply is lost and the instance dies: the order stays created, with its intent.
    armFault(ORDER_SEAMS.walletCharge, { when: "after", reset: true });
    expect((await confirmOrder(id, client.key)).status).toBe(500);
    expect(await timerKinds(id)).toEqual(["index", "settle", "expire"]);
    // Expiry runs first (its timer is the earliest): the wallet voids the order, crediting the charge back,
    // and the instance dies before it stores `rejected`.
    await rewriteStoredOrder(id, (doc) => (doc.expiresAt = Date.now() - 1_000), { expire: Date.now() - 1_000 });
    armFault(ORDER_SEAMS.walletVoid, { when: "after", reset: true });
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    expect((await storedOrder(id)).state).toBe("created");
    const purse = wallet(client.id, "USD");
    expect(await purse.balance()).toBe("100");
    // The object restarts on a clock that reads before expiresAt, and the settle timer is the one due.
    await rewriteStoredOrder(id, (doc) => (doc.expiresAt = Date.now() + 60_000), {
      settle: Date.now() - 1,
      expire: Date.now() + 60_000,
    });
    expect(await runDurableObjectAlarm(orderStub(id))).toBe(true);
    await drainTimers(id);

    const order = await storedOrder(id);
    expect(order).toMatchObject({ state: "rejected", invoiceStatus: "void", chargeIntentAt: null });
    expect(order.lines.map((orderLine) => [orderLine.status, orderLine.redeem])).toEqual([["pending", null]]);
    const view = (await getOrder(id, client.key)).body.data;
    expect(view.state).toBe("rejected");
    expect(view.redeem ?? {}).toEqual({});
    const mine = (await purse.entries()).filter((entry) => entry.orderId === id);
    expect(mine.map((entry) => [entry.key, entry.amount])).toEqual([
      [chargeKey(id), "-10"],
      [voidKey(id), "10"],
    ]);
    expect(await purse.balance()).toBe("100");
    const audit = await purse.audit();
    expect(audit.balance).toBe(audit.ledgerSum);
  });
});
