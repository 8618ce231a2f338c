/** The audit log of operator actions: the one module that writes or reads the audit_log table. */
import { rowsToFetch } from "../kernel/paging";
import type { Actor } from "../kernel/roles";

/** A change the service makes on its own (the reservation sweep), named `system:<name>`. */
export interface SystemActor {
  kind: "system";
  name: string;
}

/** Who made a change and in which request: what every audit row records. */
export interface AuditedBy {
  actor: Actor | SystemActor;
  requestId: string;
}

/**
 * The actor column: `operator:<id>` for a named operator, the break-glass token's label (`admin:<8 hex>`,
 * as rows before named operators were written), `system:<name>`; and the operator's name as it was then.
 */
export function actorColumns(actor: Actor | SystemActor): { actor: string; name: string | null } {
  switch (actor.kind) {
    case "operator":
      return { actor: `operator:${actor.id}`, name: actor.name };
    case "break-glass":
      return { actor: actor.label ?? "admin", name: null };
    case "system":
      return { actor: `system:${actor.name}`, name: null };
  }
}

const AUDIT_COLUMNS = "INSERT INTO audit_log (at, actor, actor_name, action, target, request_id, details)";

/** The audit row's insert (`source`: its values ?1..?7, or a SELECT of them), bound to this action. */
function boundAuditRow(
  db: D1Database,
  source: string,
  { by, action, target, details }: { by: AuditedBy; action: string; target: string; details: unknown },
): D1PreparedStatement {
  const actor = actorColumns(by.actor);
  return db
    .prepare(`${AUDIT_COLUMNS} ${source}`)
    .bind(Date.now(), actor.actor, actor.name, action, target, by.requestId, JSON.stringify(details ?? {}));
}

/** The audit row of an action, to run in the same D1 batch as the change it records. */
export function auditStatement(
  db: D1Database,
  by: AuditedBy,
  action: string,
  target: string,
  details: unknown,
): D1PreparedStatement {
  return boundAuditRow(db, "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", { by, action, target, details });
}

/**
 * The audit row of an action whose change is the statement just before it in the same D1 batch: written
 * only if that statement changed a row (SQLite's changes()), so a change that found nothing to do, or lost
 * a race, leaves no row claiming it happened.
 */
export function auditStatementIfChanged(
  db: D1Database,
  by: AuditedBy,
  action: string,
  target: string,
  details: unknown,
): D1PreparedStatement {
  return boundAuditRow(db, "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE changes() > 0", {
    by,
    action,
    target,
    details,
  });
}

export async function audit(
  db: D1Database,
  by: AuditedBy,
  action: string,
  target: string,
  details: unknown,
): Promise<void> {
  await auditStatement(db, by, action, target, details).run();
}

/**
 * The audit row of a ledger entry, written once per entry: on the first post, or on the retry that finds
 * the entry without its row (the entry lives in the wallet object, the row in D1, so no one batch holds
 * both). The entry's `seq` in `details` is what makes it once.
 */
export async function auditLedgerEntryOnce(
  db: D1Database,
  by: AuditedBy,
  action: string,
  target: string,
  details: { seq: number } & Record<string, unknown>,
): Promise<void> {
  const actor = actorColumns(by.actor);
  await db
    .prepare(
      `INSERT INTO audit_log (at, actor, actor_name, action, target, request_id, details)
       SELECT ?1, ?2, ?8, ?3, ?4, ?5, ?6
        WHERE NOT EXISTS (SELECT 1 FROM audit_log WHERE target = ?4 AND action = ?3 AND json_extract(details, '$.seq') = ?7)`,
    )
    .bind(Date.now(), actor.actor, action, target, by.requestId, JSON.stringify(details), details.seq, actor.name)
    .run();
}

export interface AuditRow {
  id: number;
  at: number;
  actor: string;
  actor_name: string | null;
  action: string;
  target: string;
  request_id: string;
  details: string;
}

/** Entries after the entry id `after`, oldest first, only about `target` if given; one more than `limit`. */
export async function auditEntriesAfter(
  db: D1Database,
  after: number,
  target: string | null,
  limit: number,
): Promise<AuditRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, actor, actor_name, action, target, request_id, details FROM audit_log
        WHERE id > ?1 AND (?2 IS NULL OR target = ?2) ORDER BY id LIMIT ?3`,
    )
    .bind(after, target, rowsToFetch(limit))
    .all<AuditRow>();
  return results;
}

/** What the console's audit page filters by; each absent filter lets every row through. */
export interface AuditFilters {
  /** Rows whose actor (`operator:<id>`, `admin:<8 hex>`, `system:<name>`) or operator name contains this text. */
  actor?: string;
  /** Rows whose action starts with this (`wallet.` for every wallet action). */
  action?: string;
  /** Rows about exactly this target (`client:acme`). */
  target?: string;
  /** Rows at or after this time (Unix ms). */
  from?: number;
  /** Rows before this time (Unix ms). */
  to?: number;
}

/**
 * Rows matching `filters` with an id below `before` (null: from the newest), newest first, at most
 * `rows` of them. Every filter is bound as a parameter, never spliced into the SQL.
 */
export async function auditEntriesBefore(
  db: D1Database,
  filters: AuditFilters,
  before: number | null,
  rows: number,
): Promise<AuditRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, actor, actor_name, action, target, request_id, details FROM audit_log
        WHERE (?1 IS NULL OR id < ?1)
          AND (?2 IS NULL OR instr(actor, ?2) > 0 OR instr(coalesce(actor_name, ''), ?2) > 0)
          AND (?3 IS NULL OR substr(action, 1, length(?3)) = ?3)
          AND (?4 IS NULL OR target = ?4)
          AND (?5 IS NULL OR at >= ?5)
          AND (?6 IS NULL OR at < ?6)
        ORDER BY id DESC LIMIT ?7`,
    )
    .bind(
      before,
      filters.actor ?? null,
      filters.action ?? null,
      filters.target ?? null,
      filters.from ?? null,
      filters.to ?? null,
      rows,
    )
    .all<AuditRow>();
  return results;
}

/** The audit row of an operator's posting to a wallet: which object, which entry, what it said. */
export interface PostingAudit {
  id: number;
  at: number;
  action: string;
  /** `wallet:<client>:<currency>` or, for a moved wallet's later object, `…:<generation>`. */
  target: string;
  seq: number | null;
  amount: string | null;
}

const POSTING_ACTIONS = `('wallet.top_up', 'wallet.adjustment')`;

function postingAudit(row: { id: number; at: number; action: string; target: string; details: string }): PostingAudit {
  const details = JSON.parse(row.details) as { seq?: unknown; amount?: unknown };
  return {
    id: row.id,
    at: row.at,
    action: row.action,
    target: row.target,
    seq: typeof details.seq === "number" ? details.seq : null,
    amount: details.amount === undefined || details.amount === null ? null : String(details.amount),
  };
}

/** Up to `limit` audit rows of postings (top-ups, adjustments) after row `after` and at or before `to` (ms). */
export async function postingAuditsAfter(
  db: D1Database | D1DatabaseSession,
  after: number,
  to: number,
  limit: number,
): Promise<PostingAudit[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, action, target, details FROM audit_log
        WHERE id > ?1 AND at <= ?2 AND action IN ${POSTING_ACTIONS} ORDER BY id LIMIT ?3`,
    )
    .bind(after, to, limit)
    .all<{ id: number; at: number; action: string; target: string; details: string }>();
  return results.map(postingAudit);
}

/**
 * The audit rows of postings to one wallet object, and of restores into it (whose `seq` is the last entry
 * the restore wrote), by the audit log's target index.
 */
export async function postingAuditsOf(db: D1Database | D1DatabaseSession, target: string): Promise<PostingAudit[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, action, target, details FROM audit_log
        WHERE target = ?1 AND action IN ('wallet.top_up', 'wallet.adjustment', 'wallet.restore') ORDER BY id`,
    )
    .bind(target)
    .all<{ id: number; at: number; action: string; target: string; details: string }>();
  return results.map(postingAudit);
}

/**
 * The id of the last audit row written before `at` (0: none): the log is appended in time order, so a
 * halving search over ids finds it in a few one-row reads instead of a scan of the time column.
 */
export async function lastAuditIdBefore(db: D1Database | D1DatabaseSession, at: number): Promise<number> {
  const top = (await db.prepare(`SELECT max(id) AS id FROM audit_log`).first<{ id: number | null }>())?.id ?? 0;
  const before = async (id: number) =>
    ((await db.prepare(`SELECT at FROM audit_log WHERE id >= ?1 ORDER BY id LIMIT 1`).bind(id).first<{ at: number }>())
      ?.at ?? Infinity) < at;
  let low = 0;
  let high = top + 1;
  // Invariant: every row up to `low` is before `at`; the first row from `high` on is not.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await before(middle)) low = middle;
    else high = middle;
  }
  return low;
}
