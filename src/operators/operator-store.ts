/**
 * The operators and console_sessions tables: the one module that writes or reads them. A token is never
 * stored, only its SHA-256 (hex); a session row is the server's word that a console cookie still lives.
 */
import type { Role } from "../kernel/roles";

export interface OperatorRow {
  id: string;
  name: string;
  role: Role;
  created_at: number;
  revoked_at: number | null;
  /** The credential that made it (`operator:<id>`, `break-glass`); null for one made before this was kept. */
  created_by: string | null;
  /** Its makers between spaces, nearest first (colleague-rules.ts); null as `created_by`. */
  makers: string | null;
}

const COLUMNS = "id, name, role, created_at, revoked_at, created_by, makers";

export function insertOperatorStatement(
  db: D1Database,
  row: {
    id: string;
    name: string;
    role: Role;
    tokenHash: string;
    at: number;
    createdBy: string;
    makers: string | null;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO operators (id, name, role, token_hash, created_at, created_by, makers) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
    )
    .bind(row.id, row.name, row.role, row.tokenHash, row.at, row.createdBy, row.makers);
}

/** The operators with these ids (any number: read in slices under D1's bound-parameter limit). */
export async function operatorsByIds(db: D1Database, ids: readonly string[]): Promise<OperatorRow[]> {
  const rows: OperatorRow[] = [];
  for (let start = 0; start < ids.length; start += 90) {
    const slice = ids.slice(start, start + 90);
    const { results } = await db
      .prepare(`SELECT ${COLUMNS} FROM operators WHERE id IN (${slice.map((_, at) => `?${at + 1}`).join(", ")})`)
      .bind(...slice)
      .all<OperatorRow>();
    rows.push(...results);
  }
  return rows;
}

/** Operators made at or after `since` (ms), newest first, at most `limit`: the Needs attention list's. */
export async function operatorsMadeSince(db: D1Database, since: number, limit: number): Promise<OperatorRow[]> {
  const { results } = await db
    .prepare(`SELECT ${COLUMNS} FROM operators WHERE created_at >= ?1 ORDER BY created_at DESC, id LIMIT ?2`)
    .bind(since, limit)
    .all<OperatorRow>();
  return results;
}

/** The operator whose token has this SHA-256, revoked or not, with the stored hash for a constant-time compare. */
export async function operatorByTokenHash(
  db: D1Database,
  tokenHash: string,
): Promise<(OperatorRow & { token_hash: string }) | null> {
  return db.prepare(`SELECT ${COLUMNS}, token_hash FROM operators WHERE token_hash = ?1`).bind(tokenHash).first();
}

export async function operatorById(db: D1Database, id: string): Promise<OperatorRow | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM operators WHERE id = ?1`).bind(id).first();
}

/** Operators by id after `after`, one more than `limit` (the paging helper's contract). */
export async function operatorsAfter(db: D1Database, after: string, limit: number): Promise<OperatorRow[]> {
  const { results } = await db
    .prepare(`SELECT ${COLUMNS} FROM operators WHERE id > ?1 ORDER BY id LIMIT ?2`)
    .bind(after, limit)
    .all<OperatorRow>();
  return results;
}

/** A live operator's new role, if it still has the role `from` (so a concurrent change is not overwritten unseen). */
export function setRoleStatement(db: D1Database, id: string, role: Role, from: Role): D1PreparedStatement {
  return db
    .prepare(`UPDATE operators SET role = ?2 WHERE id = ?1 AND revoked_at IS NULL AND role = ?3 AND role <> ?2`)
    .bind(id, role, from);
}

/** Revokes a live operator (a revoked one keeps its first revocation time). */
export function revokeStatement(db: D1Database, id: string, at: number): D1PreparedStatement {
  return db.prepare(`UPDATE operators SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL`).bind(id, at);
}

/** Ends every console session of an operator: with its revocation, in the same batch. */
export function endSessionsOfStatement(db: D1Database, operatorId: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM console_sessions WHERE operator_id = ?1`).bind(operatorId);
}

export interface SessionRow {
  id: string;
  operator_id: string;
  created_at: number;
  last_seen_at: number;
  name: string;
  role: Role;
  revoked_at: number | null;
}

/** A session with its operator as they are now (role and revocation read fresh on every request). */
export async function sessionById(db: D1Database, id: string): Promise<SessionRow | null> {
  return db
    .prepare(
      `SELECT s.id, s.operator_id, s.created_at, s.last_seen_at, o.name, o.role, o.revoked_at
         FROM console_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.id = ?1`,
    )
    .bind(id)
    .first();
}

/**
 * A new session, and the end of the operator's sessions that are over (signed out rows are gone already;
 * these are the ones that timed out), so the table holds about one row per operator signed in.
 */
export async function insertSession(
  db: D1Database,
  session: { id: string; operatorId: string; at: number },
  idleMs: number,
  absoluteMs: number,
): Promise<void> {
  await db.batch([
    db
      .prepare(`DELETE FROM console_sessions WHERE operator_id = ?1 AND (last_seen_at <= ?2 OR created_at <= ?3)`)
      .bind(session.operatorId, session.at - idleMs, session.at - absoluteMs),
    db
      .prepare(`INSERT INTO console_sessions (id, operator_id, created_at, last_seen_at) VALUES (?1, ?2, ?3, ?3)`)
      .bind(session.id, session.operatorId, session.at),
  ]);
}

/** Moves a session's idle clock to `at`, unless it moved within the last `everyMs` (one write a minute at most). */
export async function touchSession(db: D1Database, id: string, at: number, everyMs: number): Promise<void> {
  await db
    .prepare(`UPDATE console_sessions SET last_seen_at = ?2 WHERE id = ?1 AND last_seen_at <= ?3`)
    .bind(id, at, at - everyMs)
    .run();
}

export async function deleteSession(db: D1Database, id: string): Promise<void> {
  await db.prepare(`DELETE FROM console_sessions WHERE id = ?1`).bind(id).run();
}
