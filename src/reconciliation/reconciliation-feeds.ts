/**
 * What the reconciliation reads of the audit log: the feed of postings' audit rows after its checkpoint,
 * where a span of time starts in it, and the entries of one wallet object that audit rows name. Reads
 * only; kept apart so that the run itself reads the audit log through here alone.
 */
import { lastAuditIdBefore, postingAuditsAfter, postingAuditsOf, type PostingAudit } from "../audit/audit-store";

export { lastAuditIdBefore, postingAuditsAfter, type PostingAudit };

/**
 * The entries of a wallet object its audit rows name: each posting's row by action and seq, and every
 * entry up to the last a restore wrote (the restore's row covers them). A restore's row is taken only as
 * far as the wallet object itself says a restore wrote its ledger (`restoredThrough`, asked only when such
 * a row exists): a `wallet.restore` row for a wallet no restore wrote covers nothing.
 */
export async function auditedEntries(
  db: D1Database,
  target: string,
  wallet: { restoredThrough(): Promise<number> },
): Promise<{ keys: Set<string>; restoredThrough: number }> {
  const rows = await postingAuditsOf(db, target);
  const restores = rows.filter((row) => row.action === "wallet.restore").map((row) => row.seq ?? 0);
  const claimed = Math.max(0, ...restores);
  return {
    keys: new Set(rows.map((row) => `${row.action}:${row.seq}`)),
    restoredThrough: claimed === 0 ? 0 : Math.min(claimed, await wallet.restoredThrough()),
  };
}
