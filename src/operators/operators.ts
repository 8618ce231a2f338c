/**
 * The operator actions, each audited in the same D1 batch as its change: create (the token answered once),
 * change a role, revoke (which ends the operator's console sessions in that batch too). The /admin routes
 * and the console call these alike.
 */
import { auditStatement, auditStatementIfChanged, type AuditedBy } from "../audit/audit-store";
import { randomHex, sha256Hex } from "../kernel/crypto";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { BREAK_GLASS, credentialOf, type Role } from "../kernel/roles";
import { BREAK_GLASS_COLLEAGUE, makersColumn, makersOf, makersOfColumn, type Colleague } from "./colleague-rules";
import {
  endSessionsOfStatement,
  insertOperatorStatement,
  operatorById,
  operatorsAfter,
  operatorsByIds,
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
  /** The credential that made it; null for an operator made before this was kept. */
  createdBy: string | null;
}

export function operatorView(row: OperatorRow): OperatorView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    createdBy: row.created_by,
  };
}

/**
 * The credentials as dual control's rules see them (colleague-rules.ts): who made each operator and when,
 * and when its chain of makers began. Two reads at most: the operators named, then the first operator of
 * each chain. A credential that names no operator row is absent (an unknown or system actor).
 */
export async function colleagues(db: D1Database, credentials: readonly string[]): Promise<Map<string, Colleague>> {
  const found = new Map<string, Colleague>();
  if (credentials.includes(BREAK_GLASS)) found.set(BREAK_GLASS, BREAK_GLASS_COLLEAGUE);
  const idOf = (credential: string) => (credential.startsWith("operator:") ? credential.slice(9) : null);
  const ids = [...new Set(credentials.map(idOf).filter((id): id is string => id !== null))];
  if (ids.length === 0) return found;
  const rows = new Map((await operatorsByIds(db, ids)).map((row) => [row.id, row]));
  // The chain's first operator is the maker just before its root; its creation is when the chain began.
  const firstOf = (row: OperatorRow) => {
    const makers = makersOfColumn(row.makers);
    return makers.length >= 2 ? idOf(makers.at(-2)!) : null;
  };
  const missing = [...rows.values()].map(firstOf).filter((id): id is string => id !== null && !rows.has(id));
  for (const row of missing.length === 0 ? [] : await operatorsByIds(db, [...new Set(missing)])) rows.set(row.id, row);
  for (const id of ids) {
    const row = rows.get(id);
    if (row === undefined) continue;
    const makers = makersOfColumn(row.makers);
    const first = firstOf(row);
    const mintedAt =
      makers.length === 0 ? null : first === null ? row.created_at : (rows.get(first)?.created_at ?? null);
    found.set(`operator:${id}`, { credential: `operator:${id}`, createdAt: row.created_at, makers, mintedAt });
  }
  return found;
}

/** The colleague of the actor of a change (an unknown operator: one made by nobody known, now). */
export async function colleagueOf(db: D1Database, by: AuditedBy): Promise<Colleague> {
  const credential = credentialOf(by.actor);
  return (
    (await colleagues(db, [credential])).get(credential) ?? {
      credential,
      createdAt: null,
      makers: [],
      mintedAt: null,
    }
  );
}

/**
 * A new operator and its token: the token is in this answer only; the table keeps its SHA-256. The
 * operator remembers its makers (the credential that made it, and that one's own makers while it is in its
 * first day): dual control's rules judge colleagues by them.
 */
export async function createOperator(
  db: D1Database,
  by: AuditedBy,
  input: { name: string; role: Role },
): Promise<{ operator: OperatorView; token: string }> {
  const id = `opr_${randomHex(8)}`;
  const token = newOperatorToken();
  const at = Date.now();
  const creator = await colleagueOf(db, by);
  const makers = makersOf(creator, at);
  await db.batch([
    insertOperatorStatement(db, {
      id,
      name: input.name,
      role: input.role,
      tokenHash: await sha256Hex(token),
      at,
      createdBy: creator.credential,
      makers: makersColumn(makers),
    }),
    auditStatement(db, by, "operator.create", `operator:${id}`, {
      name: input.name,
      role: input.role,
      makers,
    }),
  ]);
  return {
    operator: { id, name: input.name, role: input.role, createdAt: at, revokedAt: null, createdBy: creator.credential },
    token,
  };
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
