/**
 * Examples of the wallet routes (client and operator) in GET /openapi.json, derived from one fixture: an
 * operator's top-up and adjustment of one wallet, chained into its ledger and shown as the routes show
 * it (ledgerEntryView, with the wallet object each entry is in; an export keeps the stored decimal strings). test/openapi/examples.test.ts checks
 * that each has exactly the shape of a real answer.
 */
import type { RouteExample } from "../http/route";
import { Money, toAmountNumber } from "../pricing/money";
import type { AdjustmentRequest, TopUpRequest } from "./wallet-admin-schemas";
import { LEDGER_EXPORT_FORMAT, type LedgerExport } from "./ledger-backup";
import { ledgerEntryView, type LedgerEntry } from "./ledger";
import { adjustmentKey, chargeKey, refundKey, topUpKey } from "./ledger-keys";
import type { Movement } from "./wallet-history";
import { balanceLine, movementView, statementCsvLine, STATEMENT_CSV_COLUMNS } from "./wallet-statement";
import { csvLine } from "../kernel/csv-export";

const wallet = { clientId: "acme", currency: "USD" };
/** The wallet's object: its first (never moved), in the client's region. */
const placement = { generation: 0, region: "apac" as const };
const topUp: TopUpRequest = {
  amount: "500.00",
  idempotencyKey: "acme-topup-2026-11-22",
  reason: "Bank transfer 2026-11-22, ref 88120, matched by Rita",
  note: "Bank transfer 2026-11-22",
};
const adjustment: AdjustmentRequest = {
  amount: "-12.50",
  idempotencyKey: "acme-adjust-2026-11-22",
  reason: "Bank fee charged back",
};

/** The wallet's ledger after the two postings, each balance the one before plus the amount. */
const postings = [
  { key: topUpKey(topUp.idempotencyKey), kind: "top_up", request: topUp, createdAt: 1795345079600 },
  { key: adjustmentKey(adjustment.idempotencyKey), kind: "adjustment", request: adjustment, createdAt: 1795345079650 },
] as const;
const entries: LedgerEntry[] = [];
for (const [index, { key, kind, request, createdAt }] of postings.entries()) {
  const before = entries.at(-1)?.balanceAfter ?? "0";
  const amount = new Money(request.amount);
  entries.push({
    seq: index + 1,
    key,
    kind,
    amount: amount.toFixed(),
    balanceAfter: amount.plus(before).toFixed(),
    orderId: null,
    reason: request.reason,
    createdAt,
    note: request.note ?? null,
  });
}
const [topUpEntry, adjustmentEntry] = entries as [LedgerEntry, LedgerEntry];
const balance = adjustmentEntry.balanceAfter;

/** A wallet's ledger as GET …/export answers it, and as POST …/restore takes it back. */
const ledgerExport: LedgerExport = {
  format: LEDGER_EXPORT_FORMAT,
  deployment: "order-service",
  mode: "live",
  ...wallet,
  exportedAt: adjustmentEntry.createdAt + 50,
  wallet: placement,
  balance,
  entries,
  voids: [],
  // The shape of a signature (its value depends on the deployment's LEDGER_EXPORT_KEY).
  signature: "v2,3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
};

/** An entry as the operator routes show it: with the wallet object it is in. */
const placedView = (entry: LedgerEntry) => ({ ...ledgerEntryView(entry), wallet: placement });

const posted = (entry: LedgerEntry) => ({
  ...wallet,
  balance: toAmountNumber(entry.balanceAfter),
  entry: placedView(entry),
  request: null,
  replayed: false,
});

/**
 * The client's view of the same wallet, later: the two postings, then an order of two lines confirmed
 * (charged) and one of its lines refunded, each movement's balance the one before plus its amount.
 */
const ORDER_ID = "ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e";
const REFERENCE = "po-2026-0042";
const orderMovements = [
  { key: chargeKey(ORDER_ID), kind: "order_charge", amount: "-56.38", sku: null, createdAt: 1795351200000 },
  {
    key: refundKey(ORDER_ID, "DEMO-EU-FIXED"),
    kind: "order_refund",
    amount: "27.19",
    sku: "DEMO-EU-FIXED",
    createdAt: 1795351203100,
  },
] as const;
const clientMovements: Movement[] = entries.map((entry) => ({
  position: entry.seq,
  createdAt: entry.createdAt,
  kind: entry.kind as "top_up" | "adjustment",
  amount: entry.amount,
  balanceAfter: entry.balanceAfter,
  orderId: null,
  reference: null,
  sku: null,
  // The client sees the note written for it, never the operator's reason.
  note: entry.note,
}));
for (const { kind, amount, sku, createdAt } of orderMovements) {
  const before = clientMovements.at(-1)!;
  clientMovements.push({
    position: before.position + 1,
    createdAt,
    kind,
    amount,
    balanceAfter: new Money(before.balanceAfter).plus(amount).toFixed(),
    orderId: ORDER_ID,
    reference: REFERENCE,
    sku,
    note: null,
  });
}
const references = new Map([[ORDER_ID, REFERENCE]]);
const movementViews = clientMovements.map((movement) => movementView(movement, references));
/** A statement from noon of 22 November 2026 to the end of the 23rd (UTC): the order's movements, after the postings. */
const period = { from: Date.UTC(2026, 10, 22, 12), to: Date.UTC(2026, 10, 24) - 1 };
const opening = new Money(clientMovements[1]!.balanceAfter);
const statementViews = movementViews.slice(2);
const closing = new Money(clientMovements.at(-1)!.balanceAfter);

export const walletExamples = {
  listWallets: {
    // The demo client's wallets (the client's own route): one it has not paid into yet.
    data: {
      wallets: [
        { currency: "EUR", balance: 0 },
        { currency: "USD", balance: 938.98 },
      ],
    },
  },
  // The page after the first movement, two long.
  getWalletLedger: { data: { currency: wallet.currency, movements: movementViews.slice(1, 3), next: 3 } },
  getWalletStatement: {
    data: {
      currency: wallet.currency,
      ...period,
      openingBalance: toAmountNumber(opening),
      movements: statementViews,
      closingBalance: toAmountNumber(closing),
    },
    file:
      csvLine([...STATEMENT_CSV_COLUMNS]) +
      balanceLine("opening_balance", period.from, opening) +
      statementViews.map(statementCsvLine).join("") +
      balanceLine("closing_balance", period.to, closing),
  },
  adminTopUpWallet: { request: topUp, data: posted(topUpEntry) },
  adminAdjustWallet: { request: adjustment, data: posted(adjustmentEntry) },
  adminGetWallet: { data: { ...wallet, balance: toAmountNumber(balance) } },
  adminGetLedger: { data: { ...wallet, entries: [placedView(topUpEntry)], next: topUpEntry.seq } },
  adminExportLedger: { data: ledgerExport },
  adminRestoreLedger: {
    request: ledgerExport,
    data: { ...wallet, entries: entries.length, balance, replayed: false, request: null },
  },
} satisfies Record<string, RouteExample>;
