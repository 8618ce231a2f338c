/**
 * Dual control's rules, pure: which operator postings wait for a second operator, how long a request
 * waits, what state it is in, and who may decide it (docs/operator-api.md, Dual control).
 */
import type { Actor } from "../kernel/roles";
import { Money } from "../pricing/money";

/** How long a posting request waits for a decision: a request nobody decided within this expires. */
export const POSTING_REQUEST_TTL_MS = 24 * 60 * 60 * 1000;

/** Whether a posting of `amount` (signed, for an adjustment) must wait under `limit` (null: no limit). */
export function needsApproval(amount: string, limit: string | null): boolean {
  return limit !== null && new Money(amount).abs().greaterThan(new Money(limit));
}

export type StoredStatus = "pending" | "approved" | "rejected";
export type RequestStatus = StoredStatus | "expired";

/** A request's state at `now`: a pending one past its expiry is expired. */
export function requestStatus(stored: StoredStatus, expiresAt: number, now: number): RequestStatus {
  return stored === "pending" && now >= expiresAt ? "expired" : stored;
}

/**
 * Why `actor` may not decide (approve or reject) a request made by `requestedBy` (an actor column), or
 * null if it may. The break-glass ADMIN_TOKEN names no person, so it cannot be the second pair of eyes:
 * anyone holding it could approve what they asked for under their own name. A named operator may not
 * decide their own request.
 */
export function deciderProblem(actor: Actor | { kind: "system" }, requestedBy: string): string | null {
  if (actor.kind !== "operator")
    return "the break-glass ADMIN_TOKEN cannot decide a posting request: a named operator must";
  if (`operator:${actor.id}` === requestedBy) return "the operator who asked for a posting cannot decide it";
  return null;
}
