/**
 * Examples of dual control's routes in GET /openapi.json, derived from one fixture: a top-up above the
 * USD limit asked for by one operator and approved by another, shown through postingRequestView.
 */
import type { RouteExample } from "../http/route";
import { Money, toAmountNumber } from "../pricing/money";
import { POSTING_REQUEST_TTL_MS } from "./approval-rules";
import type { PostingRequest } from "./approval-store";
import { limitRequestView, postingRequestView } from "./approval-views";
import type { LimitRequest } from "./limit-request-store";
import { ledgerEntryView } from "../wallets/ledger";
import { topUpKey } from "../wallets/ledger-keys";

const requestedAt = 1795345079600;
const pending: PostingRequest = {
  id: 12,
  clientId: "acme",
  currency: "USD",
  kind: "top_up",
  amount: "25000",
  reason: "Bank transfer 2026-11-22, ref 88120",
  note: "Payment received, thank you",
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
  failure: null,
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
  note: pending.note,
};
const at = decidedAt + 50;

const limitAskedAt = requestedAt - 3_600_000;
const raise: LimitRequest = {
  id: 3,
  currency: "USD",
  amount: "25000",
  previous: "10000",
  requestedBy: "operator:opr_9a04be17c2d35f80",
  requestedByName: "Sam Finance",
  requestedAt: limitAskedAt,
  expiresAt: limitAskedAt + POSTING_REQUEST_TTL_MS,
  status: "pending",
  decidedBy: null,
  decidedByName: null,
  decidedAt: null,
};
const raised: LimitRequest = {
  ...raise,
  status: "approved",
  decidedBy: "operator:opr_27d0c4f1e8a6b935",
  decidedByName: "Ada Admin",
  decidedAt: limitAskedAt + 900_000,
};

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
    data: {
      limits: [{ currency: "USD", limit: 10000, left: 7500, updatedAt: requestedAt - 86_400_000 }],
      withoutLimit: "waits",
    },
  },
  adminSetApprovalLimit: {
    request: { limit: "25000" },
    data: { currency: "USD", limit: 10000, request: limitRequestView(raise, limitAskedAt), replayed: false },
  },
  adminListLimitRequests: { data: { requests: [limitRequestView(raise, limitAskedAt)], next: null } },
  adminApproveLimitRequest: {
    data: { request: limitRequestView(raised, raised.decidedAt!), limit: 25000, replayed: false },
  },
  adminRejectLimitRequest: {
    data: {
      request: limitRequestView({ ...raised, status: "rejected" }, raised.decidedAt!),
      limit: 10000,
      replayed: false,
    },
  },
} satisfies Record<string, RouteExample>;
