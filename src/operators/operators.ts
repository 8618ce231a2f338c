/**
 * The operator actions, each audited in the same D1 batch as its change: create (the token answered once),
 * change a role, revoke (which ends the operator's console sessions in that batch too). The /admin routes
 * and the console call these alike.
 */
import { auditStatement, auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import { randomHex, sha256Hex } from "../kernel/crypto";
import { pageOf, rowsToFetch } from "../kernel/paging";
import type { Role } from "../kernel/roles";
import {
  endSessionsOfStatement,
  insertOperatorStatement,
  operatorById,
  operatorsAfter,
  revokeStatement,
  setRoleStatement,
  type OperatorRow,
} from "./operator-store";
import { newOperatorToken } from "./operator-tokens";

export interface OperatorView {
  id: string;
  name: string;
  role: Role;
  createdAt: number;
  revokedAt: number | null;
}

export function operatorView(row: OperatorRow): OperatorView {
  return { id: row.id, name: row.name, role: row.role, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** A new operator and its token: the token is in this answer only; the table keeps its SHA-256. */
export async function createOperator(
  db: D1Database,
  by: AuditedBy,
  input: { name: string; role: Role },
): Promise<{ operator: OperatorView; token: string }> {
  const id = `opr_${randomHex(8)}`;
  const token = newOperatorToken();
  const at = Date.now();
  await db.batch([
    insertOperatorStatement(db, { id, name: input.name, role: input.role, tokenHash: await sha256Hex(token), at }),
    auditStatement(db, by, "operator.create", `operator:${id}`, { name: input.name, role: input.role }),
  ]);
  return { operator: { id, name: input.name, role: input.role, createdAt: at, revokedAt: null }, token };
}

export type OperatorChange =
  { ok: true; operator: OperatorView; changed: boolean } | { ok: false; reason: "not_found" | "revoked" };

/**
 * Gives a live operator another role. The audit row is written only when the UPDATE changed the row (the
 * same role again, or a revocation that landed first, changes nothing and writes no row).
 */
export async function changeRole(db: D1Database, by: AuditedBy, id: string, role: Role): Promise<OperatorChange> {
  const before = await operatorById(db, id);
  if (before === null) return { ok: false, reason: "not_found" };
  if (before.revoked_at !== null) return { ok: false, reason: "revoked" };
  const [update] = await db.batch([
    setRoleStatement(db, id, role, before.role),
    auditStatementIfChanged(db, by, "operator.role", `operator:${id}`, { from: before.role, to: role }),
  ]);
  const after = await operatorById(db, id);
  if (after === null) return { ok: false, reason: "not_found" };
  if (after.revoked_at !== null) return { ok: false, reason: "revoked" };
  return { ok: true, operator: operatorView(after), changed: update!.meta.changes > 0 };
}

/**
 * Revokes an operator: its token stops working on the next request and its console sessions end, in one
 * batch with the audit row. Revoking a revoked operator changes nothing and writes no row.
 */
export async function revokeOperator(db: D1Database, by: AuditedBy, id: string): Promise<OperatorChange> {
  const before = await operatorById(db, id);
  if (before === null) return { ok: false, reason: "not_found" };
  const [update] = await db.batch([
    revokeStatement(db, id, Date.now()),
    auditStatementIfChanged(db, by, "operator.revoke", `operator:${id}`, { name: before.name, role: before.role }),
    endSessionsOfStatement(db, id),
  ]);
  const after = (await operatorById(db, id))!;
  return { ok: true, operator: operatorView(after), changed: update!.meta.changes > 0 };
}

/** Operators by id, after the id `after`; `next` continues the list. */
export async function listOperators(
  db: D1Database,
  after: string,
  limit: number,
): Promise<{ operators: OperatorView[]; next: string | null }> {
  const page = pageOf(await operatorsAfter(db, after, rowsToFetch(limit)), limit, (row) => row.id);
  return { operators: page.items.map(operatorView), next: page.next };
}
