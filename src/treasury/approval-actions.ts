/**
 * Dual control's flows, whichever way an operator asks (the /admin routes in approval-admin-routes.ts, or
 * the console's wallet and limits pages): approve or reject a posting request (a top-up, an adjustment or a
 * restore), and change a currency's approval limit, which waits for a second admin unless it lowers it.
 * Asking for a posting is posting-actions.ts's; who may decide is colleague-rules.ts's (src/operators).
 *
 * An approval is decided first, then posted: the decision (a D1 batch with its audit row) makes the
 * request approved for good, then the posting goes to the wallet under the request's idempotency key, and
 * the entry's seq is recorded. Cut off anywhere after the decision, approving again finishes it: the wallet
 * writes one entry per key, so the money moves once however often an approval is retried. A posting the
 * wallet refuses for good (a debit below zero, a key it holds for another posting, a restore into a wallet
 * that is not empty) makes the request `failed`, never leaving it approved and unposted.
 */
import type { AuditedBy } from "../audit/audit-store";
import { actorColumns } from "../audit/audit-store";
import { fail, Refusal, type FailureCode } from "../kernel/failures";
import { io } from "../kernel/faults";
import { credentialOf, credentialOfColumn, roleAllows, type Role } from "../kernel/roles";
import { colleagueProblem } from "../operators/colleague-rules";
import { colleagues } from "../operators/operators";
import {
  effectiveLimit,
  limitChange,
  limitFits,
  POSTING_REQUEST_TTL_MS,
  requestStatus,
  WINDOW_MS,
} from "./approval-rules";
import {
  approvalLimitOf,
  listApprovalLimits,
  windowUsed,
  decidePostingRequest,
  markPostingFailed,
  postingRequestById,
  recordPostedEntry,
  restoreRequestExport,
  type PostingRequest,
} from "./approval-store";
import { approvedRestore } from "./ledger-restore";
import {
  decideLimitRequest,
  insertLimitRequest,
  limitRequestById,
  lowerApprovalLimit,
  type LimitRequest,
} from "./limit-request-store";
import { adjustWallet, topUpWallet, type PlacedEntry } from "./posting-actions";
import { DUAL_CONTROL_SEAMS } from "./seams";
import { Money } from "../pricing/money";
import { minorUnits } from "../pricing/money";

/** Who decides, as the rules need it: the change's actor, and the role it holds (a restore's needs admin). */
export interface Decider extends AuditedBy {
  role: Role;
}

/**
 * 403 decider_not_allowed unless `by` may decide what `requestedBy` asked for at `requestedAt`: a named
 * operator, a person apart from the requester by who made whom and when (colleague-rules.ts).
 */
async function mayDecide(db: D1Database, by: AuditedBy, id: number, requestedBy: string, requestedAt: number) {
  const decider = credentialOf(by.actor);
  const requester = credentialOfColumn(requestedBy);
  const known = await colleagues(db, [decider, requester]);
  const unknown = (credential: string) => ({ credential, createdAt: null, makers: [], mintedAt: null });
  const problem = colleagueProblem(
    known.get(decider) ?? unknown(decider),
    known.get(requester) ?? unknown(requester),
    requestedAt,
  );
  if (problem !== null) fail("decider_not_allowed", { id, reason: problem });
}

/** The request, and that `by` may decide it: 404, 403 forbidden (a restore's needs an admin), or decider_not_allowed. */
async function decidable(db: D1Database, by: Decider, id: number): Promise<PostingRequest> {
  const request = await postingRequestById(db, id);
  // A posting made alone is not a request: nothing to decide.
  if (request === null || request.status === "posted") fail("posting_request_not_found", { id });
  if (request.kind === "restore" && !roleAllows(by.role, "admin"))
    fail("forbidden", { role: by.role, needed: "admin" });
  await mayDecide(db, by, id, request.requestedBy, request.requestedAt);
  return request;
}

function closed(request: { id: number; status: PostingRequest["status"]; expiresAt: number }, now: number): never {
  fail("posting_request_closed", { id: request.id, status: requestStatus(request.status, request.expiresAt, now) });
}

/** The refusals of a posting that no retry changes: the request fails with them. */
const FINAL: ReadonlySet<FailureCode> = new Set([
  "adjustment_below_zero",
  "idempotency_conflict",
  "wallet_not_empty",
  "ledger_chain_broken",
  "client_not_found",
  "wallet_unknown",
]);

/** What an approval posted: the entry (none for a restore), the balance after it. */
export interface Approved {
  request: PostingRequest;
  balance: Money;
  entry: PlacedEntry | null;
  decidedNow: boolean;
}

/** Posts an approved request as its requester asked it; answers the balance, the entry and the seq to record. */
async function postApproved(
  env: Env,
  by: AuditedBy,
  request: PostingRequest,
): Promise<{ balance: Money; entry: PlacedEntry | null; seq: number }> {
  const approval = {
    requestId: request.id,
    requestedBy: request.requestedBy,
    requestedByName: request.requestedByName,
  };
  if (request.kind === "restore") {
    const exported = await restoreRequestExport(env.DB, request.id);
    const restored = await approvedRestore(env, by, request, exported);
    if (restored.held) throw new Error("an approved restore was held again");
    const seq = exported === null ? 0 : ((JSON.parse(exported).entries as { seq: number }[]).at(-1)?.seq ?? 0);
    return { balance: new Money(restored.balance), entry: null, seq };
  }
  const post = request.kind === "top_up" ? topUpWallet : adjustWallet;
  const answer = await post(
    env,
    by,
    {
      clientId: request.clientId,
      currency: request.currency,
      amount: request.amount,
      reason: request.reason,
      note: request.note,
      idempotencyKey: request.idempotencyKey,
    },
    approval,
  );
  if (answer.held) throw new Error("an approved posting was held again"); // approval skips the window
  return { balance: answer.balance, entry: answer.entry, seq: answer.entry.seq };
}

/**
 * Approves a pending request and posts it, or finishes an approved one (a retry: nothing more is
 * written). 409 posting_request_closed for a rejected, failed or expired request.
 */
export async function approvePostingRequest(env: Env, by: Decider, id: number): Promise<Approved> {
  let request = await decidable(env.DB, by, id);
  const now = Date.now();
  let decidedNow = false;
  if (request.status === "pending") {
    if (requestStatus(request.status, request.expiresAt, now) === "expired") closed(request, now);
    decidedNow = await io(DUAL_CONTROL_SEAMS.decide, () =>
      decidePostingRequest(env.DB, request, { by, decision: "approved", decider: actorColumns(by.actor), now }),
    );
    // Decided meanwhile by someone else: approved goes on (finishing it), anything else is closed.
    if (!decidedNow) request = (await postingRequestById(env.DB, id))!;
  }
  if (request.status !== "approved" && !decidedNow) closed(request, now);
  let posted: Awaited<ReturnType<typeof postApproved>>;
  try {
    posted = await postApproved(env, by, request);
  } catch (error) {
    if (error instanceof Refusal && FINAL.has(error.failure.code)) {
      const why = `${error.failure.message}${typeof error.failure.details?.reason === "string" ? `: ${error.failure.details.reason}` : ""}`;
      await io(DUAL_CONTROL_SEAMS.failed, () => markPostingFailed(env.DB, by, request, why));
    }
    throw error;
  }
  if (request.entrySeq === null)
    await io(DUAL_CONTROL_SEAMS.record, () => recordPostedEntry(env.DB, request.id, posted.seq));
  const decided = decidedNow ? (await postingRequestById(env.DB, id))! : request;
  return {
    request: { ...decided, status: "approved", entrySeq: posted.seq },
    balance: posted.balance,
    entry: posted.entry,
    decidedNow,
  };
}

/** Rejects a pending request; rejecting a rejected one again changes nothing. 409 when approved, failed or expired. */
export async function rejectPostingRequest(
  db: D1Database,
  by: Decider,
  id: number,
): Promise<{ request: PostingRequest; decidedNow: boolean }> {
  const request = await decidable(db, by, id);
  const now = Date.now();
  if (request.status === "rejected") return { request, decidedNow: false };
  if (requestStatus(request.status, request.expiresAt, now) !== "pending") closed(request, now);
  const decidedNow = await io(DUAL_CONTROL_SEAMS.decide, () =>
    decidePostingRequest(db, request, { by, decision: "rejected", decider: actorColumns(by.actor), now }),
  );
  const after = (await postingRequestById(db, id))!;
  if (!decidedNow && after.status !== "rejected") closed(after, now);
  return { request: after, decidedNow };
}

/** A limit the caller gave, as stored (a positive decimal with at most the currency's minor units), or null. */
function askedLimit(limit: string | number | null, currency: string): string | null {
  if (limit === null) return null;
  const amount = new Money(String(limit));
  if (!limitFits(amount.toFixed(), currency))
    fail("invalid_request_body", {
      reason: `limit must be positive with at most the minor units of ${currency} (${minorUnits(currency)})`,
    });
  return amount.toFixed();
}

/** What asking for a limit did: changed it at once, asked a second admin, or found it as asked. */
export interface LimitAnswer {
  /** The currency's stored limit now (null: none). */
  limit: string | null;
  request: LimitRequest | null;
  replayed: boolean;
}

/**
 * Sets a currency's approval limit (a positive amount with at most its minor units), or removes it (null).
 * Lowering takes effect at once (in live, removing one too: a currency without a limit there makes every
 * posting wait); raising it, setting a live currency's first, or removing a sandbox limit waits as a limit
 * request for a second admin (approveLimitRequest).
 */
export async function setApprovalLimit(
  env: Env,
  by: AuditedBy,
  currency: string,
  limit: string | number | null,
  live: boolean,
): Promise<LimitAnswer> {
  const asked = askedLimit(limit, currency);
  const stored = await approvalLimitOf(env.DB, currency);
  const change = limitChange(effectiveLimit(stored, live), effectiveLimit(asked, live));
  if (change === "same") return { limit: stored, request: null, replayed: true };
  const now = Date.now();
  if (change === "lower") {
    await lowerApprovalLimit(env.DB, by, currency, asked, now);
    return { limit: asked, request: null, replayed: false };
  }
  const requester = actorColumns(by.actor);
  const made = await insertLimitRequest(env.DB, by, {
    currency,
    amount: asked,
    previous: stored,
    requestedBy: requester.actor,
    requestedByName: requester.name,
    requestedAt: now,
    expiresAt: now + POSTING_REQUEST_TTL_MS,
  });
  return { limit: stored, request: made.request, replayed: made.replayed };
}

/** The limit request, and that `by` may decide it (404, or 403 decider_not_allowed). */
async function decidableLimit(db: D1Database, by: AuditedBy, id: number): Promise<LimitRequest> {
  const request = await limitRequestById(db, id);
  if (request === null) fail("limit_request_not_found", { id });
  await mayDecide(db, by, id, request.requestedBy, request.requestedAt);
  return request;
}

/**
 * Approves (the limit is set in the same batch) or rejects a pending limit request. Deciding it again as it
 * was decided answers it as it is; 409 limit_request_closed when it was decided otherwise or expired.
 */
export async function decideLimit(
  db: D1Database,
  by: AuditedBy,
  id: number,
  decision: "approved" | "rejected",
): Promise<{ request: LimitRequest; decidedNow: boolean }> {
  const request = await decidableLimit(db, by, id);
  const now = Date.now();
  const status = requestStatus(request.status, request.expiresAt, now);
  if (status === decision) return { request, decidedNow: false };
  if (status !== "pending") fail("limit_request_closed", { id, status });
  const decidedNow = await io(DUAL_CONTROL_SEAMS.limit, () =>
    decideLimitRequest(db, request, { by, decision, decider: actorColumns(by.actor), now }),
  );
  const after = (await limitRequestById(db, id))!;
  if (!decidedNow && after.status !== decision)
    fail("limit_request_closed", { id, status: requestStatus(after.status, after.expiresAt, now) });
  return { request: after, decidedNow };
}

/** A currency's limit, and what one credential may still move alone under it now. */
export interface LimitLeft {
  currency: string;
  limit: string;
  left: Money;
  updatedAt: number;
}

/** Every currency's limit, with what `credential` may still move alone in it (its last 24 hours taken off). */
export async function limitsLeftFor(db: D1Database, credential: string, now: number): Promise<LimitLeft[]> {
  const limits = await listApprovalLimits(db);
  return Promise.all(
    limits.map(async ({ currency, amount, updatedAt }) => {
      const used = new Money(await windowUsed(db, currency, credential, now - WINDOW_MS)).div(
        new Money(10).pow(minorUnits(currency)),
      );
      return { currency, limit: amount, left: Money.max(0, new Money(amount).minus(used)), updatedAt };
    }),
  );
}
