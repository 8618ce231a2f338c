/**
 * Examples of the Needs attention and threshold routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";
import { RECONCILIATION_EXAMPLE } from "../reconciliation/reconciliation-examples";

export const attentionExamples = {
  adminGetAttention: {
    data: {
      // The sandbox's answer (live lists the operators made this week: NewOperatorView).
      newOperators: [],
      stuckOrders: {
        orders: [
          {
            orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
            clientId: "acme",
            timer: "outbox",
            skus: [],
            failures: 4,
            lastError: "Queue send failed",
            firstFailedAt: 1795345079774,
            lastFailedAt: 1795345093774,
            nextAttemptAt: 1795345109774,
          },
        ],
        more: false,
      },
      failedOrders: {
        orders: [
          {
            clientId: "acme",
            orderId: "ord_5b0c1f4e2a9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
            createdAt: 1795345071210,
            state: "partial",
            wallet: "USD",
            reference: "po-2026-0142",
            lines: [{ sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: 2.5 }],
            foundAt: 1795345075402,
          },
        ],
        more: false,
      },
      deadLetters: {
        deadLetters: [
          {
            id: 1,
            eventId: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
            clientId: "acme",
            url: "https://hooks.acme.test/orders",
            message: {
              clientId: "acme",
              url: "https://hooks.acme.test/orders",
              event: {
                id: "evt_4f1c2a9b8e7d4c3a9b1e2f3a4b5c6d7e",
                type: "order.successful",
                createdAt: 1795345079774,
                data: { orderId: "ord_1", state: "successful", reference: "po-2026-0042" },
              },
            },
            attempts: 8,
            lastError: "HTTP 503",
            failedAt: 1795345079774,
            replayedAt: null,
          },
        ],
        more: false,
      },
      lowStock: [
        {
          sku: "EU-VOUCHER",
          name: "EU voucher",
          threshold: 20,
          available: 12,
          byValue: [
            { value: 10, available: 12 },
            { value: 25, available: 0 },
          ],
        },
      ],
      lowBalance: [{ clientId: "acme", currency: "USD", threshold: 250, balance: 120.5 }],
      reconciliation: {
        ranAt: 1795345080112,
        createdFrom: RECONCILIATION_EXAMPLE.createdFrom,
        createdTo: RECONCILIATION_EXAMPLE.createdTo,
        checked: RECONCILIATION_EXAMPLE.checked,
        mismatchCount: 1,
        mismatches: RECONCILIATION_EXAMPLE.mismatches,
        alerts: [],
      },
    },
  },
  adminSetStockThreshold: { request: { threshold: 20 }, data: { sku: "EU-VOUCHER", threshold: 20, available: 12 } },
  adminSetWalletThreshold: {
    request: { threshold: "250.00" },
    data: { clientId: "acme", currency: "USD", threshold: 250, balance: 120.5 },
  },
} satisfies Record<string, RouteExample>;
