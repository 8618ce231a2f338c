/**
 * Issue 44's "Done when", as a reseller's developer tries it: they register an account endpoint, and
 * receive wallet.low once as two concurrent charges take their balance below the threshold, wallet.funded
 * with the note (never the reason) when the operator tops them up, and every order's events though no
 * order names a webhookUrl; GET /events lists the same events. The Queue, its consumer and the wallet's
 * and the books' alarms run for real; the receiver listens on 127.0.0.1 (a stub of fetch) and checks
 * every signature with the endpoint's secret.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { call, line, seedDemo, wallet } from "../helpers";
import { drainTimers, freshClient, indexNow } from "../order-helpers";
import { FakeReceiver } from "./receiver";

beforeAll(seedDemo);

let receiver: FakeReceiver | null = null;
afterEach(() => {
  receiver?.restore();
  receiver = null;
});

/** Waits until the receiver has taken `count` events (the Queue batches for up to a second). */
async function received(count: number): Promise<Map<string, any>> {
  for (let wait = 0; wait < 150 && receiver!.events.size < count; wait += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return receiver!.events as Map<string, any>;
}

describe("account events end to end", () => {
  it("delivers wallet.low once, wallet.funded with its note, and every order's events; GET /events agrees", async () => {
    const { id, key } = await freshClient({ USD: "100" });
    const made = await call("POST", "/webhook-endpoints", {
      key,
      body: {
        url: "http://127.0.0.1:9797/hooks/account",
        eventTypes: ["order.confirmed", "order.successful", "wallet.low", "wallet.funded"],
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    receiver = new FakeReceiver({ secret: made.body.data.endpoint.secret });
    expect((await call("PUT", "/wallets/USD/alert", { key, body: { threshold: "50" } })).status).toBe(200);

    // Two orders confirmed at once: 100 → 70 → 40 crosses 50 once.
    const orders = await Promise.all(
      ["e2e-1", "e2e-2"].map(async (reference) => {
        const created = await call("POST", "/order/create", {
          key,
          body: { productList: [line("DEMO-US-RANGE", 30)], wallet: "USD", reference },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        return created.body.data.id as string;
      }),
    );
    const confirmed = await Promise.all(
      orders.map((orderId) => call("PUT", "/order/confirm", { key, body: { orderId } })),
    );
    expect(confirmed.map((answer) => answer.status)).toEqual([200, 200]);
    for (const orderId of orders) await drainTimers(orderId);
    await indexNow(...orders);

    const topUp = await admin("POST", `/admin/wallets/${id}/USD/top-ups`, {
      amount: "500",
      idempotencyKey: `e2e-${id}`,
      reason: "internal: paid by wire, ticket 4411",
      note: "Thanks for your payment",
    });
    expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);
    await runDurableObjectAlarm(wallet(id, "USD"));

    // 2 orders × (confirmed, successful) + wallet.low + wallet.funded.
    const events = [...(await received(6)).values()];
    expect(receiver.deliveries.every((delivery) => delivery.signatureValid)).toBe(true);
    const types = events.map((event) => event.type).sort();
    expect(types).toEqual([
      "order.confirmed",
      "order.confirmed",
      "order.successful",
      "order.successful",
      "wallet.funded",
      "wallet.low",
    ]);
    const low = events.find((event) => event.type === "wallet.low");
    expect(low.data).toEqual({ currency: "USD", balance: "40", threshold: "50" });
    const funded = events.find((event) => event.type === "wallet.funded");
    expect(funded.data).toEqual({ currency: "USD", amount: "500", balance: "540", note: "Thanks for your payment" });
    expect(JSON.stringify(events)).not.toContain("ticket 4411");
    expect(
      new Set(events.filter((event) => event.type.startsWith("order.")).map((event) => event.data.orderId)),
    ).toEqual(new Set(orders));

    // The same events, newest first, through GET /events.
    const listed = (await call("GET", "/events", { key })).body.data.events;
    expect([...listed].sort((a: any, b: any) => a.id.localeCompare(b.id))).toEqual(
      [...events].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });
});
