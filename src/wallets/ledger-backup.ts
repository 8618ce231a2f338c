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
import type { VoidMark } from "./hold-store";
import type { RestoredEntry } from "./ledger-store";
import { WalletStore } from "./wallet-store";

/** The export's format: v2 carries each entry's client-facing note, and the deployment and mode it is of. */
export const LEDGER_EXPORT_FORMAT = "order-service/wallet-ledger/2";
/** The format of exports made before v2, restored during the overlap only (see V1_EXPORTS_UNTIL). */
export const LEDGER_EXPORT_FORMAT_V1 = "order-service/wallet-ledger/1";

export interface LedgerExport {
  format: typeof LEDGER_EXPORT_FORMAT | typeof LEDGER_EXPORT_FORMAT_V1;
  /** The deployment (its DEPLOYMENT var) and mode the export was made in; absent in a v1 export. */
  deployment?: string;
  mode?: "live" | "sandbox";
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
  store: WalletStore,
  wallet: { clientId: string; currency: string; deployment: string; mode: "live" | "sandbox" },
  now: number,
): LedgerExport {
  const entries: LedgerEntry[] = [];
  for (
    let page = store.ledger.page(0, EXPORT_PAGE);
    page.length > 0;
    page = store.ledger.page(page[page.length - 1]!.seq, EXPORT_PAGE)
  ) {
    entries.push(...page);
  }
  return {
    format: LEDGER_EXPORT_FORMAT,
    deployment: wallet.deployment,
    mode: wallet.mode,
    clientId: wallet.clientId,
    currency: wallet.currency,
    exportedAt: now,
    balance: store.ledger.balance().toFixed(),
    entries,
    voids: store.holds.voids(),
  };
}

/** Why these entries are not a ledger a wallet could have written, or null when they are. */
export function brokenChain(backup: Pick<LedgerExport, "balance"> & { entries: ExportedEntry[] }): string | null {
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

/** What a restore did: `wrote` is false when it wrote no entry (a replay, or an export of none). */
export type RestoreResult =
  | { ok: true; entries: number; balance: string; replayed: boolean; wrote: boolean }
  | { ok: false; code: "wallet_not_empty" | "ledger_chain_broken"; reason: string };

/** An exported entry: a v1 export's have no note. */
export type ExportedEntry = RestoredEntry;

function sameEntry(a: LedgerEntry, b: ExportedEntry): boolean {
  return (
    a.seq === b.seq &&
    a.key === b.key &&
    a.kind === b.kind &&
    new Money(a.amount).equals(b.amount) &&
    new Money(a.balanceAfter).equals(b.balanceAfter) &&
    a.orderId === b.orderId &&
    a.reason === b.reason &&
    (a.note ?? null) === (b.note ?? null) &&
    a.createdAt === b.createdAt
  );
}

/**
 * Writes the export's entries verbatim into this wallet's ledger, in one transaction with the wallet's own
 * record that a restore wrote them (`restores`): all or none. Only into a wallet with no entry; the chain is
 * checked first. A wallet that a restore wrote with exactly these entries (a restore whose answer was lost,
 * sent again) answers as the restore did, and writes nothing; a wallet that wrote the same entries itself
 * is not empty (409), whatever it holds, so that posting a wallet's own export back proves nothing.
 */
export function restoreLedger(
  storage: DurableObjectStorage,
  backup: Pick<LedgerExport, "balance" | "voids"> & { entries: ExportedEntry[] },
  now: number,
): RestoreResult {
  const store = new WalletStore(storage);
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
    for (const mark of marks) store.holds.markVoided(mark.orderId, mark.reason, mark.voidedAt);
  };
  const existing = store.ledger.sum();
  const lastSeq = backup.entries.at(-1)?.seq ?? 0;
  if (existing.count > 0) {
    const stored = existing.count === backup.entries.length ? store.ledger.page(0, existing.count) : [];
    if (
      store.ledger.restoredThrough() === lastSeq &&
      stored.length === backup.entries.length &&
      stored.every((entry, index) => sameEntry(entry, backup.entries[index]!))
    ) {
      // A restore whose answer was lost: its marks went with it, in its transaction (this writes nothing).
      storage.transactionSync(markAll);
      return {
        ok: true,
        entries: stored.length,
        balance: store.ledger.balance().toFixed(),
        replayed: true,
        wrote: true,
      };
    }
    return { ok: false, code: "wallet_not_empty", reason: `the wallet has ${existing.count} entries` };
  }
  storage.transactionSync(() => {
    markAll();
    store.ledger.writeRestored(backup.entries, backup.balance, now);
  });
  const wrote = backup.entries.length > 0;
  return {
    ok: true,
    entries: backup.entries.length,
    balance: new Money(backup.balance).toFixed(),
    replayed: false,
    wrote,
  };
}

/**
 * An export's signature: HMAC-SHA256 over what a restore writes and checks (format, deployment and mode,
 * wallet, time, balance, every entry with its note, every void), under a key derived (HKDF, a label of its
 * own) from LEDGER_EXPORT_KEY, a secret of its own: not ADMIN_TOKEN, so that holding the break-glass token
 * is not holding the means to sign a made-up ledger. The deployment and mode signed are the restoring
 * deployment's own, so an export of another deployment or of the other mode never verifies. A new
 * deployment restores a lost one's exports once given that one's LEDGER_EXPORT_KEY (as its own, or as
 * LEDGER_EXPORT_KEY_PREVIOUS).
 */
export const EXPORT_SIGNATURE_PREFIX = "v2,";
/** The signature of exports made before LEDGER_EXPORT_KEY: under a key derived from ADMIN_TOKEN. */
export const EXPORT_SIGNATURE_PREFIX_V1 = "v1,";

/**
 * Until when a v1 export (signed under a key derived from ADMIN_TOKEN, naming no deployment and no mode)
 * is still restored: 90 days after this format came, the notice the versioning policy gives a breaking
 * change (CHANGELOG.md). From then on only v2 exports are: export every wallet again before it.
 */
export const V1_EXPORTS_UNTIL = Date.parse("2027-03-01T00:00:00Z");

type Signed = Pick<LedgerExport, "format" | "clientId" | "currency" | "exportedAt" | "balance" | "voids"> & {
  entries: ExportedEntry[];
};

/** Where an export is signed and checked: this deployment's name and mode. */
export interface Signer {
  deployment: string;
  mode: "live" | "sandbox";
}

function signedBytes(backup: Signed, signer: Signer): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify([
      backup.format,
      signer.deployment,
      signer.mode,
      backup.clientId,
      backup.currency,
      backup.exportedAt,
      backup.balance,
      backup.entries.map((e) => [
        e.seq,
        e.key,
        e.kind,
        e.amount,
        e.balanceAfter,
        e.orderId,
        e.reason,
        e.note ?? null,
        e.createdAt,
      ]),
      backup.voids.map((v) => [v.orderId, v.voidedAt, v.reason]),
    ]),
  );
}

/** The bytes a v1 signature covered: no deployment, no mode, no note. */
function signedBytesV1(backup: Signed): Uint8Array {
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
  return derivedHmacKey(secret, "ledger-export-v2");
}

export async function signExport(backup: Signed, secret: string, signer: Signer): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await exportKey(secret), signedBytes(backup, signer));
  return `${EXPORT_SIGNATURE_PREFIX}${toBase64(new Uint8Array(mac))}`;
}

async function macHolds(key: Promise<CryptoKey>, mac: Uint8Array, bytes: Uint8Array): Promise<boolean> {
  return crypto.subtle.verify("HMAC", await key, mac, bytes);
}

/** Who may have signed an export: the export keys (v2), and the ADMIN_TOKENs a v1 export may be under. */
export interface ExportKeys {
  exportKeys: readonly string[];
  /** Empty once the v1 overlap is over. */
  adminTokens: readonly string[];
}

/**
 * Whether `signature` holds for the export, as this deployment (`signer`) would have signed it: a v2
 * signature under one of the export keys, or, during the overlap, a v1 export's under one of the admin
 * tokens. Compared in constant time (crypto.subtle.verify).
 */
export async function exportSignedBy(
  backup: Signed,
  signature: string,
  keys: ExportKeys,
  signer: Signer,
): Promise<boolean> {
  const v1 = backup.format === LEDGER_EXPORT_FORMAT_V1;
  const prefix = v1 ? EXPORT_SIGNATURE_PREFIX_V1 : EXPORT_SIGNATURE_PREFIX;
  if (!signature.startsWith(prefix)) return false;
  const mac = fromBase64(signature.slice(prefix.length));
  if (mac === null) return false;
  if (v1) {
    for (const token of keys.adminTokens)
      if (await macHolds(derivedHmacKey(token, "ledger-export-v1"), mac, signedBytesV1(backup))) return true;
    return false;
  }
  for (const secret of keys.exportKeys)
    if (await macHolds(exportKey(secret), mac, signedBytes(backup, signer))) return true;
  return false;
}
