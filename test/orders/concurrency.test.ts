/**
 * Concurrency: of many concurrent confirms of one order exactly one succeeds; racing
 * confirms of many orders on one wallet never take it below zero, debit exactly the paid orders, and keep
 * the balance equal to the sum of the ledger.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { Money } from "../../src/pricing/money";
import { balanceOf, confirmOrder, createOrder, getOrder, ledgerSumOf, line, orderStub, seedDemo } from "../helpers";
import { MESSAGES, expectError, expectOk, freshClient, ledgerOf, storedOrder } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

describe("50 racing confirms of one order", () => {
  it("exactly one 200, 49 × 409 Order already confirmed, one charge", async () => {
    const client = await freshClient({ USD: "1000" });
    const data = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 17.23, 3), line("DEMO-EU-FIXED", 10, 1)] }, client.key),
    );
    const charge = new Money(String(data.invoice.total));
    expect(charge.toFixed()).toBe("62.56"); // 51.69 + 10.87

    const results = await Promise.all(Array.from({ length: 50 }, () => confirmOrder(data.id, client.key)));
    const ok = results.filter((res) => res.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.data).toEqual({ id: data.id, state: "confirmed" });
    const rest = results.filter((res) => res.status !== 200);
    expect(rest).toHaveLength(49);
    for (const res of rest) expectError(res, 409, MESSAGES.alreadyConfirmed, "order_already_confirmed");

    const charges = (await ledgerOf(client.id, "USD")).filter((entry) => entry.kind === "order_charge");
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amount).toBe("-62.56");
    expect(await balanceOf(client.id, "USD")).toBe("937.44");
    expect(await ledgerSumOf(client.id, "USD")).toBe("937.44");
  });
});

describe("100 racing confirms of different orders on a wallet that can pay only some", () => {
  it("never below zero; debits == sum of the paid orders; the ledger sums to the balance", async () => {
    const START = "500";
    const client = await freshClient({ USD: START });
    // 100 orders of 5.00 … 14.99 USD each (≈ 1000 in all). Create checks only that the wallet covers
    // each order on its own, so all of them can be created while the wallet holds 500.
    const quotes = Array.from({ length: 100 }, (_, i) => Number((5 + (i % 10) + ((i * 37) % 100) / 100).toFixed(2)));
    const orders: { id: string; charge: Money }[] = [];
    for (let start = 0; start < quotes.length; start += 25) {
      const batch = await Promise.all(
        quotes
          .slice(start, start + 25)
          .map((quote) => createOrder({ productList: [line("DEMO-US-RANGE", quote, 1)] }, client.key)),
      );
      for (const res of batch) {
        const data = expectOk(res);
        orders.push({ id: data.id, charge: new Money(String(data.invoice.total)) });
      }
    }
    const totalAsked = orders.reduce((acc, order) => acc.plus(order.charge), new Money(0));
    expect(totalAsked.greaterThan(START)).toBe(true);
    expect(await balanceOf(client.id, "USD")).toBe(START);

    const results = await Promise.all(orders.map((order) => confirmOrder(order.id, client.key)));

    const paid = orders.filter((_, i) => results[i]!.status === 200);
    const refused = orders.filter((_, i) => results[i]!.status !== 200);
    for (const [i, res] of results.entries()) {
      if (res.status === 200) expect(res.body.data).toEqual({ id: orders[i]!.id, state: "confirmed" });
      else expectError(res, 400, MESSAGES.insufficient, "insufficient_funds");
    }
    expect(paid.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);

    const balance = new Money(await balanceOf(client.id, "USD"));
    expect(balance.isNegative()).toBe(false);
    const paidSum = paid.reduce((acc, order) => acc.plus(order.charge), new Money(0));
    expect(new Money(START).minus(balance).toFixed()).toBe(paidSum.toFixed());
    expect(await ledgerSumOf(client.id, "USD")).toBe(balance.toFixed());

    // The ledger: one charge per paid order, of exactly its amount; a running balance that never dips below zero.
    const entries = await ledgerOf(client.id, "USD");
    const charges = entries.filter((entry) => entry.kind === "order_charge");
    expect(charges).toHaveLength(paid.length);
    const paidById = new Map(paid.map((order) => [order.id, order.charge]));
    for (const entry of charges) expect(entry.amount).toBe(paidById.get(entry.orderId!)!.negated().toFixed());
    let running = new Money(0);
    for (const entry of entries) {
      running = running.plus(entry.amount);
      expect(entry.balanceAfter).toBe(running.toFixed());
      expect(new Money(entry.balanceAfter).isNegative()).toBe(false);
    }
    expect(entries.filter((entry) => !["top_up", "order_charge"].includes(entry.kind))).toEqual([]);

    // A refused order could not have been paid from what was left, and it is still created (payable later).
    for (const order of refused) expect(order.charge.greaterThan(balance)).toBe(true);
    const sample = refused.slice(0, 5);
    for (const order of sample) expect(expectOk(await getOrder(order.id, client.key)).state).toBe("created");
  });
});

describe("confirm racing the expiry alarm", () => {
  it("either confirmed and charged once, or rejected and not charged: never a 200 for an order that ends rejected", async () => {
    const client = await freshClient({ USD: "1000" });
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const data = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)] }, client.key));
      const before = new Money(await balanceOf(client.id, "USD"));
      const [confirm] = await Promise.all([
        confirmOrder(data.id, client.key),
        runDurableObjectAlarm(orderStub(data.id)),
      ]);
      const order = await storedOrder(data.id);
      const after = new Money(await balanceOf(client.id, "USD"));
      outcomes.push(`${confirm.status}:${order.state}`);
      if (confirm.status === 200) {
        expect(order.state, `confirm said 200 but the order is ${order.state}`).not.toBe("rejected");
        expect(before.minus(after).toFixed()).toBe("10");
      } else {
        expectError(confirm, 419, MESSAGES.expired);
        expect(order.state).toBe("rejected");
        expect(after.toFixed()).toBe(before.toFixed());
      }
    }
    expect(await ledgerSumOf(client.id, "USD")).toBe(await balanceOf(client.id, "USD"));
    expect(outcomes.length).toBe(10);
  });
});
