/**
 * A wallet's ledger as a backup: the money lives in the wallet objects, not in D1, so D1's Time Travel
 * and `wrangler d1 export` do not cover it (docs/operations.md, "Backups"). An export is every entry,
 * amounts as decimal strings (exact), oldest first, and every void mark (an order voided for good, which
 * must go on refusing a late charge after a restore); a restore writes them verbatim (same seq, key, kind,
 * amount, balance after, order, reason and time) into a wallet that has no entry, after checking that they
 * form an unbroken chain from zero: each balance is the one before plus the amount, none below zero.
 * So a restored wallet has the same balance, the same ledger and the same idempotency keys (a retried
 * top-up or charge finds its entry) as the one exported.
 */
import { derivedHmacKey, fromBase64, toBase64 } from "../kernel/crypto";
import { Money } from "../pricing/money";
import type { LedgerEntry } from "./ledger";
import { LedgerStore, type VoidMark } from "./wallet-store";

export const LEDGER_EXPORT_FORMAT = "order-service/wallet-ledger/1";

export interface LedgerExport {
  format: typeof LEDGER_EXPORT_FORMAT;
  clientId: string;
  currency: string;
  exportedAt: number;
  /** The wallet object exported (the route adds it; a moved wallet's objects are told apart by it). */
  wallet?: { generation: number; region: string | null };
  /** The balance at export: the last entry's balance after (0 for an empty wallet). */
  balance: string;
  entries: LedgerEntry[];
  /** The orders voided for good: no ledger entry where nothing had been charged. */
  voids: VoidMark[];
  /** The deployment's signature of the export (the route adds it; see signExport): what a restore checks. */
  signature?: string;
  /** A moved wallet's earlier objects, oldest first (the route adds them): history, not restored. */
  previous?: {
    wallet: { generation: number; region: string | null };
    balance: string;
    entries: LedgerEntry[];
    voids: VoidMark[];
  }[];
}

/** Entries read per statement while exporting: bounds what one read holds, not what the export holds. */
const EXPORT_PAGE = 1000;

export function exportLedger(
  store: LedgerStore,
  wallet: { clientId: string; currency: string },
  now: number,
): LedgerExport {
  const entries: LedgerEntry[] = [];
  for (
    let page = store.page(0, EXPORT_PAGE);
    page.length > 0;
    page = store.page(page[page.length - 1]!.seq, EXPORT_PAGE)
  ) {
    entries.push(...page);
  }
  return {
    format: LEDGER_EXPORT_FORMAT,
    clientId: wallet.clientId,
    currency: wallet.currency,
    exportedAt: now,
    balance: store.balance().toFixed(),
    entries,
    voids: store.voids(),
  };
}

/** Why these entries are not a ledger a wallet could have written, or null when they are. */
export function brokenChain(backup: Pick<LedgerExport, "balance" | "entries">): string | null {
  let balance = new Money(0);
  let lastSeq = 0;
  const keys = new Set<string>();
  for (const [index, entry] of backup.entries.entries()) {
    if (!Number.isSafeInteger(entry.seq) || entry.seq <= lastSeq)
      return `entries[${index}]: seq ${entry.seq} does not follow ${lastSeq}`;
    if (keys.has(entry.key)) return `entries[${index}]: key ${JSON.stringify(entry.key)} appears twice`;
    let amount: Money;
    let after: Money;
    try {
      amount = new Money(entry.amount);
      after = new Money(entry.balanceAfter);
    } catch {
      return `entries[${index}]: amount or balanceAfter is not a decimal`;
    }
    if (!amount.isFinite() || !after.isFinite()) return `entries[${index}]: amount or balanceAfter is not a decimal`;
    if (!balance.plus(amount).equals(after))
      return `entries[${index}]: balanceAfter ${entry.balanceAfter} is not ${balance.toFixed()} + ${entry.amount}`;
    if (after.isNegative()) return `entries[${index}]: balanceAfter ${entry.balanceAfter} is below zero`;
    balance = after;
    lastSeq = entry.seq;
    keys.add(entry.key);
  }
  let stated: Money;
  try {
    stated = new Money(backup.balance);
  } catch {
    return "balance is not a decimal";
  }
  if (!stated.equals(balance)) return `balance ${backup.balance} is not the entries' last balance ${balance.toFixed()}`;
  return null;
}

export type RestoreResult =
  | { ok: true; entries: number; balance: string; replayed: boolean }
  | { ok: false; code: "wallet_not_empty" | "ledger_chain_broken"; reason: string };

function sameEntry(a: LedgerEntry, b: LedgerEntry): boolean {
  return (
    a.seq === b.seq &&
    a.key === b.key &&
    a.kind === b.kind &&
    new Money(a.amount).equals(b.amount) &&
    new Money(a.balanceAfter).equals(b.balanceAfter) &&
    a.orderId === b.orderId &&
    a.reason === b.reason &&
    a.createdAt === b.createdAt
  );
}

/**
 * Writes the export's entries verbatim into this wallet's ledger, in one transaction: all or none. Only
 * into a wallet with no entry; the chain is checked first. A wallet that holds exactly these entries
 * already (a restore whose answer was lost, sent again) answers as the restore did, and writes nothing.
 */
export function restoreLedger(
  storage: DurableObjectStorage,
  backup: Pick<LedgerExport, "balance" | "entries" | "voids">,
): RestoreResult {
  const store = new LedgerStore(storage);
  const broken = brokenChain(backup);
  if (broken !== null) return { ok: false, code: "ledger_chain_broken", reason: broken };
  // A void credited back as an entry is a void all the same: its mark is restored even if the export
  // came without it.
  const marks: VoidMark[] = [
    ...backup.voids,
    ...backup.entries
      .filter((entry) => entry.kind === "order_void" && entry.orderId !== null)
      .map((entry) => ({ orderId: entry.orderId!, voidedAt: entry.createdAt, reason: entry.reason })),
  ];
  const markAll = () => {
    for (const mark of marks) store.markVoided(mark.orderId, mark.reason, mark.voidedAt);
  };
  const existing = store.sum();
  if (existing.count > 0) {
    const stored = existing.count === backup.entries.length ? store.page(0, existing.count) : [];
    if (
      stored.length === backup.entries.length &&
      stored.every((entry, index) => sameEntry(entry, backup.entries[index]!))
    ) {
      // A restore whose answer was lost: its marks went with it, in its transaction (this writes nothing).
      storage.transactionSync(markAll);
      return { ok: true, entries: stored.length, balance: store.balance().toFixed(), replayed: true };
    }
    return { ok: false, code: "wallet_not_empty", reason: `the wallet has ${existing.count} entries` };
  }
  storage.transactionSync(() => {
    markAll();
    for (const entry of backup.entries) {
      storage.sql.exec(
        `INSERT INTO ledger (seq, entry_key, kind, amount, balance_after, order_id, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        entry.seq,
        entry.key,
        entry.kind,
        new Money(entry.amount).toFixed(),
        new Money(entry.balanceAfter).toFixed(),
        entry.orderId,
        entry.reason,
        entry.createdAt,
      );
    }
  });
  return { ok: true, entries: backup.entries.length, balance: new Money(backup.balance).toFixed(), replayed: false };
}

/**
 * An export's signature: HMAC-SHA256 over what a restore writes and checks (format, wallet, time, balance,
 * every entry, every void), under a key derived (HKDF, a label of its own) from the deployment's
 * ADMIN_TOKEN. So a restore takes only an export this deployment produced, unchanged: a made-up or edited
 * ledger has no valid signature. Derived rather than a secret of its own, as console sessions are; an
 * export made before a rotation of ADMIN_TOKEN verifies under ADMIN_TOKEN_PREVIOUS in its window, and a
 * new deployment restores another's exports once it is given that deployment's ADMIN_TOKEN.
 */
export const EXPORT_SIGNATURE_PREFIX = "v1,";

type Signed = Pick<LedgerExport, "format" | "clientId" | "currency" | "exportedAt" | "balance" | "entries" | "voids">;

function signedBytes(backup: Signed): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify([
      backup.format,
      backup.clientId,
      backup.currency,
      backup.exportedAt,
      backup.balance,
      backup.entries.map((e) => [e.seq, e.key, e.kind, e.amount, e.balanceAfter, e.orderId, e.reason, e.createdAt]),
      backup.voids.map((v) => [v.orderId, v.voidedAt, v.reason]),
    ]),
  );
}

function exportKey(secret: string): Promise<CryptoKey> {
  return derivedHmacKey(secret, "ledger-export-v1");
}

export async function signExport(backup: Signed, secret: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await exportKey(secret), signedBytes(backup));
  return `${EXPORT_SIGNATURE_PREFIX}${toBase64(new Uint8Array(mac))}`;
}

/** Whether `signature` holds for the export under one of `secrets` (compared in constant time). */
export async function exportSignedBy(backup: Signed, signature: string, secrets: readonly string[]): Promise<boolean> {
  if (!signature.startsWith(EXPORT_SIGNATURE_PREFIX)) return false;
  const mac = fromBase64(signature.slice(EXPORT_SIGNATURE_PREFIX.length));
  if (mac === null) return false;
  for (const secret of secrets)
    if (await crypto.subtle.verify("HMAC", await exportKey(secret), mac, signedBytes(backup))) return true;
  return false;
}
