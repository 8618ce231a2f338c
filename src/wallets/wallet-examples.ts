/**
 * Examples of the wallet routes (client and operator) in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

/** A wallet's ledger as GET …/export answers it, and as POST …/restore takes it back. */
const ledgerExport = {
  format: "order-service/wallet-ledger/1",
  clientId: "acme",
  currency: "USD",
  exportedAt: 1795345079700,
  wallet: { generation: 0, region: "apac" },
  balance: "487.5",
  entries: [
    {
      seq: 1,
      key: "top-up:acme-topup-2026-11-22",
      kind: "top_up",
      amount: "500",
      balanceAfter: "500",
      orderId: null,
      reason: "Bank transfer 2026-11-22",
      createdAt: 1795345079600
    },
    {
      seq: 2,
      key: "adjustment:acme-adjust-2026-11-22",
      kind: "adjustment",
      amount: "-12.5",
      balanceAfter: "487.5",
      orderId: null,
      reason: "Bank fee charged back",
      createdAt: 1795345079650
    }
  ],
  voids: []
};

export const walletExamples = {
  listWallets: {
    data: {
      wallets: [
        {
          currency: "EUR",
          balance: 0
        },
        {
          currency: "USD",
          balance: 938.98
        }
      ]
    }
  },
  adminTopUpWallet: {
    request: {
      amount: "500.00",
      idempotencyKey: "acme-topup-2026-11-22",
      reason: "Bank transfer 2026-11-22"
    },
    data: {
      clientId: "acme",
      currency: "USD",
      balance: 500,
      entry: {
        seq: 1,
        key: "top-up:acme-topup-2026-11-22",
        kind: "top_up",
        amount: 500,
        balanceAfter: 500,
        orderId: null,
        reason: "Bank transfer 2026-11-22",
        createdAt: 1795345079600,
        wallet: { generation: 0, region: "apac" }
      },
      replayed: false
    }
  },
  adminAdjustWallet: {
    request: {
      amount: "-12.50",
      idempotencyKey: "acme-adjust-2026-11-22",
      reason: "Bank fee charged back"
    },
    data: {
      clientId: "acme",
      currency: "USD",
      balance: 487.5,
      entry: {
        seq: 2,
        key: "adjustment:acme-adjust-2026-11-22",
        kind: "adjustment",
        amount: -12.5,
        balanceAfter: 487.5,
        orderId: null,
        reason: "Bank fee charged back",
        createdAt: 1795345079654,
        wallet: { generation: 0, region: "apac" }
      },
      replayed: false
    }
  },
  adminGetWallet: {
    data: {
      clientId: "acme",
      currency: "USD",
      balance: 487.5
    }
  },
  adminGetLedger: {
    data: {
      clientId: "acme",
      currency: "USD",
      entries: [
        {
          seq: 1,
          key: "top-up:acme-topup-2026-11-22",
          kind: "top_up",
          amount: 500,
          balanceAfter: 500,
          orderId: null,
          reason: "Bank transfer 2026-11-22",
          createdAt: 1795345079600,
          wallet: { generation: 0, region: "apac" }
        }
      ],
      next: 1
    }
  },
  adminExportLedger: {
    data: ledgerExport
  },
  adminRestoreLedger: {
    request: ledgerExport,
    data: {
      clientId: "acme",
      currency: "USD",
      entries: 2,
      balance: "487.5",
      replayed: false
    }
  },
} satisfies Record<string, RouteExample>;
