/**
 * The SQL of dual control's postings: the approval limits per currency (migration 0016), the posting
 * requests, the postings made alone that each credential's window is summed from (both in
 * posting_requests, migration 0024), and the exports a restore request keeps. The treasury writes these
 * tables; the audit row of each change is in the same D1 batch.
 */
import { auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import type { RequestStatus, StoredStatus } from "./approval-rules";

export interface ApprovalLimit {
  currency: string;
  amount: string;
  updatedAt: number;
}

/** A posting request as stored (or a posting made alone, status `posted`). */
export interface PostingRequest {
  id: number;
  clientId: string;
  currency: string;
  kind: "top_up" | "adjustment" | "restore";
  amount: string;
  reason: string;
  /** The client-facing note; null: none (the reason is never shown to the client). */
  note: string | null;
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
  /** Why the wallet refused the posting of a request now `failed`. */
  failure: string | null;
}

const COLUMNS = `id, client_id AS clientId, currency, kind, amount, reason, note, idempotency_key AS idempotencyKey,
  requested_by AS requestedBy, requested_by_name AS requestedByName, requested_at AS requestedAt,
  expires_at AS expiresAt, status, decided_by AS decidedBy, decided_by_name AS decidedByName,
  decided_at AS decidedAt, entry_seq AS entrySeq, failure`;

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

/** A posting as asked for: what a request or a posting made alone stores. */
export type AskedPosting = Omit<
  PostingRequest,
  "id" | "status" | "decidedBy" | "decidedByName" | "decidedAt" | "entrySeq" | "failure"
>;

/**
 * Stores a request unless one with its key exists (a retried request, or two at once: the first wins),
 * with its audit row only if it was stored; answers the request stored under the key.
 */
export async function insertPostingRequest(
  db: D1Database,
  by: AuditedBy,
  request: AskedPosting,
): Promise<PostingRequest> {
  await db.batch(requestStatements(db, by, request));
  return (await postingRequestByKey(db, request.clientId, request.currency, request.idempotencyKey))!;
}

/** A pending request's insert (nothing if its key is stored) and its audit row, only if it was stored. */
function requestStatements(db: D1Database, by: AuditedBy, r: AskedPosting): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO posting_requests (client_id, currency, kind, amount, reason, note, idempotency_key, requested_by,
           requested_by_name, requested_at, expires_at, status)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'pending')
         ON CONFLICT (client_id, currency, idempotency_key) DO NOTHING`,
      )
      .bind(
        r.clientId,
        r.currency,
        r.kind,
        r.amount,
        r.reason,
        r.note,
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
      note: r.note,
      idempotencyKey: r.idempotencyKey,
      expiresAt: r.expiresAt,
    }),
  ];
}

/** What a posting made alone is counted as in its window: its credentials, its amount in minor units, the limit. */
export interface WindowClaim {
  /** The credentials it counts against (the requester's, and its makers' in its first day). */
  answerable: readonly string[];
  /** Its absolute amount in minor units (approval-rules.ts, minorOf). */
  minor: string;
  /** The currency's limit in minor units. */
  limitMinor: string;
  /** Postings made alone after this (ms) are in the window. */
  since: number;
}

/** The window's sum for one credential, as a condition on the claim's own amount (?12) and limit (?13). */
function fitsFor(at: number): string {
  return `(SELECT COALESCE(SUM(amount_minor), 0) FROM posting_requests
             WHERE status = 'posted' AND currency = ?2 AND requested_at > ?14 AND instr(answerable, ?${at}) > 0)
          + CAST(?12 AS INTEGER) <= CAST(?13 AS INTEGER)`;
}

/**
 * Records a posting made alone (status `posted`) if, with it, every credential it counts against has moved
 * at most the limit within the window: one statement, so that two postings at once cannot both take the
 * last of a window. Answers `claimed`; `taken` when a row with its key exists (a retry, or a request);
 * `full` when the window has no room for it.
 */
export async function claimWindow(
  db: D1Database,
  asked: AskedPosting,
  claim: WindowClaim,
): Promise<"claimed" | "taken" | "full"> {
  const tags = claim.answerable.map((credential) => ` ${credential} `);
  const a = asked;
  const inserted = await db
    .prepare(
      `INSERT INTO posting_requests (client_id, currency, kind, amount, reason, note, idempotency_key, requested_by,
         requested_by_name, requested_at, expires_at, status, answerable, amount_minor)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, 'posted', ?11, CAST(?12 AS INTEGER)
        WHERE CAST(?12 AS INTEGER) <= CAST(?13 AS INTEGER) AND ?14 = ?14
          ${tags.map((_, index) => `AND ${fitsFor(15 + index)}`).join("\n          ")}
       ON CONFLICT (client_id, currency, idempotency_key) DO NOTHING`,
    )
    .bind(
      a.clientId,
      a.currency,
      a.kind,
      a.amount,
      a.reason,
      a.note,
      a.idempotencyKey,
      a.requestedBy,
      a.requestedByName,
      a.requestedAt,
      ` ${claim.answerable.join(" ")} `,
      claim.minor,
      claim.limitMinor,
      claim.since,
      ...tags,
    )
    .run();
  if ((inserted.meta.changes ?? 0) > 0) return "claimed";
  return (await postingRequestByKey(db, a.clientId, a.currency, a.idempotencyKey)) === null ? "full" : "taken";
}

/** What `credential` has moved alone in `currency` since `since`, in minor units (a decimal integer's text). */
export async function windowUsed(db: D1Database, currency: string, credential: string, since: number): Promise<string> {
  const row = await db
    .prepare(
      `SELECT CAST(COALESCE(SUM(amount_minor), 0) AS TEXT) AS used FROM posting_requests
        WHERE status = 'posted' AND currency = ?1 AND requested_at > ?2 AND instr(answerable, ?3) > 0`,
    )
    .bind(currency, since, ` ${credential} `)
    .first<{ used: string }>();
  return row?.used ?? "0";
}

/** A decision on a request: who makes it (its audit row's credential, and the decider's columns), and when. */
export interface Decision {
  by: AuditedBy;
  decision: "approved" | "rejected";
  decider: { actor: string; name: string | null };
  now: number;
}

/**
 * Decides a pending, unexpired request (approved or rejected), with its audit row naming the decider and
 * the requester, both only if the request was still open; answers whether this call decided it.
 */
export async function decidePostingRequest(
  db: D1Database,
  request: PostingRequest,
  { by, decision, decider, now }: Decision,
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

/**
 * The wallet refused the posting of an approved request (or of one made alone) for good: it becomes
 * `failed`, with why, and no longer counts in a window; audited once (`wallet.posting_failed`).
 */
export async function markPostingFailed(
  db: D1Database,
  by: AuditedBy,
  request: Pick<PostingRequest, "id" | "clientId" | "currency" | "kind" | "amount" | "idempotencyKey">,
  failure: string,
): Promise<void> {
  await db.batch([
    db
      .prepare(
        `UPDATE posting_requests SET status = 'failed', failure = ?2
          WHERE id = ?1 AND status IN ('approved', 'posted') AND entry_seq IS NULL`,
      )
      .bind(request.id, failure),
    auditStatementIfChanged(db, by, "wallet.posting_failed", `posting_request:${request.id}`, {
      clientId: request.clientId,
      currency: request.currency,
      kind: request.kind,
      amount: request.amount,
      idempotencyKey: request.idempotencyKey,
      failure,
    }),
  ]);
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

/**
 * Requests by id after `after`, oldest first, one more than `count`; filtered by wallet and state at `now`.
 * Postings made alone (`posted`) are not requests and are never listed.
 */
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
    failed: `status = 'failed'`,
  };
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM posting_requests
        WHERE id > ?1 AND (?2 IS NULL OR client_id = ?2) AND (?3 IS NULL OR currency = ?3) AND status <> 'posted'
          AND ?5 = ?5 AND ${filter.status === undefined ? "1" : state[filter.status]}
        ORDER BY id LIMIT ?4`,
    )
    .bind(after, filter.clientId ?? null, filter.currency ?? null, count, now)
    .all<PostingRequest>();
  return results;
}

/** The most characters of an export one row holds: D1 rows hold 2 MB, and a character is up to 3 bytes. */
const EXPORT_PART_CHARS = 600_000;

/**
 * Stores a restore request, the export it will write (in parts) and its audit row in one batch: all or
 * nothing. A request under its key already stored (a retry) is answered as it is, with nothing written.
 */
export async function insertRestoreRequest(
  db: D1Database,
  by: AuditedBy,
  request: AskedPosting,
  exported: string,
): Promise<PostingRequest> {
  const r = request;
  const parts: D1PreparedStatement[] = [];
  for (let at = 0, part = 0; at < exported.length; at += EXPORT_PART_CHARS, part += 1)
    parts.push(
      db
        .prepare(
          `INSERT OR IGNORE INTO posting_request_exports (request_id, part, body)
           SELECT id, ?4, ?5 FROM posting_requests WHERE client_id = ?1 AND currency = ?2 AND idempotency_key = ?3`,
        )
        .bind(r.clientId, r.currency, r.idempotencyKey, part, exported.slice(at, at + EXPORT_PART_CHARS)),
    );
  await db.batch([...requestStatements(db, by, { ...r, kind: "restore", note: null }), ...parts]);
  return (await postingRequestByKey(db, r.clientId, r.currency, r.idempotencyKey))!;
}

/** The export a restore request keeps, whole; null when its parts are missing. */
export async function restoreRequestExport(db: D1Database, id: number): Promise<string | null> {
  const { results } = await db
    .prepare(`SELECT body FROM posting_request_exports WHERE request_id = ?1 ORDER BY part`)
    .bind(id)
    .all<{ body: string }>();
  return results.length === 0 ? null : results.map((row) => row.body).join("");
}
