/**
 * Operator API of dual control (docs/operator-api.md, Dual control): the posting requests an operator
 * posting above its currency's approval limit becomes, their approval and rejection by a different
 * named operator, and the limits an admin sets.
 */
import type * as z from "zod";
import { route, type AdminCaller, type Route } from "../http/route";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { credentialOf } from "../kernel/roles";
import { serviceMode } from "../kernel/service-mode";
import { toAmountNumber } from "../pricing/money";
import {
  ApprovalLimitData,
  ApprovalLimitParams,
  ApprovalLimitsData,
  ApprovedPostingData,
  DecidedLimitData,
  LimitRequestParams,
  LimitRequestsData,
  LimitRequestsQuery,
  PostingRequestParams,
  PostingRequestsData,
  PostingRequestsQuery,
  RejectedPostingData,
  SetApprovalLimitRequest,
} from "./approval-admin-schemas";
import { approvalExamples } from "./approval-examples";
import { approvalLimitOf, listPostingRequests } from "./approval-store";
import { limitRequestView, postingRequestView } from "./approval-views";
import { ledgerEntryView } from "../wallets/ledger";
import { listLimitRequests } from "./limit-request-store";
import {
  approvePostingRequest,
  decideLimit,
  limitsLeftFor,
  rejectPostingRequest,
  setApprovalLimit,
} from "./approval-actions";

/** GET /admin/posting-requests: requests by id, oldest first, pending ones unless `status` says otherwise. */
async function postingRequests(db: D1Database, query: z.output<typeof PostingRequestsQuery>) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const status = query.status ?? "pending";
  const now = Date.now();
  const filter = {
    ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
    ...(query.currency === undefined ? {} : { currency: query.currency }),
    ...(status === "all" ? {} : { status }),
  };
  const rows = await listPostingRequests(db, filter, now, query.after ?? 0, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.id);
  return { requests: page.items.map((row) => postingRequestView(row, now)), next: page.next };
}

/** GET /admin/approval-limits: each limit, and what the caller may still move alone under it. */
async function limitsLeft(env: Env, caller: AdminCaller) {
  const limits = await limitsLeftFor(env.DB, credentialOf(caller.actor), Date.now());
  const withLeft = limits.map(({ currency, limit, left, updatedAt }) => ({
    currency,
    limit: toAmountNumber(limit),
    left: toAmountNumber(left),
    updatedAt,
  }));
  const live = serviceMode(env) === "live";
  return { limits: withLeft, withoutLimit: live ? ("waits" as const) : ("alone" as const) };
}

/** PUT /admin/approval-limits/:currency: the limit set, or the limit request it became. */
async function limitSet(env: Env, caller: AdminCaller, currency: string, limit: string | number | null) {
  const done = await setApprovalLimit(env, caller, currency, limit, serviceMode(env) === "live");
  const message =
    done.request === null
      ? ("Approval limit set" as const)
      : done.replayed
        ? ("Limit request already made" as const)
        : ("Limit change awaits approval" as const);
  return {
    message,
    data: {
      currency,
      limit: done.limit === null ? null : toAmountNumber(done.limit),
      request: done.request === null ? null : limitRequestView(done.request, Date.now()),
      replayed: done.replayed,
    },
  };
}

/** GET /admin/approval-limit-requests. */
async function limitRequests(db: D1Database, query: z.output<typeof LimitRequestsQuery>) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const status = query.status ?? "pending";
  const now = Date.now();
  const rows = await listLimitRequests(
    db,
    status === "all" ? undefined : status,
    now,
    query.after ?? 0,
    rowsToFetch(limit),
  );
  const page = pageOf(rows, limit, (row) => row.id);
  return { requests: page.items.map((row) => limitRequestView(row, now)), next: page.next };
}

/** POST /admin/approval-limit-requests/:id/approve and …/reject: the request decided, and the limit now. */
async function limitDecided(db: D1Database, caller: AdminCaller, id: number, decision: "approved" | "rejected") {
  const done = await decideLimit(db, caller, id, decision);
  const limit = await approvalLimitOf(db, done.request.currency);
  return {
    request: limitRequestView(done.request, Date.now()),
    limit: limit === null ? null : toAmountNumber(limit),
    replayed: !done.decidedNow,
  };
}

const DECIDER =
  "A named operator who is another person than the one who asked, by the rules of docs/operator-api.md (Dual control): not the requester, not an operator the requester made or that made the requester, not one made by the same credential within a day of the requester, not one made less than a day before the request; the break-glass ADMIN_TOKEN names no person and decides nothing (403 decider_not_allowed, `details.reason` says which rule).";

/** GET /admin/posting-requests, described for GET /openapi.json. */
const listRoute: Route = route(
  {
    method: "GET",
    path: "/admin/posting-requests",
    operationId: "adminListPostingRequests",
    example: approvalExamples.adminListPostingRequests,
    tag: "Admin: wallets",
    summary: "Posting requests waiting for a second person",
    description:
      "Top-ups, adjustments and restores beyond what their requester may move alone (its 24-hour window under the currency's approval limit), each waiting for another person to approve or reject it within 24 hours of being asked for. Pending ones (not yet expired) unless `status` asks for others; oldest first; page with `after` (the `next` of the previous page). Postings made alone are not requests and are not listed.",
    auth: "admin",
    role: "viewer",
    query: PostingRequestsQuery,
    data: PostingRequestsData,
    messages: ["Posting requests"],
    errors: [],
  },
  async ({ query, env, ok }) => ok("Posting requests", await postingRequests(env.DB, query)),
);

/** The approval limits' routes, described for GET /openapi.json. */
const limitRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/approval-limits",
      operationId: "adminListApprovalLimits",
      example: approvalExamples.adminListApprovalLimits,
      tag: "Admin: wallets",
      summary: "The approval limit of each currency, and what the caller may still move alone",
      description:
        "Per currency: what one credential (an operator's token, or ADMIN_TOKEN with the operators it made in their first day) may move alone in any 24 hours, top-ups, adjustments (their absolute value) and restores together; beyond it a posting waits for a second person. `left` is what the caller may still move alone now. `withoutLimit` says what a currency not listed does: in live every posting in it waits; in the sandbox none does.",
      auth: "admin",
      role: "viewer",
      data: ApprovalLimitsData,
      messages: ["Approval limits"],
      errors: [],
    },
    async ({ caller, env, ok }) => ok("Approval limits", await limitsLeft(env, caller)),
  ),
  route(
    {
      method: "PUT",
      path: "/admin/approval-limits/:currency",
      operationId: "adminSetApprovalLimit",
      example: approvalExamples.adminSetApprovalLimit,
      tag: "Admin: wallets",
      summary: "Set a currency's approval limit (raising it waits for a second admin)",
      description:
        "`{limit}`: a positive decimal with at most the currency's minor units, or `null` for none. Lowering takes effect at once, for the next posting (in live, so does `null`: a currency without a limit makes every posting in it wait). Raising it, setting a live currency's first, or removing a sandbox limit does not change it: it answers `Limit change awaits approval` with a limit request (`request`) that a second admin approves within 24 hours (POST /admin/approval-limit-requests/{id}/approve). Asking again for what waits answers it (`replayed: true`). Audited (`approval_limit.set`, `approval_limit.remove`, `approval_limit.requested`).",
      auth: "admin",
      role: "admin",
      params: ApprovalLimitParams,
      body: SetApprovalLimitRequest,
      data: ApprovalLimitData,
      messages: ["Approval limit set", "Limit change awaits approval", "Limit request already made"],
      checks: [
        { when: "The limit: positive, at most the currency's minor units, or null", codes: ["invalid_request_body"] },
      ],
    },
    async ({ params: { currency }, body, caller, env, ok }) => {
      const answer = await limitSet(env, caller, currency, body.limit);
      return ok(answer.message, answer.data);
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/approval-limit-requests",
      operationId: "adminListLimitRequests",
      example: approvalExamples.adminListLimitRequests,
      tag: "Admin: wallets",
      summary: "Limit changes waiting for a second admin",
      description:
        "Raising or removing a currency's approval limit (in live, setting its first) waits here for a second admin, 24 hours at most. Pending ones unless `status` asks for others; oldest first; page with `after`.",
      auth: "admin",
      role: "viewer",
      query: LimitRequestsQuery,
      data: LimitRequestsData,
      messages: ["Limit requests"],
      errors: [],
    },
    async ({ query, env, ok }) => ok("Limit requests", await limitRequests(env.DB, query)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/approval-limit-requests/:id/approve",
      operationId: "adminApproveLimitRequest",
      example: approvalExamples.adminApproveLimitRequest,
      tag: "Admin: wallets",
      summary: "Approve a limit change, which sets the limit",
      description: `${DECIDER} The decision and the new limit are one write with their audit rows (\`approval_limit.approved\`, then \`approval_limit.set\` or \`approval_limit.remove\`). Approving again answers \`replayed: true\`; a rejected or expired request is 409 limit_request_closed. Send no body.`,
      auth: "admin",
      role: "admin",
      params: LimitRequestParams,
      data: DecidedLimitData,
      messages: ["Limit change approved", "Limit change already approved"],
      checks: [
        { when: "The request exists", codes: ["limit_request_not_found"] },
        { when: "The caller is another person than the requester", codes: ["decider_not_allowed"] },
        { when: "The request is pending (or already approved)", codes: ["limit_request_closed"] },
      ],
    },
    async ({ params: { id }, caller, env, ok }) => {
      const decided = await limitDecided(env.DB, caller, id, "approved");
      return ok(decided.replayed ? "Limit change already approved" : "Limit change approved", decided);
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/approval-limit-requests/:id/reject",
      operationId: "adminRejectLimitRequest",
      example: approvalExamples.adminRejectLimitRequest,
      tag: "Admin: wallets",
      summary: "Reject a limit change",
      description: `${DECIDER} The limit stays as it is (audit row \`approval_limit.rejected\`). Rejecting again answers \`replayed: true\`; an approved or expired request is 409 limit_request_closed. Send no body.`,
      auth: "admin",
      role: "admin",
      params: LimitRequestParams,
      data: DecidedLimitData,
      messages: ["Limit change rejected", "Limit change already rejected"],
      checks: [
        { when: "The request exists", codes: ["limit_request_not_found"] },
        { when: "The caller is another person than the requester", codes: ["decider_not_allowed"] },
        { when: "The request is pending (or already rejected)", codes: ["limit_request_closed"] },
      ],
    },
    async ({ params: { id }, caller, env, ok }) => {
      const decided = await limitDecided(env.DB, caller, id, "rejected");
      return ok(decided.replayed ? "Limit change already rejected" : "Limit change rejected", decided);
    },
  ),
];

/** POST /admin/posting-requests/:id/reject, described for GET /openapi.json. */
const rejectRoute: Route = route(
  {
    method: "POST",
    path: "/admin/posting-requests/:id/reject",
    operationId: "adminRejectPostingRequest",
    example: approvalExamples.adminRejectPostingRequest,
    tag: "Admin: wallets",
    summary: "Reject a posting request",
    description: `${DECIDER} Nothing is posted, ever, under the request's key and wallet (the audit row \`wallet.posting_rejected\` names the rejecter and the requester). Rejecting again answers \`replayed: true\`; an approved, failed or expired request is 409 posting_request_closed. Send no body.`,
    auth: "admin",
    role: "operator",
    params: PostingRequestParams,
    data: RejectedPostingData,
    messages: ["Posting rejected", "Posting already rejected"],
    checks: [
      { when: "The request exists", codes: ["posting_request_not_found"] },
      { when: "A restore request: the caller is an admin", codes: ["forbidden"] },
      { when: "The caller is another person than the requester", codes: ["decider_not_allowed"] },
      { when: "The request is pending or already rejected", codes: ["posting_request_closed"] },
    ],
  },
  async ({ params: { id }, caller, env, ok }) => {
    const done = await rejectPostingRequest(env.DB, caller, id);
    return ok(done.decidedNow ? "Posting rejected" : "Posting already rejected", {
      request: postingRequestView(done.request, Date.now()),
      replayed: !done.decidedNow,
    });
  },
);

/** This file's routes, each with its description in GET /openapi.json. */
export const approvalAdminRoutes: Route[] = [
  listRoute,
  route(
    {
      method: "POST",
      path: "/admin/posting-requests/:id/approve",
      operationId: "adminApprovePostingRequest",
      example: approvalExamples.adminApprovePostingRequest,
      tag: "Admin: wallets",
      summary: "Approve a posting request, which posts it",
      description: `${DECIDER} A restore request needs an admin (403 forbidden otherwise). The decision is recorded (audit row \`wallet.posting_approved\`, naming the approver and the requester), then the posting is written under the idempotency key it was asked with (audit row \`wallet.top_up\`, \`wallet.adjustment\` or \`wallet.restore\`, naming both); it counts in no one's window. Approving again, after a lost reply or a failure midway, posts nothing more and answers the entry (\`replayed: true\`). A posting the wallet refuses for good (a debit below zero, a key it holds for another posting, a restore into a wallet with entries) makes the request \`failed\` (audit row \`wallet.posting_failed\`) and answers that refusal. An expired, rejected or failed request is 409 posting_request_closed. Send no body.`,
      auth: "admin",
      role: "operator",
      params: PostingRequestParams,
      data: ApprovedPostingData,
      messages: ["Posting approved", "Posting already approved"],
      checks: [
        { when: "The request exists", codes: ["posting_request_not_found"] },
        { when: "A restore request: the caller is an admin", codes: ["forbidden"] },
        { when: "The caller is another person than the requester", codes: ["decider_not_allowed"] },
        {
          when: "The request is pending (or approved: finishing it), not rejected, failed or expired",
          codes: ["posting_request_closed"],
        },
        {
          when: "The posting: an adjustment never takes the balance below zero; the key names no other posting; a restore's wallet has no entry",
          codes: ["adjustment_below_zero", "idempotency_conflict", "wallet_not_empty", "ledger_chain_broken"],
        },
      ],
    },
    async ({ params: { id }, caller, env, ok }) => {
      const done = await approvePostingRequest(env, caller, id);
      return ok(done.decidedNow ? "Posting approved" : "Posting already approved", {
        request: postingRequestView(done.request, Date.now()),
        balance: toAmountNumber(done.balance),
        entry: done.entry === null ? null : ledgerEntryView(done.entry),
        replayed: !done.decidedNow,
      });
    },
  ),
  rejectRoute,
  ...limitRoutes,
];
