/**
 * Examples of the order routes and the operator order routes in GET /openapi.json, derived from one fixture:
 * the create request below, priced against the demo catalogue by the service's own plan (planOrder) and
 * shown through its own views (createView, confirmView, orderView, adminOrderView), as the order is at
 * create and once it is successful. test/openapi/examples.test.ts checks that each example has the shape
 * of a real answer and equals it value for value but for ids, times and codes.
 */
import type { CatalogueProduct } from "../catalogue/catalogue-schemas";
import { rateKey, type CatalogueSnapshot } from "../catalogue/catalogue-store";
import type { RouteExample } from "../http/route";
import type { ExchangeRate } from "../pricing/exchange";
import { planOrder } from "./order-plan";
import type { LineRedeem, OrderRecord } from "./order-record";
import { adminOrderView, confirmView, createView, orderView } from "./order-view";
import type { CreateOrderRequest } from "./requests";

/** The fixture: a client's create, as sent. */
export const EXAMPLE_CREATE: CreateOrderRequest = {
  productList: [
    { sku: "DEMO-EU-FIXED", productType: "fixed", quote: 25, quantity: 2 },
    { sku: "DEMO-JP-RANGE", productType: "range", quote: 1000, quantity: 1 },
  ],
  wallet: "USD",
  reference: "po-2026-0042",
};

/** What the order was created and fulfilled with: the demo seed's SKUs and rates (schema/seed/demo.sql). */
const SEEDED_AT = 1767225600000;
const product = (fields: Omit<CatalogueProduct, "supplierConfig" | "active">): [string, CatalogueProduct] => [
  fields.sku,
  { ...fields, supplierConfig: {}, active: true },
];
const rate = (targetCurrency: string, value: string): [string, ExchangeRate] => [
  rateKey("USD", targetCurrency),
  { baseCurrency: "USD", targetCurrency, rate: value, modifiedAt: SEEDED_AT },
];
const DEMO_CATALOGUE: CatalogueSnapshot = {
  products: new Map([
    product({
      sku: "DEMO-EU-FIXED",
      name: "Demo EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: ["10", "25", "50"],
      minQuote: null,
      maxQuote: null,
      supplier: "inventory",
    }),
    product({
      sku: "DEMO-JP-RANGE",
      name: "Demo Japan top-up",
      productType: "range",
      currency: "JPY",
      country: "JP",
      region: "Asia",
      quotes: null,
      minQuote: "1000",
      maxQuote: "50000",
      supplier: "sandbox",
    }),
  ]),
  walletCurrencies: new Set(["USD", "EUR"]),
  walletRegions: new Map(),
  walletGenerations: new Map(),
  rates: new Map([rate("EUR", "0.92"), rate("JPY", "150")]),
  deals: new Map(),
};

const ORDER_ID = "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e";
const CREATED_AT = 1795345078500;
/** ORDER_TTL_SECONDS as deployed: 10 minutes. */
const EXPIRES_AT = CREATED_AT + 600_000;
/** sha256 of the create as its idempotency compares it (canonicalCreateRequest); pinned by a test. */
export const EXAMPLE_REQUEST_HASH = "9cc52dc751632d8010a0ade3f6f1061607965f40b35a384592735bc2fda6aeee";

const plan = planOrder(EXAMPLE_CREATE, DEMO_CATALOGUE);
if (!plan.ok) throw new Error(`the example order does not price: ${plan.code}`);

/** The order as create stores it. */
const created: OrderRecord = {
  id: ORDER_ID,
  clientId: "demo",
  reference: EXAMPLE_CREATE.reference,
  requestHash: EXAMPLE_REQUEST_HASH,
  webhookUrl: EXAMPLE_CREATE.webhookUrl ?? null,
  wallet: EXAMPLE_CREATE.wallet,
  state: "created",
  createdAt: CREATED_AT,
  modifiedAt: CREATED_AT,
  expiresAt: EXPIRES_AT,
  lines: plan.lines,
  rates: plan.rates,
  charge: plan.charge,
  retailCharge: plan.retailCharge,
  invoiceStatus: "unpaid",
  chargeIntentAt: null,
};

/** The codes each line's supplier handed over: the seed's first two EU codes, one sandbox code. */
const SANDBOX_PIN = "SBX-0DEA1-85569-96C12-DFF0A";
const ISSUED: Record<string, LineRedeem> = {
  "DEMO-EU-FIXED": {
    pins: ["DEMO-EU-25-0001", "DEMO-EU-25-0002"],
    links: ["https://redeem.example.com/eu/DEMO-EU-25-0001", "https://redeem.example.com/eu/DEMO-EU-25-0002"],
    currency: "EUR",
    value: "25",
  },
  "DEMO-JP-RANGE": {
    pins: [SANDBOX_PIN],
    links: [`https://redeem.example.com/sandbox/${SANDBOX_PIN}`],
    currency: "JPY",
    value: "1000",
  },
};

/** The same order confirmed, charged and fulfilled 120 ms later. */
const successful: OrderRecord = {
  ...created,
  state: "successful",
  modifiedAt: CREATED_AT + 120,
  invoiceStatus: "paid",
  lines: created.lines.map(
    (line) => ({ ...line, status: "fulfilled", attempts: 1, redeem: ISSUED[line.sku]! }) as const,
  ),
};

/** The successful order, which the order index's examples list (src/order-index/order-search-examples.ts). */
export const EXAMPLE_SUCCESSFUL = successful;

/** The examples are of the sandbox, where the suites and `npm start` run. */
const LIVEMODE = false;
const adminOrderData = adminOrderView(successful, LIVEMODE);

export const orderExamples = {
  createOrder: { request: EXAMPLE_CREATE, data: createView(created, LIVEMODE) },
  confirmOrder: { request: { orderId: ORDER_ID }, data: confirmView(created) },
  getOrder: { data: orderView(successful, LIVEMODE) },
  adminFindOrder: { data: adminOrderData },
  adminGetOrder: { data: adminOrderData },
  adminListStuckOrders: {
    data: {
      orders: [
        {
          orderId: ORDER_ID,
          clientId: "demo",
          timer: "process",
          skus: [],
          failures: 4,
          lastError: "D1_ERROR: Network connection lost.",
          firstFailedAt: successful.modifiedAt,
          lastFailedAt: successful.modifiedAt + 14_000,
          nextAttemptAt: successful.modifiedAt + 30_000,
        },
      ],
      next: null,
    },
  },
} satisfies Record<string, RouteExample>;
