/**
 * Examples of the reconciliation routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

const ORDER_ID = "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e";

export const RECONCILIATION_EXAMPLE = {
  createdFrom: 1795258679774,
  createdTo: 1795345079774,
  complete: true,
  checked: {
    days: 14,
    sealedDays: 13,
    orders: 2,
    ordersPastBound: 0,
    wallets: 1,
    walletObjects: 13,
    ledgerEntries: 240,
    postingAudits: 4,
    soldCodes: 96,
    transfers: 0,
    leftToNextRun: 3,
    handedOut: 0,
  },
  mismatches: [
    {
      check: "ledger_matches_order" as const,
      orderId: ORDER_ID,
      clientId: "acme",
      problem: "the ledger refunded 5, the order says 0 (successful)",
      lookAt: [`/admin/orders/${ORDER_ID}`, "/admin/wallets/acme/USD/ledger"],
    },
  ],
  alerts: [] as string[],
};

export const reconciliationExamples = {
  adminReconcile: { data: RECONCILIATION_EXAMPLE },
} satisfies Record<string, RouteExample>;
