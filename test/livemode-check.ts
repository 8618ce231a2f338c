/**
 * `livemode` of an order's create and retrieve answers and of its stored webhook event, read the way a
 * client reads them: shared by test/sandbox (false) and test/live (true).
 */
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { WebhookMessage } from "../src/webhooks/events";
import { OrderStore } from "../src/orders/order-store";
import { call, line, orderStub } from "./helpers";
import { drainTimers, uid } from "./order-helpers";

export async function expectLivemode(key: string, livemode: boolean): Promise<void> {
  const created = await call("POST", "/order/create", {
    key,
    body: {
      productList: [line("DEMO-US-RANGE", 10)],
      wallet: "USD",
      reference: uid("lm"),
      webhookUrl: "http://127.0.0.1:9797/hooks",
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  // Appended: the interface's fields keep their order.
  expect(Object.keys(created.body.data)).toEqual([
    "id",
    "exchangeRates",
    "invoice",
    "retailInvoice",
    "expiresAt",
    "livemode",
  ]);
  expect(created.body.data.livemode).toBe(livemode);
  const orderId: string = created.body.data.id;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await drainTimers(orderId);
  const got = await call("GET", `/order/get?orderId=${orderId}`, { key });
  expect(got.body.data.state).toBe("successful");
  expect(Object.keys(got.body.data)).toEqual([
    "uid",
    "state",
    "products",
    "exchangeRates",
    "invoice",
    "createdDate",
    "modifiedDate",
    "redeem",
    "reference",
    "livemode",
  ]);
  expect(got.body.data.livemode).toBe(livemode);
  const events = await runInDurableObject(orderStub(orderId), (_instance, state) =>
    new OrderStore(state.storage).outbox().map((entry) => (JSON.parse(entry.message) as WebhookMessage).event),
  );
  expect(events.map((event) => [event.type, event.livemode])).toEqual([
    ["order.confirmed", livemode],
    ["order.successful", livemode],
  ]);
}
