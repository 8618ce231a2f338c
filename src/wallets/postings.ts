/**
 * The wallet's posting rules over its ledger: one entry per key, a debit never below zero, and a void that
 * is final (after it, the order can never be charged). Synchronous over the LedgerStore, so each rule's
 * read and its append are one step that no other call can interleave with.
 */
import { Money } from "../pricing/money";
import { decideDebit, type LedgerEntry, type LedgerKind } from "./ledger";
import { orderIdOfChargeKey, voidKey } from "./ledger-keys";
import type { LedgerStore } from "./wallet-storage";

export interface Posting {
  /** Idempotency key: one ledger entry per key, ever. */
  key: string;
  kind: LedgerKind;
  /** Non-negative decimal string whose kind says debit or credit; an adjustment is signed itself. */
  amount: string;
  orderId?: string | null;
  reason?: string | null;
}

export type PostingResult =
  | { ok: true; entry: LedgerEntry; replayed: boolean }
  | { ok: false; code: "insufficient_funds"; balance: string }
  | { ok: false; code: "idempotency_conflict"; entry: LedgerEntry }
  /** The order was voided (`entry` is its void): it can never be charged, and nothing was written. */
  | { ok: false; code: "order_voided"; entry: LedgerEntry };

/** What a test or an operator sweep checks: the balance is the ledger's sum. */
export interface WalletAudit {
  balance: string;
  ledgerSum: string;
  entries: number;
}

const DEBIT_KINDS: ReadonlySet<LedgerKind> = new Set(["order_charge"]);
/** Kinds whose amount carries its own sign: an operator adjustment may take money out. */
const SIGNED_KINDS: ReadonlySet<LedgerKind> = new Set(["adjustment"]);

/** The void entry of the order a charge posting is for, if that order was voided. */
function voidOfCharge(store: LedgerStore, posting: Posting): LedgerEntry | null {
  if (posting.kind !== "order_charge") return null;
  const orderIds = new Set<string>();
  for (const orderId of [posting.orderId ?? null, orderIdOfChargeKey(posting.key)]) if (orderId !== null) orderIds.add(orderId);
  return store.voidOf([...orderIds]);
}

/** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
export function post(store: LedgerStore, posting: Posting): PostingResult {
  const amount = new Money(posting.amount);
  if (!amount.isFinite() || (amount.isNegative() && !SIGNED_KINDS.has(posting.kind))) {
    throw new Error("posting amount must be a non-negative decimal");
  }
  // Checked before the replay: a charge that landed before its order's void must not read as "charged".
  const voided = voidOfCharge(store, posting);
  if (voided !== null) return { ok: false, code: "order_voided", entry: voided };
  const signed = DEBIT_KINDS.has(posting.kind) ? amount.negated() : amount;
  const existing = store.byKey(posting.key);
  if (existing !== null) {
    return existing.kind === posting.kind && new Money(existing.amount).equals(signed)
      ? { ok: true, entry: existing, replayed: true }
      : { ok: false, code: "idempotency_conflict", entry: existing };
  }
  const balance = store.balance();
  let balanceAfter: Money;
  if (signed.isNegative()) {
    const decision = decideDebit(balance, signed.abs());
    if (!decision.ok) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
    balanceAfter = decision.balanceAfter;
  } else {
    balanceAfter = balance.plus(signed);
  }
  const entry = store.append({
    key: posting.key,
    kind: posting.kind,
    amount: signed,
    balanceAfter,
    orderId: posting.orderId ?? null,
    reason: posting.reason ?? null,
  });
  return { ok: true, entry, replayed: false };
}

/**
 * Voids the order for good: one `order_void` entry under its void key that credits back its charge if one
 * landed (else 0). A second void answers the first entry. After it, `post` refuses any charge of the order.
 */
export function voidOrder(store: LedgerStore, orderId: string, reason: string, chargeKeyOfOrder: string): LedgerEntry {
  const key = voidKey(orderId);
  const existing = store.byKey(key);
  if (existing !== null) return existing;
  const charge = store.byKey(chargeKeyOfOrder);
  const credit = charge === null ? new Money(0) : new Money(charge.amount).abs();
  return store.append({ key, kind: "order_void", amount: credit, balanceAfter: store.balance().plus(credit), orderId, reason });
}

export function audit(store: LedgerStore): WalletAudit {
  const { total, count } = store.sum();
  return { balance: store.balance().toFixed(), ledgerSum: total.toFixed(), entries: count };
}


