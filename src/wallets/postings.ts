/**
 * The wallet's posting rules over its ledger: one entry per key, a debit never below zero, a void that is
 * final (after it, the order can never be charged), and holds that bound what one client's open orders
 * may reserve. Synchronous over the LedgerStore, so each rule's read and its writes are one step that no
 * other call can interleave with (and that commits as one).
 */
import { Money } from "../pricing/money";
import { decideDebit, type LedgerEntry, type LedgerKind } from "./ledger";
import { chargeKey, orderIdOfChargeKey, voidKey } from "./ledger-keys";
import type { LedgerStore } from "./wallet-storage";

export interface Posting {
  /** Idempotency key: one ledger entry per key, ever. */
  key: string;
  /**
   * Keys of the same caller's other kind of posting (an operator's top-up and adjustment share one
   * idempotency key space): an entry under any of them makes this posting a conflict, not a second entry.
   */
  exclusiveWith?: readonly string[];
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
  /** The order was voided (at `voidedAt`): it can never be charged, and nothing was written. */
  | { ok: false; code: "order_voided"; voidedAt: number };

/** What the wallet knows of an order's charge, in one answer: a void is final, whatever landed before it. */
export type ChargeStatus = { status: "voided"; voidedAt: number } | { status: "charged"; entry: LedgerEntry } | { status: "not_charged" };

/** A void: when it was marked, and the credit that gave back a charge which had landed (null: none had). */
export interface OrderVoid {
  orderId: string;
  voidedAt: number;
  credit: LedgerEntry | null;
}

/** An open order's claim on the balance while it holds stock (until it is charged, voided or lapses). */
export interface Hold {
  orderId: string;
  /** What the order will cost, a non-negative decimal string in the wallet's currency. */
  amount: string;
  /** The order's expiresAt: the hold counts until then. */
  until: number;
}

export type HoldResult =
  | { ok: true; balance: string; held: string }
  | { ok: false; code: "insufficient_funds"; balance: string }
  /** The balance covers the order, but not together with what the client's other open orders hold. */
  | { ok: false; code: "balance_held"; balance: string; held: string };

/** What a test or an operator sweep checks: the balance is the ledger's sum. */
export interface WalletAudit {
  balance: string;
  ledgerSum: string;
  entries: number;
}

const DEBIT_KINDS: ReadonlySet<LedgerKind> = new Set(["order_charge"]);
/** Kinds whose amount carries its own sign: an operator adjustment may take money out. */
const SIGNED_KINDS: ReadonlySet<LedgerKind> = new Set(["adjustment"]);

/** The orders a charge posting is for (by its orderId and by its key). */
function ordersOfCharge(posting: Posting): string[] {
  if (posting.kind !== "order_charge") return [];
  const orderIds = new Set<string>();
  for (const orderId of [posting.orderId ?? null, orderIdOfChargeKey(posting.key)]) if (orderId !== null) orderIds.add(orderId);
  return [...orderIds];
}

/** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
export function post(store: LedgerStore, posting: Posting): PostingResult {
  const amount = new Money(posting.amount);
  if (!amount.isFinite() || (amount.isNegative() && !SIGNED_KINDS.has(posting.kind))) {
    throw new Error("posting amount must be a non-negative decimal");
  }
  // Checked before the replay: a charge that landed before its order's void must not read as "charged".
  const orderIds = ordersOfCharge(posting);
  const voidedAt = store.voidedAt(orderIds);
  if (voidedAt !== null) return { ok: false, code: "order_voided", voidedAt };
  const signed = DEBIT_KINDS.has(posting.kind) ? amount.negated() : amount;
  for (const key of posting.exclusiveWith ?? []) {
    const other = store.byKey(key);
    if (other !== null) return { ok: false, code: "idempotency_conflict", entry: other };
  }
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
  // A charged order is no longer open: it holds nothing from here on.
  for (const orderId of orderIds) store.dropHold(orderId);
  return { ok: true, entry, replayed: false };
}

/**
 * Voids the order for good: marks it voided (a mark, not a ledger entry: it moves no money) and, if its
 * charge had landed, credits that charge back as an `order_void` entry under its void key. A second void
 * answers the first. After it, `post` refuses any charge of the order.
 */
export function voidOrder(store: LedgerStore, orderId: string, reason: string, now: number): OrderVoid {
  const voidedAt = store.voidedAt([orderId]);
  if (voidedAt !== null) return { orderId, voidedAt, credit: store.byKey(voidKey(orderId)) };
  const charge = store.byKey(chargeKey(orderId));
  let credit: LedgerEntry | null = null;
  if (charge !== null) {
    const amount = new Money(charge.amount).abs();
    credit = store.append({ key: voidKey(orderId), kind: "order_void", amount, balanceAfter: store.balance().plus(amount), orderId, reason });
  }
  store.markVoided(orderId, reason, now);
  store.dropHold(orderId);
  return { orderId, voidedAt: now, credit };
}

/** Charged, not charged, or voided (final, even where a charge landed before the void): one read. */
export function chargeStatus(store: LedgerStore, orderId: string): ChargeStatus {
  const voidedAt = store.voidedAt([orderId]);
  if (voidedAt !== null) return { status: "voided", voidedAt };
  const entry = store.byKey(chargeKey(orderId));
  return entry === null ? { status: "not_charged" } : { status: "charged", entry };
}

/**
 * Holds the order's amount against the balance while it holds stock: refused when the balance is short
 * of the order alone (insufficient_funds), or of the order together with what the client's other open
 * orders still hold (balance_held). A retried create replaces its own hold.
 */
export function hold(store: LedgerStore, { orderId, amount, until }: Hold, now: number): HoldResult {
  const wanted = new Money(amount);
  if (!wanted.isFinite() || wanted.isNegative()) throw new Error("hold amount must be a non-negative decimal");
  const balance = store.balance();
  if (balance.lessThan(wanted)) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
  const held = store.heldBesides(orderId, now);
  if (balance.minus(held).lessThan(wanted)) return { ok: false, code: "balance_held", balance: balance.toFixed(), held: held.toFixed() };
  store.placeHold(orderId, wanted, until, now);
  return { ok: true, balance: balance.toFixed(), held: held.plus(wanted).toFixed() };
}

export function audit(store: LedgerStore): WalletAudit {
  const { total, count } = store.sum();
  return { balance: store.balance().toFixed(), ledgerSum: total.toFixed(), entries: count };
}


