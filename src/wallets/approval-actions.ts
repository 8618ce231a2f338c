/**
 * Dual control's flows, whichever way an operator asks (the /admin routes in
 * approval-admin-routes.ts, or the console's wallet page): approve or reject a posting request, and the
 * limits an admin sets per currency. Asking for a posting above the limit is posting-actions.ts's.
 *
 * An approval is decided first, then posted: the decision (a D1 batch with its audit row) makes the
 * request approved for good, then the posting goes to the wallet under the request's idempotency key, and
 * the entry's seq is recorded. Cut off anywhere after the decision, approving again finishes it: the wallet
 * writes one entry per key, so the money moves once however often an approval is retried.
 */
import type { AuditedBy } from "../audit/audit-store";
import { actorColumns } from "../audit/audit-store";
import { fail } from "../kernel/failures";
import { deciderProblem, requestStatus } from "./approval-rules";
import {
  decidePostingRequest,
  postingRequestById,
  recordPostedEntry,
  writeApprovalLimit,
  type PostingRequest,
} from "./approval-store";
import { adjustWallet, topUpWallet, type PostingOutcome } from "./posting-actions";
import type { ClientStatement } from "./wallet-registry-store";
import { topUpAmount } from "./wallet-rules";

/** The request, and that `by` may decide it: 404, or 403 decider_not_allowed (its requester, break-glass). */
async function decidable(db: D1Database, by: AuditedBy, id: number): Promise<PostingRequest> {
  const request = await postingRequestById(db, id);
  if (request === null) fail("posting_request_not_found", { id });
  const problem = deciderProblem(by.actor, request.requestedBy);
  if (problem !== null) fail("decider_not_allowed", { id, reason: problem });
  return request;
}

function closed(request: PostingRequest, now: number): never {
  fail("posting_request_closed", { id: request.id, status: requestStatus(request.status, request.expiresAt, now) });
}

/**
 * Approves a pending request and posts it, or finishes an approved one (a retry: nothing more is
 * written). 409 posting_request_closed for a rejected or expired request.
 */
export async function approvePostingRequest(
  env: Env,
  clientStatement: ClientStatement,
  by: AuditedBy,
  id: number,
): Promise<{ request: PostingRequest; outcome: PostingOutcome; decidedNow: boolean }> {
  let request = await decidable(env.DB, by, id);
  const now = Date.now();
  let decidedNow = false;
  if (request.status === "pending") {
    if (requestStatus(request.status, request.expiresAt, now) === "expired") closed(request, now);
    decidedNow = await decidePostingRequest(env.DB, by, request, "approved", actorColumns(by.actor), now);
    // Decided meanwhile by someone else: approved goes on (finishing it), anything else is closed.
    if (!decidedNow) request = (await postingRequestById(env.DB, id))!;
  }
  if (request.status === "rejected" || (request.status === "pending" && !decidedNow)) closed(request, now);
  const post = request.kind === "top_up" ? topUpWallet : adjustWallet;
  const answer = await post(
    env,
    clientStatement,
    by,
    {
      clientId: request.clientId,
      currency: request.currency,
      amount: request.amount,
      reason: request.reason,
      idempotencyKey: request.idempotencyKey,
    },
    { requestId: request.id, requestedBy: request.requestedBy, requestedByName: request.requestedByName },
  );
  if (answer.held) throw new Error("an approved posting was held again"); // approval skips the hold
  if (request.entrySeq === null) await recordPostedEntry(env.DB, request.id, answer.entry.seq);
  const decided = decidedNow ? (await postingRequestById(env.DB, id))! : request;
  return { request: { ...decided, entrySeq: answer.entry.seq }, outcome: answer, decidedNow };
}

/** Rejects a pending request; rejecting a rejected one again changes nothing. 409 when approved or expired. */
export async function rejectPostingRequest(
  db: D1Database,
  by: AuditedBy,
  id: number,
): Promise<{ request: PostingRequest; decidedNow: boolean }> {
  const request = await decidable(db, by, id);
  const now = Date.now();
  if (request.status === "rejected") return { request, decidedNow: false };
  if (requestStatus(request.status, request.expiresAt, now) !== "pending") closed(request, now);
  const decidedNow = await decidePostingRequest(db, by, request, "rejected", actorColumns(by.actor), now);
  const after = (await postingRequestById(db, id))!;
  if (!decidedNow && after.status !== "rejected") closed(after, now);
  return { request: after, decidedNow };
}

/**
 * Sets a currency's approval limit (a positive amount with at most its minor units), or removes it (null):
 * only in the sandbox, as live keeps dual control on once a limit is set (400 otherwise).
 */
export async function setApprovalLimit(
  env: Env,
  by: AuditedBy,
  currency: string,
  limit: string | number | null,
  live: boolean,
): Promise<string | null> {
  if (limit === null) {
    if (live)
      fail("invalid_request_body", {
        reason: "live keeps dual control on: set a higher limit rather than none (only the sandbox may remove one)",
      });
    await writeApprovalLimit(env.DB, by, currency, null, Date.now());
    return null;
  }
  const amount = topUpAmount(limit, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason.replace("amount", "limit") });
  await writeApprovalLimit(env.DB, by, currency, amount.amount, Date.now());
  return amount.amount;
}
