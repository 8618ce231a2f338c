/**
 * Examples of the sandbox helpers in GET /openapi.json, derived from one fixture through the views the
 * helpers answer with: a top-up of the demo client's USD wallet (topUpView), an order of the demo's US gift
 * card created and expired at once (planned by the service's own plan and shown as GET /order/get shows it,
 * orderView), and a test webhook a receiver took (exampleEvent, testWebhookView).
 * test/openapi/examples.test.ts sends the same requests and checks each example against the real answer,
 * value for value but for ids and times.
 */
import { DEMO_PRODUCTS } from "../catalogue/catalogue-examples";
import type { CatalogueSnapshot } from "../catalogue/catalogue-store";
import type { RouteExample } from "../http/route";
import { planOrder } from "../orders/order-plan";
import type { OrderRecord } from "../orders/order-record";
import { orderView } from "../orders/order-view";
import type { CreateOrderRequest } from "../orders/requests";
import { Money } from "../pricing/money";
import { exampleEvent, testWebhookView, topUpView } from "./sandbox-rules";

/** The fixture: the demo client's top-up of its USD wallet, as sent, and the wallet's balance before it. */
export const EXAMPLE_TOP_UP = { amount: "250.00", idempotencyKey: "sbx-top-up-2026-11-25-1" };
export const EXAMPLE_BALANCE_BEFORE = "1000";

/** The order the client then creates and expires at once: one demo US gift card of 25 USD (the demo seed's). */
export const EXAMPLE_EXPIRED_CREATE: CreateOrderRequest = {
  productList: [{ sku: "DEMO-US-RANGE", productType: "range", quote: 25, quantity: 1 }],
  wallet: "USD",
  reference: "po-2026-0043",
};
const DEMO_US_RANGE = DEMO_PRODUCTS.find(({ sku }) => sku === "DEMO-US-RANGE")!;
const CATALOGUE: CatalogueSnapshot = {
  products: new Map([[DEMO_US_RANGE.sku, DEMO_US_RANGE]]),
  walletCurrencies: new Set(["USD"]),
  walletRegions: new Map(),
  walletGenerations: new Map(),
  rates: new Map(),
  deals: new Map(),
};
const plan = planOrder(EXAMPLE_EXPIRED_CREATE, CATALOGUE);
if (!plan.ok) throw new Error(`the sandbox's example order does not price: ${plan.code}`);
const CREATED_AT = 1795615051174;
/** The order as its expiry leaves it: rejected, its charge void. */
const expired: OrderRecord = {
  id: "ord_717b9507ea6dea4ac169004549cf8d66d76c21e47d70798c656d9b3a5d54c27f",
  clientId: "demo",
  reference: EXAMPLE_EXPIRED_CREATE.reference,
  // Not shown by any view.
  requestHash: "",
  webhookUrl: null,
  wallet: EXAMPLE_EXPIRED_CREATE.wallet,
  state: "rejected",
  createdAt: CREATED_AT,
  modifiedAt: CREATED_AT + 69,
  expiresAt: CREATED_AT + 600_000,
  lines: plan.lines,
  rates: plan.rates,
  charge: plan.charge,
  retailCharge: plan.retailCharge,
  invoiceStatus: "void",
  chargeIntentAt: null,
};

/** The test webhook, as sent, and the event it sent, which the receiver took with a 200. */
const testWebhook = { type: "order.partial", url: "https://hooks.example.com/orders" } as const;
const event = exampleEvent(testWebhook.type, {
  id: "evt_5d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a",
  orderId: "ord_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
  createdAt: 1795351330123,
});

export const sandboxExamples = {
  sandboxTopUp: {
    request: EXAMPLE_TOP_UP,
    data: topUpView("USD", {
      amount: EXAMPLE_TOP_UP.amount,
      balance: new Money(EXAMPLE_BALANCE_BEFORE).plus(EXAMPLE_TOP_UP.amount),
      key: EXAMPLE_TOP_UP.idempotencyKey,
      replayed: false,
    }),
  },
  sandboxExpireOrder: { data: orderView(expired, false) },
  sandboxTestWebhook: {
    request: testWebhook,
    data: testWebhookView(event, { delivered: true, status: 200, error: null }),
  },
} satisfies Record<string, RouteExample>;
