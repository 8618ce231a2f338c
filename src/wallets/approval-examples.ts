/**
 * Examples of dual control's routes in GET /openapi.json, derived from one fixture: a top-up above the
 * USD limit asked for by one operator and approved by another, shown through postingRequestView.
 */
import type { RouteExample } from "../http/route";
import { Money, toAmountNumber } from "../pricing/money";
import { POSTING_REQUEST_TTL_MS } from "./approval-rules";
import type { PostingRequest } from "./approval-store";
import { postingRequestView } from "./approval-views";
import { ledgerEntryView } from "./ledger";
import { topUpKey } from "./ledger-keys";

const requestedAt = 1795345079600;
const pending: PostingRequest = {
  id: 12,
  clientId: "acme",
  currency: "USD",
  kind: "top_up",
  amount: "25000",
  reason: "Bank transfer 2026-11-22, ref 88120",
  idempotencyKey: "acme-topup-2026-11-22-88120",
  requestedBy: "operator:opr_5c1f0e2a9b7d4e61",
  requestedByName: "Rita Ops",
  requestedAt,
  expiresAt: requestedAt + POSTING_REQUEST_TTL_MS,
  status: "pending",
  decidedBy: null,
  decidedByName: null,
  decidedAt: null,
  entrySeq: null,
};
const decidedAt = requestedAt + 600_000;
const approved: PostingRequest = {
  ...pending,
  status: "approved",
  decidedBy: "operator:opr_9a04be17c2d35f80",
  decidedByName: "Sam Finance",
  decidedAt,
  entrySeq: 3,
};
const rejected: PostingRequest = { ...approved, status: "rejected", entrySeq: null };
const balanceBefore = new Money("487.50");
const entry = {
  seq: 3,
  key: topUpKey(pending.idempotencyKey),
  kind: "top_up" as const,
  amount: pending.amount,
  balanceAfter: balanceBefore.plus(pending.amount).toFixed(),
  orderId: null,
  reason: pending.reason,
  createdAt: decidedAt + 40,
};
const at = decidedAt + 50;

export const approvalExamples = {
  adminListPostingRequests: { data: { requests: [postingRequestView(pending, requestedAt)], next: null } },
  adminApprovePostingRequest: {
    data: {
      request: postingRequestView(approved, at),
      balance: toAmountNumber(entry.balanceAfter),
      entry: { ...ledgerEntryView(entry), wallet: { generation: 0, region: "apac" } },
      replayed: false,
    },
  },
  adminRejectPostingRequest: { data: { request: postingRequestView(rejected, at), replayed: false } },
  adminListApprovalLimits: {
    data: { limits: [{ currency: "USD", limit: 10000, updatedAt: requestedAt - 86_400_000 }] },
  },
  adminSetApprovalLimit: { request: { limit: "10000" }, data: { currency: "USD", limit: 10000 } },
} satisfies Record<string, RouteExample>;
