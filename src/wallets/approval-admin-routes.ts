/**
 * Operator API of dual control (docs/operator-api.md, Dual control): the posting requests an operator
 * posting above its currency's approval limit becomes, their approval and rejection by a different
 * named operator, and the limits an admin sets.
 */
import { adminCaller } from "../http/admin-auth";
import { parseBody, parseParams, parseQuery } from "../http/params";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { serviceMode } from "../kernel/service-mode";
import { toAmountNumber } from "../pricing/money";
import {
  ApprovalLimitData,
  ApprovalLimitParams,
  ApprovalLimitsData,
  ApprovedPostingData,
  PostingRequestParams,
  PostingRequestsData,
  PostingRequestsQuery,
  RejectedPostingData,
  SetApprovalLimitRequest,
} from "./approval-admin-schemas";
import { approvalExamples } from "./approval-examples";
import { listApprovalLimits, listPostingRequests } from "./approval-store";
import { postingRequestView } from "./approval-views";
import { ledgerEntryView } from "./ledger";
import { approvePostingRequest, rejectPostingRequest, setApprovalLimit } from "./approval-actions";
import type { ClientStatement } from "./wallet-registry-store";

/** GET /admin/posting-requests: requests by id, oldest first, pending ones unless `status` says otherwise. */
const listRequests: Handler = async (request, context) => {
  const query = parseQuery(PostingRequestsQuery, request);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const status = query.status ?? "pending";
  const now = Date.now();
  const filter = {
    ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
    ...(query.currency === undefined ? {} : { currency: query.currency }),
    ...(status === "all" ? {} : { status }),
  };
  const rows = await listPostingRequests(context.env.DB, filter, now, query.after ?? 0, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.id);
  return ok("Posting requests", { requests: page.items.map((row) => postingRequestView(row, now)), next: page.next });
};

/** POST /admin/posting-requests/:id/approve. */
const approve =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const { id } = parseParams(PostingRequestParams, request);
    const done = await approvePostingRequest(context.env, clientStatement, adminCaller(context), id);
    return ok(done.decidedNow ? "Posting approved" : "Posting already approved", {
      request: postingRequestView(done.request, Date.now()),
      balance: toAmountNumber(done.outcome.balance),
      entry: ledgerEntryView(done.outcome.entry),
      replayed: !done.decidedNow,
    });
  };

/** POST /admin/posting-requests/:id/reject. */
const reject: Handler = async (request, context) => {
  const { id } = parseParams(PostingRequestParams, request);
  const done = await rejectPostingRequest(context.env.DB, adminCaller(context), id);
  return ok(done.decidedNow ? "Posting rejected" : "Posting already rejected", {
    request: postingRequestView(done.request, Date.now()),
    replayed: !done.decidedNow,
  });
};

const listLimits: Handler = async (_request, context) => {
  const limits = await listApprovalLimits(context.env.DB);
  return ok("Approval limits", {
    limits: limits.map(({ currency, amount, updatedAt }) => ({ currency, limit: toAmountNumber(amount), updatedAt })),
  });
};

const setLimit: Handler = async (request, context) => {
  const { currency } = parseParams(ApprovalLimitParams, request);
  const body = await parseBody(SetApprovalLimitRequest, request, context.env);
  const live = serviceMode(context.env) === "live";
  const limit = await setApprovalLimit(context.env, adminCaller(context), currency, body.limit, live);
  return ok("Approval limit set", { currency, limit: limit === null ? null : toAmountNumber(limit) });
};

const DECIDER =
  "A named operator other than the one who asked (403 decider_not_allowed otherwise): the break-glass ADMIN_TOKEN names no person, so it can neither approve nor reject.";

/** GET /admin/posting-requests, described for GET /openapi.json. */
const listRoute: Route = {
  method: "GET",
  path: "/admin/posting-requests",
  handler: listRequests,
  operationId: "adminListPostingRequests",
  example: approvalExamples.adminListPostingRequests,
  tag: "Admin: wallets",
  summary: "Posting requests waiting for a second operator",
  description:
    "Top-ups and adjustments above their currency's approval limit, each waiting for a different operator to approve or reject it within 24 hours of being asked for. Pending ones (not yet expired) unless `status` asks for others; oldest first; page with `after` (the `next` of the previous page).",
  auth: "admin",
  role: "viewer",
  query: PostingRequestsQuery,
  data: PostingRequestsData,
  messages: ["Posting requests"],
  errors: [],
};

/** The approval limits' routes, described for GET /openapi.json. */
const limitRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/approval-limits",
    handler: listLimits,
    operationId: "adminListApprovalLimits",
    example: approvalExamples.adminListApprovalLimits,
    tag: "Admin: wallets",
    summary: "The approval limit of each currency",
    description:
      "Per currency: a top-up or adjustment whose amount (its absolute value) is above the limit waits for a second operator. A currency not listed has no limit.",
    auth: "admin",
    role: "viewer",
    data: ApprovalLimitsData,
    messages: ["Approval limits"],
    errors: [],
  },
  {
    method: "PUT",
    path: "/admin/approval-limits/:currency",
    handler: setLimit,
    operationId: "adminSetApprovalLimit",
    example: approvalExamples.adminSetApprovalLimit,
    tag: "Admin: wallets",
    summary: "Set a currency's approval limit",
    description:
      "`{limit}`: a positive decimal with at most the currency's minor units; postings above it wait for a second operator from the next request on (requests already made are not changed). `null` removes the limit, in the sandbox only: live answers 400. Audited (`approval_limit.set`, `approval_limit.remove`).",
    auth: "admin",
    role: "admin",
    params: ApprovalLimitParams,
    body: SetApprovalLimitRequest,
    data: ApprovalLimitData,
    messages: ["Approval limit set"],
    errors: [],
    checks: [
      {
        when: "The limit: positive, at most the currency's minor units; null only in the sandbox",
        codes: ["invalid_request_body"],
      },
    ],
  },
];

/** This file's routes, each with its description in GET /openapi.json. */
export const approvalAdminRoutes = (clientStatement: ClientStatement): Route[] => [
  listRoute,
  {
    method: "POST",
    path: "/admin/posting-requests/:id/approve",
    handler: approve(clientStatement),
    operationId: "adminApprovePostingRequest",
    example: approvalExamples.adminApprovePostingRequest,
    tag: "Admin: wallets",
    summary: "Approve a posting request, which posts it",
    description: `${DECIDER} The decision is recorded (audit row \`wallet.posting_approved\`, naming the approver and the requester), then the posting is written under the idempotency key it was asked with (audit row \`wallet.top_up\` or \`wallet.adjustment\`, naming both). Approving again, after a lost reply or a failure midway, posts nothing more and answers the entry (\`replayed: true\`). An expired or rejected request is 409 posting_request_closed. Send no body.`,
    auth: "admin",
    role: "operator",
    params: PostingRequestParams,
    data: ApprovedPostingData,
    messages: ["Posting approved", "Posting already approved"],
    errors: [
      "posting_request_not_found",
      "decider_not_allowed",
      "posting_request_closed",
      "adjustment_below_zero",
      "idempotency_conflict",
    ],
    checks: [
      { when: "The request exists", codes: ["posting_request_not_found"] },
      { when: "The caller is a named operator and not the requester", codes: ["decider_not_allowed"] },
      {
        when: "The request is pending (or approved: finishing it), not rejected or expired",
        codes: ["posting_request_closed"],
      },
      {
        when: "The posting: an adjustment never takes the balance below zero; the key names no other posting",
        codes: ["adjustment_below_zero", "idempotency_conflict"],
      },
    ],
  },
  {
    method: "POST",
    path: "/admin/posting-requests/:id/reject",
    handler: reject,
    operationId: "adminRejectPostingRequest",
    example: approvalExamples.adminRejectPostingRequest,
    tag: "Admin: wallets",
    summary: "Reject a posting request",
    description: `${DECIDER} Nothing is posted, ever, under the request's key and wallet (the audit row \`wallet.posting_rejected\` names the rejecter and the requester). Rejecting again answers \`replayed: true\`; an approved or expired request is 409 posting_request_closed. Send no body.`,
    auth: "admin",
    role: "operator",
    params: PostingRequestParams,
    data: RejectedPostingData,
    messages: ["Posting rejected", "Posting already rejected"],
    errors: ["posting_request_not_found", "decider_not_allowed", "posting_request_closed"],
    checks: [
      { when: "The request exists", codes: ["posting_request_not_found"] },
      { when: "The caller is a named operator and not the requester", codes: ["decider_not_allowed"] },
      { when: "The request is pending or already rejected", codes: ["posting_request_closed"] },
    ],
  },
  ...limitRoutes,
];
