/** The audit log of operator actions: the one module that writes or reads the audit_log table. */
import type { Actor } from "../http/admin-auth";

/** The audit row of an action, to run in the same D1 batch as the change it records. */
export function auditStatement(db: D1Database, actor: Actor, action: string, target: string, details: unknown): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`)
    .bind(Date.now(), actor.label, action, target, actor.requestId, JSON.stringify(details ?? {}));
}

export async function audit(db: D1Database, actor: Actor, action: string, target: string, details: unknown): Promise<void> {
  await auditStatement(db, actor, action, target, details).run();
}
