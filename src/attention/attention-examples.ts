/**
 * Examples of the Needs attention and threshold routes in GET /openapi.json, derived from one fixture: a
 * morning at Acme's, when an order's webhook could not be queued, another order ended partial, a webhook
 * went to the dead letters (the dead letters' own example), a voucher ran low and the wallet fell below
 * its threshold, each shown as the list shows it (attention.ts) and as setting its threshold answers it.
 * test/openapi/examples.test.ts checks that each has exactly the shape of a real answer.
 */
import type { BooksException } from "../books/exception-store";
import type { RouteExample } from "../http/route";
import type { TimerFailure } from "../orders/timer-failure-store";
import { RECONCILIATION_EXAMPLE } from "../reconciliation/reconciliation-examples";
import { deadLetterExamples } from "../webhooks/dead-letter-examples";
import { failedOrderOf, lowBalanceOf, lowStockOf, type Attention } from "./attention";

/** When the dead letter failed: the other parts of the morning are timed from it. */
const FAILED_AT = deadLetterExamples.adminListDeadLetters.data.deadLetters[0]!.failedAt;

/** An order whose outbox timer failed four times, 14 s apart in all, retried 30 s after the first. */
const stuck: TimerFailure = {
  orderId: "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e",
  clientId: "acme",
  timer: "outbox",
  skus: [],
  failures: 4,
  lastError: "Queue send failed",
  firstFailedAt: FAILED_AT,
  lastFailedAt: FAILED_AT + 14_000,
  nextAttemptAt: FAILED_AT + 30_000,
};

/** An order that ended partial a few seconds earlier: its one failing line, as the books keep it. */
const partial: BooksException = {
  clientId: "acme",
  orderId: "ord_5b0c1f4e2a9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
  createdAt: 1795345071210,
  state: "partial",
  wallet: "USD",
  reference: "po-2026-0142",
  lines: [{ sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: "2.50" }],
  foundAt: 1795345075402,
};

/** A fixed voucher of two values with 12 codes of the first left, below its threshold of 20. */
const voucher = {
  sku: "EU-VOUCHER",
  name: "EU voucher",
  supplier: "inventory",
  active: 1,
  quotes: JSON.stringify(["10", "25"]),
};
const STOCK_THRESHOLD = 20;
const lowStock = lowStockOf(voucher, STOCK_THRESHOLD, [{ sku: voucher.sku, value: "10", available: 12 }])!;

/** Acme's dollar wallet, below its threshold of 250 (given, and stored, as a decimal string). */
const walletThreshold = { client_id: "acme", currency: "USD", threshold: "250.00" };
const lowBalance = lowBalanceOf(walletThreshold, "120.50");

const { createdFrom, createdTo, checked, mismatches } = RECONCILIATION_EXAMPLE;

const attention: Attention = {
  // The sandbox's answer (live lists the operators made this week: NewOperatorView).
  newOperators: [],
  stuckOrders: { orders: [stuck], more: false },
  failedOrders: { orders: [failedOrderOf(partial)], more: false },
  deadLetters: { deadLetters: deadLetterExamples.adminListDeadLetters.data.deadLetters, more: false },
  lowStock: [lowStock],
  lowBalance: [lowBalance],
  // The last hourly run, which found the mismatch of the reconciliation's example.
  reconciliation: {
    ranAt: FAILED_AT + 338,
    createdFrom,
    createdTo,
    checked,
    mismatchCount: mismatches.length,
    mismatches,
    alerts: [],
  },
};

export const attentionExamples = {
  adminGetAttention: { data: attention },
  adminSetStockThreshold: {
    request: { threshold: STOCK_THRESHOLD },
    data: { sku: lowStock.sku, threshold: lowStock.threshold, available: lowStock.available },
  },
  adminSetWalletThreshold: {
    request: { threshold: walletThreshold.threshold },
    data: {
      clientId: lowBalance.clientId,
      currency: lowBalance.currency,
      threshold: lowBalance.threshold,
      balance: lowBalance.balance,
    },
  },
} satisfies Record<string, RouteExample>;
