/**
 * What the reconciliation reads of the audit log: the feed of postings' audit rows after its checkpoint,
 * where a span of time starts in it, and the entries of one wallet object that audit rows name. Reads
 * only; kept apart so that the run itself reads the audit log through here alone.
 */
import { lastAuditIdBefore, postingAuditsAfter, postingAuditsOf, type PostingAudit } from "../audit/audit-store";

export { lastAuditIdBefore, postingAuditsAfter, type PostingAudit };

/**
 * The entries of a wallet object its audit rows name: each posting's row by action and seq, and every
 * entry up to the last a restore wrote (the restore's row covers them).
 */
export async function auditedEntries(
  db: D1Database,
  target: string,
): Promise<{ keys: Set<string>; restoredThrough: number }> {
  const rows = await postingAuditsOf(db, target);
  const restores = rows.filter((row) => row.action === "wallet.restore").map((row) => row.seq ?? 0);
  return {
    keys: new Set(rows.map((row) => `${row.action}:${row.seq}`)),
    restoredThrough: Math.max(0, ...restores),
  };
}
