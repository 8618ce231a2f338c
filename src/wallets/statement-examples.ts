/**
 * Examples of the client's ledger and statement in GET /openapi.json: the shape of real answers
 * (test/openapi/examples.test.ts checks them against real answers).
 */
import type { RouteExample } from "../http/route";

export const statementExamples = {
  getLedger: {
    data: {
      clientId: "demo",
      currency: "USD",
      entries: [
        {
          seq: 2,
          key: "charge:ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
          kind: "order_charge",
          amount: -61.02,
          balanceAfter: 99938.98,
          orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
          reason: "order po-2026-0042",
          createdAt: 1795345078700,
        },
      ],
      next: null,
    },
  },
  getStatement: {
    data: null,
    csv:
      "row,time,kind,orderId,reference,reason,amount,balanceAfter,currency\r\n" +
      "opening,2026-11-01T00:00:00.000Z,,,,,,100000.00,USD\r\n" +
      "movement,2026-11-23T10:17:58.700Z,order_charge,ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e,po-2026-0042,order po-2026-0042,-61.02,99938.98,USD\r\n" +
      "closing,2026-11-30T23:59:59.999Z,,,,,,99938.98,USD\r\n",
  },
} satisfies Record<string, RouteExample>;
