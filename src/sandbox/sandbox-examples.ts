/**
 * Examples of the sandbox helpers in GET /openapi.json: real answers of a test run (test/openapi/examples.test.ts
 * checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const sandboxExamples = {
  sandboxTopUp: {
    request: { amount: "250.00", idempotencyKey: "sbx-top-up-2026-11-25-1" },
    data: { currency: "USD", amount: 250, balance: 1250, idempotencyKey: "sbx-top-up-2026-11-25-1", replayed: false },
  },
  sandboxExpireOrder: {
    data: {
      uid: "ord_717b9507ea6dea4ac169004549cf8d66d76c21e47d70798c656d9b3a5d54c27f",
      state: "rejected",
      products: {
        "DEMO-US-RANGE": {
          request: {
            quote: 25,
            quantity: 1,
          },
          customerDeal: {
            dealState: "none",
            fee: {
              amount: 0,
              adjustmentMode: "fixed",
            },
            discount: {
              amount: 0,
              adjustmentMode: "fixed",
            },
          },
          sku: "DEMO-US-RANGE",
          shopItem: {
            country: "US",
            quote: 25,
            name: "Demo US gift card",
            region: "North America",
            productType: "range",
            baseCurrency: "USD",
          },
        },
      },
      exchangeRates: [],
      invoice: {
        total: 25,
        wallet: "USD",
        records: [
          {
            total: {
              USD: 25,
            },
            sku: "DEMO-US-RANGE",
            items: [
              {
                type: "main-product",
                description: "1 \u00d7 Demo US gift card at 25 USD",
                effect: {
                  amount: 25,
                  currency: "USD",
                },
                metaData: {
                  quantity: 1,
                  quote: 25,
                },
              },
            ],
          },
        ],
        paymentMethod: "wallet",
        status: "void",
      },
      createdDate: {
        _seconds: 1795615051,
        _nanoseconds: 174000000,
      },
      modifiedDate: {
        _seconds: 1795615051,
        _nanoseconds: 243000000,
      },
      redeem: {},
      reference: "po-2026-0043",
      livemode: false,
    },
  },
  sandboxTestWebhook: {
    request: { type: "order.partial", url: "https://hooks.example.com/orders" },
    data: {
      event: {
        id: "evt_5d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4a",
        type: "order.partial",
        createdAt: 1795351330123,
        data: {
          orderId: "ord_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
          state: "partial",
          reference: "sandbox-test-webhook",
        },
        livemode: false,
      },
      delivered: true,
      status: 200,
      error: null,
    },
  },
} satisfies Record<string, RouteExample>;
