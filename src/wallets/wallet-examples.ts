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
import { adjustmentKey, topUpKey } from "./ledger-keys";

const wallet = { clientId: "acme", currency: "USD" };
/** The wallet's object: its first (never moved), in the client's region. */
const placement = { generation: 0, region: "apac" as const };
const topUp: TopUpRequest = {
  amount: "500.00",
  idempotencyKey: "acme-topup-2026-11-22",
  reason: "Bank transfer 2026-11-22",
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
  });
}
const [topUpEntry, adjustmentEntry] = entries as [LedgerEntry, LedgerEntry];
const balance = adjustmentEntry.balanceAfter;

/** A wallet's ledger as GET …/export answers it, and as POST …/restore takes it back. */
const ledgerExport: LedgerExport = {
  format: LEDGER_EXPORT_FORMAT,
  ...wallet,
  exportedAt: adjustmentEntry.createdAt + 50,
  wallet: placement,
  balance,
  entries,
  voids: [],
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
  adminTopUpWallet: { request: topUp, data: posted(topUpEntry) },
  adminAdjustWallet: { request: adjustment, data: posted(adjustmentEntry) },
  adminGetWallet: { data: { ...wallet, balance: toAmountNumber(balance) } },
  adminGetLedger: { data: { ...wallet, entries: [placedView(topUpEntry)], next: topUpEntry.seq } },
  adminExportLedger: { data: ledgerExport },
  adminRestoreLedger: {
    request: ledgerExport,
    data: { ...wallet, entries: entries.length, balance, replayed: false },
  },
} satisfies Record<string, RouteExample>;
