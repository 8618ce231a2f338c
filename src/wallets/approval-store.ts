/**
 * The SQL of dual control: the approval limits per currency and the posting requests (migration 0016).
 * The wallets domain writes both tables; the audit row of each change is in the same D1 batch.
 */
import { auditStatement, auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import type { RequestStatus, StoredStatus } from "./approval-rules";

export interface ApprovalLimit {
  currency: string;
  amount: string;
  updatedAt: number;
}

/** A posting request as stored. */
export interface PostingRequest {
  id: number;
  clientId: string;
  currency: string;
  kind: "top_up" | "adjustment";
  amount: string;
  reason: string;
  idempotencyKey: string;
  requestedBy: string;
  requestedByName: string | null;
  requestedAt: number;
  expiresAt: number;
  status: StoredStatus;
  decidedBy: string | null;
  decidedByName: string | null;
  decidedAt: number | null;
  entrySeq: number | null;
}

const COLUMNS = `id, client_id AS clientId, currency, kind, amount, reason, idempotency_key AS idempotencyKey,
  requested_by AS requestedBy, requested_by_name AS requestedByName, requested_at AS requestedAt,
  expires_at AS expiresAt, status, decided_by AS decidedBy, decided_by_name AS decidedByName,
  decided_at AS decidedAt, entry_seq AS entrySeq`;

export async function approvalLimitOf(db: D1Database, currency: string): Promise<string | null> {
  const row = await db
    .prepare(`SELECT amount FROM approval_limits WHERE currency = ?1`)
    .bind(currency)
    .first<{ amount: string }>();
  return row?.amount ?? null;
}

export async function listApprovalLimits(db: D1Database): Promise<ApprovalLimit[]> {
  const { results } = await db
    .prepare(`SELECT currency, amount, updated_at AS updatedAt FROM approval_limits ORDER BY currency`)
    .all<ApprovalLimit>();
  return results;
}

/** Sets (amount) or removes (null) a currency's limit, audited in the same batch. */
export async function writeApprovalLimit(
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

export async function postingRequestById(db: D1Database, id: number): Promise<PostingRequest | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM posting_requests WHERE id = ?1`).bind(id).first<PostingRequest>();
}

export async function postingRequestByKey(
  db: D1Database,
  clientId: string,
  currency: string,
  idempotencyKey: string,
): Promise<PostingRequest | null> {
  return db
    .prepare(`SELECT ${COLUMNS} FROM posting_requests WHERE client_id = ?1 AND currency = ?2 AND idempotency_key = ?3`)
    .bind(clientId, currency, idempotencyKey)
    .first<PostingRequest>();
}

/**
 * Stores a request unless one with its key exists (a retried request, or two at once: the first wins),
 * with its audit row only if it was stored; answers the request stored under the key.
 */
export async function insertPostingRequest(
  db: D1Database,
  by: AuditedBy,
  request: Omit<PostingRequest, "id" | "status" | "decidedBy" | "decidedByName" | "decidedAt" | "entrySeq">,
): Promise<PostingRequest> {
  const r = request;
  await db.batch([
    db
      .prepare(
        `INSERT INTO posting_requests (client_id, currency, kind, amount, reason, idempotency_key, requested_by,
           requested_by_name, requested_at, expires_at, status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'pending')
         ON CONFLICT (client_id, currency, idempotency_key) DO NOTHING`,
      )
      .bind(
        r.clientId,
        r.currency,
        r.kind,
        r.amount,
        r.reason,
        r.idempotencyKey,
        r.requestedBy,
        r.requestedByName,
        r.requestedAt,
        r.expiresAt,
      ),
    auditStatementIfChanged(db, by, "wallet.posting_requested", `wallet:${r.clientId}:${r.currency}`, {
      kind: r.kind,
      amount: r.amount,
      reason: r.reason,
      idempotencyKey: r.idempotencyKey,
      expiresAt: r.expiresAt,
    }),
  ]);
  return (await postingRequestByKey(db, r.clientId, r.currency, r.idempotencyKey))!;
}

/**
 * Decides a pending, unexpired request (approved or rejected), with its audit row naming the decider and
 * the requester, both only if the request was still open; answers whether this call decided it.
 */
export async function decidePostingRequest(
  db: D1Database,
  by: AuditedBy,
  request: PostingRequest,
  decision: "approved" | "rejected",
  decider: { actor: string; name: string | null },
  now: number,
): Promise<boolean> {
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE posting_requests SET status = ?2, decided_by = ?3, decided_by_name = ?4, decided_at = ?5
          WHERE id = ?1 AND status = 'pending' AND expires_at > ?5`,
      )
      .bind(request.id, decision, decider.actor, decider.name, now),
    auditStatementIfChanged(
      db,
      by,
      decision === "approved" ? "wallet.posting_approved" : "wallet.posting_rejected",
      `posting_request:${request.id}`,
      {
        clientId: request.clientId,
        currency: request.currency,
        kind: request.kind,
        amount: request.amount,
        idempotencyKey: request.idempotencyKey,
        requestedBy: request.requestedBy,
        requestedByName: request.requestedByName,
      },
    ),
  ]);
  return (update!.meta.changes ?? 0) > 0;
}

/** Records the ledger entry an approved request posted. */
export async function recordPostedEntry(db: D1Database, id: number, seq: number): Promise<void> {
  await db.prepare(`UPDATE posting_requests SET entry_seq = ?2 WHERE id = ?1`).bind(id, seq).run();
}

/** A wallet's approved requests whose posting is not recorded yet (an approval cut off midway), oldest first. */
export async function unfinishedApprovals(
  db: D1Database,
  clientId: string,
  currency: string,
): Promise<PostingRequest[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM posting_requests
        WHERE status = 'approved' AND entry_seq IS NULL AND client_id = ?1 AND currency = ?2 ORDER BY id LIMIT 50`,
    )
    .bind(clientId, currency)
    .all<PostingRequest>();
  return results;
}

/** Requests by id after `after`, oldest first, one more than `count`; filtered by wallet and state at `now`. */
export async function listPostingRequests(
  db: D1Database,
  filter: { clientId?: string; currency?: string; status?: RequestStatus },
  now: number,
  after: number,
  count: number,
): Promise<PostingRequest[]> {
  // Expired is pending past its expiry, computed here as requestStatus computes it.
  const state = {
    pending: `status = 'pending' AND expires_at > ?5`,
    expired: `status = 'pending' AND expires_at <= ?5`,
    approved: `status = 'approved'`,
    rejected: `status = 'rejected'`,
  };
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM posting_requests
        WHERE id > ?1 AND (?2 IS NULL OR client_id = ?2) AND (?3 IS NULL OR currency = ?3)
          AND ?5 = ?5 AND ${filter.status === undefined ? "1" : state[filter.status]}
        ORDER BY id LIMIT ?4`,
    )
    .bind(after, filter.clientId ?? null, filter.currency ?? null, count, now)
    .all<PostingRequest>();
  return results;
}
