/**
 * Examples of the reconciliation routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

const ORDER_ID = "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e";

export const RECONCILIATION_EXAMPLE = {
  createdFrom: 1795258679774,
  createdTo: 1795345079774,
  checked: {
    wallets: 12,
    walletObjects: 13,
    ledgerMovements: 240,
    ordersOfMovements: 180,
    openOrders: 2,
    indexedOrders: 178,
    endedOrders: 178,
    soldCodes: 96,
    leftToNextRun: 3,
  },
  mismatches: [
    {
      check: "ledger_matches_index",
      orderId: ORDER_ID,
      clientId: "acme",
      problem: "the ledger refunded 5, the index says 0 (successful)",
      lookAt: [`/admin/orders/${ORDER_ID}`, "/admin/wallets/acme/USD/ledger"],
    },
  ],
};

export const reconciliationExamples = {
  adminReconcile: { data: RECONCILIATION_EXAMPLE },
} satisfies Record<string, RouteExample>;
