/**
 * Examples of the order lists, the export and the reconciliation in GET /openapi.json: the shape of real
 * answers (test/openapi/examples.test.ts checks each against a real answer).
 */
import type { RouteExample } from "../http/route";

const summary = {
  id: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
  reference: "po-2026-0042",
  state: "successful",
  wallet: "USD",
  total: 61.02,
  createdAt: 1795345078620,
  modifiedAt: 1795345078911,
  expiresAt: 1795345678620,
  skus: ["DEMO-EU-FIXED", "DEMO-JP-RANGE"],
};

export const orderListExamples = {
  listOrders: {
    data: {
      orders: [summary],
      next: null,
    },
  },
  adminListOrders: {
    data: {
      orders: [{ ...summary, clientId: "demo", charged: 61.02, refunded: 0 }],
      next: null,
    },
  },
  adminExportOrders: {
    data: null,
    csv:
      "id,clientId,reference,state,wallet,total,charged,refunded,createdAt,modifiedAt,expiresAt,skus\r\n" +
      "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e,demo,po-2026-0042,successful,USD,61.02,61.02,0,2026-11-23T10:17:58.620Z,2026-11-23T10:17:58.911Z,2026-11-23T10:27:58.620Z,DEMO-EU-FIXED DEMO-JP-RANGE\r\n",
  },
  adminReconcile: {
    data: {
      createdFrom: 1795258678620,
      createdTo: 1795345078620,
      checked: { wallets: 2, ledgerMovements: 1, indexedOrders: 1, soldCodes: 2 },
      mismatches: [
        {
          check: "index_matches_ledger",
          orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
          clientId: "demo",
          problem: "successful: the ledger nets 0, the index's charge minus refunds is 61.02",
          lookAt: "GET /admin/orders/ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e and the wallet's ledger",
        },
      ],
    },
  },
  adminBackfillIndex: { data: { wallets: 2, orders: 14, written: 3 } },
} satisfies Record<string, RouteExample>;
