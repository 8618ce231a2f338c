/**
 * The SQL of limit requests (migration 0024): raising or removing a currency's approval limit, or in live
 * setting its first, waits in approval_limit_requests for a second admin; approving one sets the limit in
 * the same D1 batch as the decision and its audit row, so an approval cut off anywhere either did all of
 * it or none.
 */
import { auditStatement, auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import type { RequestStatus } from "./approval-rules";
import type { Decision } from "./approval-store";

export interface LimitRequest {
  id: number;
  currency: string;
  /** The limit asked for (null: none, a removal). */
  amount: string | null;
  /** The limit when asked (null: none). */
  previous: string | null;
  requestedBy: string;
  requestedByName: string | null;
  requestedAt: number;
  expiresAt: number;
  status: "pending" | "approved" | "rejected";
  decidedBy: string | null;
  decidedByName: string | null;
  decidedAt: number | null;
}

const COLUMNS = `id, currency, amount, previous, requested_by AS requestedBy, requested_by_name AS requestedByName,
  requested_at AS requestedAt, expires_at AS expiresAt, status, decided_by AS decidedBy,
  decided_by_name AS decidedByName, decided_at AS decidedAt`;

export async function limitRequestById(db: D1Database, id: number): Promise<LimitRequest | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM approval_limit_requests WHERE id = ?1`).bind(id).first<LimitRequest>();
}

/**
 * Stores a limit request, with its audit row; the same request asked again by the same credential while
 * it is pending (a re-sent form, a retried call) is answered as the one stored.
 */
export async function insertLimitRequest(
  db: D1Database,
  by: AuditedBy,
  request: Omit<LimitRequest, "id" | "status" | "decidedBy" | "decidedByName" | "decidedAt">,
): Promise<{ request: LimitRequest; replayed: boolean }> {
  const r = request;
  const same = `currency = ?1 AND amount IS ?2 AND requested_by = ?3 AND status = 'pending' AND expires_at > ?5`;
  const [inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO approval_limit_requests (currency, amount, previous, requested_by, requested_by_name,
           requested_at, expires_at, status)
         SELECT ?1, ?2, ?6, ?3, ?4, ?5, ?7, 'pending' WHERE NOT EXISTS (SELECT 1 FROM approval_limit_requests WHERE ${same})`,
      )
      .bind(r.currency, r.amount, r.requestedBy, r.requestedByName, r.requestedAt, r.previous, r.expiresAt),
    auditStatementIfChanged(db, by, "approval_limit.requested", `currency:${r.currency}`, {
      amount: r.amount,
      previous: r.previous,
      expiresAt: r.expiresAt,
    }),
  ]);
  const stored = await db
    .prepare(
      `SELECT ${COLUMNS} FROM approval_limit_requests
        WHERE currency = ?1 AND amount IS ?2 AND requested_by = ?3 AND status = 'pending' ORDER BY id DESC LIMIT 1`,
    )
    .bind(r.currency, r.amount, r.requestedBy)
    .first<LimitRequest>();
  return { request: stored!, replayed: (inserted!.meta.changes ?? 0) === 0 };
}

/**
 * Decides a pending, unexpired limit request, and, approved, sets (or removes) the limit: one batch, each
 * write only if the decision was made by this call. Answers whether it was.
 */
export async function decideLimitRequest(
  db: D1Database,
  request: LimitRequest,
  { by, decision, decider, now }: Decision,
): Promise<boolean> {
  const decidedHere = `EXISTS (SELECT 1 FROM approval_limit_requests WHERE id = ?1 AND status = 'approved' AND decided_at = ?2 AND decided_by = ?3)`;
  const limit =
    request.amount === null
      ? db.prepare(`DELETE FROM approval_limits WHERE currency = ?4 AND ${decidedHere}`)
      : db.prepare(
          `INSERT INTO approval_limits (currency, amount, updated_at) SELECT ?4, ?5, ?2 WHERE ${decidedHere}
           ON CONFLICT (currency) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`,
        );
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE approval_limit_requests SET status = ?2, decided_by = ?3, decided_by_name = ?4, decided_at = ?5
          WHERE id = ?1 AND status = 'pending' AND expires_at > ?5`,
      )
      .bind(request.id, decision, decider.actor, decider.name, now),
    auditStatementIfChanged(
      db,
      by,
      decision === "approved" ? "approval_limit.approved" : "approval_limit.rejected",
      `limit_request:${request.id}`,
      {
        currency: request.currency,
        amount: request.amount,
        previous: request.previous,
        requestedBy: request.requestedBy,
        requestedByName: request.requestedByName,
      },
    ),
    (request.amount === null
      ? limit.bind(request.id, now, decider.actor, request.currency)
      : limit.bind(request.id, now, decider.actor, request.currency, request.amount)) as D1PreparedStatement,
    // Written only if the statement before it changed the limit: only when this call approved it.
    auditStatementIfChanged(
      db,
      by,
      request.amount === null ? "approval_limit.remove" : "approval_limit.set",
      `currency:${request.currency}`,
      { amount: request.amount, limitRequest: request.id, requestedBy: request.requestedBy },
    ),
  ]);
  return (update!.meta.changes ?? 0) > 0;
}

/** Limit requests by id after `after`, oldest first, one more than `count`; filtered by state at `now`. */
export async function listLimitRequests(
  db: D1Database,
  status: RequestStatus | undefined,
  now: number,
  after: number,
  count: number,
): Promise<LimitRequest[]> {
  const state: Record<string, string> = {
    pending: `status = 'pending' AND expires_at > ?3`,
    expired: `status = 'pending' AND expires_at <= ?3`,
    approved: `status = 'approved'`,
    rejected: `status = 'rejected'`,
    failed: `0`,
  };
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM approval_limit_requests
        WHERE id > ?1 AND ?3 = ?3 AND ${status === undefined ? "1" : state[status]} ORDER BY id LIMIT ?2`,
    )
    .bind(after, count, now)
    .all<LimitRequest>();
  return results;
}

/**
 * Changes a currency's limit at once: lowering it, setting a sandbox currency's first, or, in live,
 * removing one (which makes every posting in it wait). Audited in the same batch.
 */
export async function lowerApprovalLimit(
  db: D1Database,
  by: AuditedBy,
  currency: string,
  amount: string | null,
  now: number,
): Promise<void> {
  const change =
    amount === null
      ? db.prepare(`DELETE FROM approval_limits WHERE currency = ?1`).bind(currency)
      : db
          .prepare(
            `INSERT INTO approval_limits (currency, amount, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (currency) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`,
          )
          .bind(currency, amount, now);
  await db.batch([
    change,
    auditStatement(db, by, amount === null ? "approval_limit.remove" : "approval_limit.set", `currency:${currency}`, {
      amount,
    }),
  ]);
}
