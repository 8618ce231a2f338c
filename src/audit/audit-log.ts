/** The audit log of operator actions: the one module that writes or reads the audit_log table. */
import type { Actor } from "../http/admin-auth";
import { rowsToFetch } from "../kernel/paging";

/** The audit row of an action, to run in the same D1 batch as the change it records. */
export function auditStatement(db: D1Database, actor: Actor, action: string, target: string, details: unknown): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`)
    .bind(Date.now(), actor.label, action, target, actor.requestId, JSON.stringify(details ?? {}));
}

export async function audit(db: D1Database, actor: Actor, action: string, target: string, details: unknown): Promise<void> {
  await auditStatement(db, actor, action, target, details).run();
}

export interface AuditRow {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string;
  request_id: string;
  details: string;
}

/** Entries after the entry id `after`, oldest first, only about `target` if given; one more than `limit`. */
export async function auditEntriesAfter(db: D1Database, after: number, target: string | null, limit: number): Promise<AuditRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, actor, action, target, request_id, details FROM audit_log
        WHERE id > ?1 AND (?2 IS NULL OR target = ?2) ORDER BY id LIMIT ?3`,
    )
    .bind(after, target, rowsToFetch(limit))
    .all<AuditRow>();
  return results;
}
