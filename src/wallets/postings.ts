/**
 * The wallet's posting rules over its ledger: one entry per key, a debit never below zero, a void that is
 * final (after it, the order can never be charged), and holds that bound what one client's open orders
 * may reserve. Synchronous over the WalletStore, so each rule's read and its writes are one step that no
 * other call can interleave with (and that commits as one).
 */
import { Money, type Money as MoneyT } from "../pricing/money";
import { decideDebit, type LedgerEntry, type LedgerKind } from "./ledger";
import { chargeKey, forwardKey, orderIdOfChargeKey, voidKey } from "./ledger-keys";
import type { StoredHold } from "./hold-store";
import type { Successor } from "./move-store";
import type { WalletStore } from "./wallet-store";
import { expiriesInARow, openOrderLimit } from "./open-order-rules";

/** Where a wallet's object is: its generation (0: its first object) and the region it was placed with. */
export interface Placement {
  generation: number;
  region: string | null;
}

/**
 * Money that left a moved wallet for its successor: the `move_out` entry written here under `key`, which
 * the successor takes in as a `move_in` entry under the same key (`moveIn`), with the open orders' holds.
 */
export interface Transfer {
  key: string;
  /** Non-negative decimal string. */
  amount: string;
  holds: StoredHold[];
  to: Placement;
}

/** What a moved wallet answers a charge, hold or posting it no longer takes: go to its successor. */
export interface WalletMoved {
  ok: false;
  code: "wallet_moved";
  /** The move itself: the caller delivers it (idempotently) before it calls the successor. */
  transfer: Transfer;
}

export function isWalletMoved(answer: unknown): answer is WalletMoved {
  return typeof answer === "object" && answer !== null && (answer as { code?: unknown }).code === "wallet_moved";
}

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
  /** An operator posting's client-facing note (the reason is never shown to the client). */
  note?: string | null;
  /** The UTC day the order was created on, for an order's charge or refund: the reconciliation's day of it. */
  orderDay?: number | null;
  /**
   * An operator's top-up or adjustment names the wallet's client and currency: a new credit then writes
   * its `wallet.funded` event in the same transaction (wallet-events.ts).
   */
  announce?: { clientId: string; currency: string } | null;
}

export type PostingResult =
  /** `forward`: a moved wallet took the credit and passed it on; the caller delivers it to the successor. */
  | { ok: true; entry: LedgerEntry; replayed: boolean; forward?: Transfer | null }
  | WalletMoved
  | { ok: false; code: "insufficient_funds"; balance: string }
  | { ok: false; code: "idempotency_conflict"; entry: LedgerEntry }
  /** The order was voided (at `voidedAt`): it can never be charged, and nothing was written. */
  | { ok: false; code: "order_voided"; voidedAt: number };

/** What the wallet knows of an order's charge, in one answer: a void is final, whatever landed before it. */
export type ChargeStatus =
  | { status: "voided"; voidedAt: number }
  | { status: "charged"; entry: LedgerEntry }
  | { status: "not_charged" }
  /** Neither here, and the wallet has moved: ask the successor. */
  | (WalletMoved & { status: "moved" });

/** A void: when it was marked, and the credit that gave back a charge which had landed (null: none had). */
export interface OrderVoid {
  orderId: string;
  voidedAt: number;
  credit: LedgerEntry | null;
  /** The credit passed on by a moved wallet, for the caller to deliver (null: none). */
  forward?: Transfer | null;
  /** A moved wallet's successor, where the void goes on (a charge may have followed the move there). */
  successor?: Placement | null;
}

/**
 * An open order's claim on the balance and on stock while it holds codes: from before its codes are
 * reserved until it is charged or voided, or its create lets go of it (`releaseHold`).
 */
export interface Hold {
  orderId: string;
  /** What the order will cost, a non-negative decimal string in the wallet's currency. */
  amount: string;
  /** The order's expiresAt (kept for the reader; a hold does not lapse by the clock). */
  until: number;
  /** How many codes the order will reserve. */
  codes: number;
  /** The most codes the client's open orders in this wallet may hold together (the operator's cap). */
  maxCodes: number;
  /** The bound of the client's open orders in this wallet (absent: none; open-order-rules.ts). */
  open?: OpenBound;
}

/** MAX_OPEN_ORDERS and EXPIRED_ORDERS_BACKOFF_STEP, as the create hands them to the wallet. */
export interface OpenBound {
  maxOpen: number;
  backoffStep: number;
}

/** An open order that reserves no codes: it takes a slot, and its balance is checked. */
export interface OpenOrder {
  orderId: string;
  /** What the order will cost: the balance must cover it (it is not held). */
  amount: string;
  /** The order's expiresAt: its slot is free again then, if it was not charged or voided before. */
  until: number;
  open: OpenBound;
}

/** The client's open orders already reach their bound (halved while its orders keep expiring). */
export interface OpenOrdersRefused {
  ok: false;
  code: "open_orders_limit";
  open: number;
  limit: number;
  expiredInARow: number;
}

export type OpenOrderResult =
  | { ok: true; balance: string }
  | { ok: false; code: "insufficient_funds"; balance: string }
  | OpenOrdersRefused
  | WalletMoved;

export type HoldResult =
  | { ok: true; balance: string; held: string }
  | { ok: false; code: "insufficient_funds"; balance: string }
  /** The balance covers the order, but not together with what the client's other open orders hold. */
  | { ok: false; code: "balance_held"; balance: string; held: string }
  /** The client's other open orders already hold so many codes that this order's would pass the cap. */
  | { ok: false; code: "held_codes_limit"; heldCodes: number; limit: number }
  | OpenOrdersRefused
  | WalletMoved;

/** What letting go of a hold answers: done (there may have been none), or where the wallet moved. */
export type ReleaseResult = { ok: true } | WalletMoved;

/** The balance an order's create checks, or where the wallet moved. */
/** `lowBalanceThreshold`: the client's threshold of the wallet, when it set one (GET /wallets shows it). */
export type FundsResult = { ok: true; balance: string; lowBalanceThreshold?: string } | WalletMoved;

/** What taking in a transfer answers: `forward` when this wallet has moved too and passed it on. */
export type MoveInResult =
  | { ok: true; entry: LedgerEntry; replayed: boolean; forward: Transfer | null }
  | { ok: false; code: "idempotency_conflict"; entry: LedgerEntry };

/** What a test or an operator sweep checks: the balance is the ledger's sum. */
export interface WalletAudit {
  balance: string;
  ledgerSum: string;
  entries: number;
}

const DEBIT_KINDS: ReadonlySet<LedgerKind> = new Set(["order_charge", "move_out"]);
/** Credits that belong beside an order's charge: a moved wallet still takes them, and forwards them. */
const ORDER_CREDITS: ReadonlySet<LedgerKind> = new Set(["order_refund"]);

function placementOf(successor: Successor): Placement {
  return { generation: successor.generation, region: successor.region };
}

/** The transfer out under `key` as the successor takes it in, or null when there is none. */
function transferOut(store: WalletStore, key: string): Transfer | null {
  const successor = store.moves.successor();
  const entry = store.ledger.byKey(key);
  const holds = store.moves.transferHolds(key);
  if (successor === null || entry === null || holds === null) return null;
  return { key, amount: new Money(entry.amount).abs().toFixed(), holds, to: placementOf(successor) };
}

/** A posting's answer names a forward only when there is one: a wallet that never moved answers as before. */
function forwarded(forward: Transfer | null): { forward?: Transfer } {
  return forward === null ? {} : { forward };
}

function moved(store: WalletStore, successor: Successor): WalletMoved {
  return { ok: false, code: "wallet_moved", transfer: transferOut(store, successor.moveKey)! };
}

/**
 * Passes a credit a moved wallet just took on to its successor: a `move_out` of the same amount under the
 * credit's forward key, in the same step as the credit, so the moved wallet's balance stays 0.
 */
function forwardCredit(
  store: WalletStore,
  creditKey: string,
  amount: MoneyT,
  holds: StoredHold[],
  reason: string | null,
): Transfer {
  const key = forwardKey(creditKey);
  const balance = store.ledger.balance();
  store.ledger.append({
    key,
    kind: "move_out",
    amount: amount.negated(),
    balanceAfter: balance.minus(amount),
    orderId: null,
    reason,
  });
  store.moves.recordTransfer(key, holds);
  return transferOut(store, key)!;
}
/** Kinds whose amount carries its own sign: an operator adjustment may take money out. */
const SIGNED_KINDS: ReadonlySet<LedgerKind> = new Set(["adjustment"]);

/** The orders a charge posting is for (by its orderId and by its key). */
function ordersOfCharge(posting: Posting): string[] {
  if (posting.kind !== "order_charge") return [];
  const orderIds = new Set<string>();
  for (const orderId of [posting.orderId ?? null, orderIdOfChargeKey(posting.key)])
    if (orderId !== null) orderIds.add(orderId);
  return [...orderIds];
}

/** Debits or credits the wallet once per key. A replay of a key returns the entry it first wrote. */
export function post(store: WalletStore, posting: Posting): PostingResult {
  const amount = new Money(posting.amount);
  if (!amount.isFinite() || (amount.isNegative() && !SIGNED_KINDS.has(posting.kind))) {
    throw new Error("posting amount must be a non-negative decimal");
  }
  // Checked before the replay: a charge that landed before its order's void must not read as "charged".
  const orderIds = ordersOfCharge(posting);
  const voidedAt = store.holds.voidedAt(orderIds);
  if (voidedAt !== null) return { ok: false, code: "order_voided", voidedAt };
  const signed = DEBIT_KINDS.has(posting.kind) ? amount.negated() : amount;
  for (const key of posting.exclusiveWith ?? []) {
    const other = store.ledger.byKey(key);
    if (other !== null) return { ok: false, code: "idempotency_conflict", entry: other };
  }
  const existing = store.ledger.byKey(posting.key);
  if (existing !== null) {
    return existing.kind === posting.kind && new Money(existing.amount).equals(signed)
      ? { ok: true, entry: existing, replayed: true, ...forwarded(transferOut(store, forwardKey(posting.key))) }
      : { ok: false, code: "idempotency_conflict", entry: existing };
  }
  // A moved wallet takes only the credits of orders it charged (passing each on); anything else is the
  // successor's. Keys it knows were answered above, so a retry after the move finds its first entry.
  const successor = store.moves.successor();
  if (successor !== null && !ORDER_CREDITS.has(posting.kind)) return moved(store, successor);
  const balance = store.ledger.balance();
  let balanceAfter: Money;
  if (signed.isNegative()) {
    const decision = decideDebit(balance, signed.abs());
    if (!decision.ok) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
    balanceAfter = decision.balanceAfter;
  } else {
    balanceAfter = balance.plus(signed);
  }
  const entry = store.ledger.append({
    key: posting.key,
    kind: posting.kind,
    amount: signed,
    balanceAfter,
    orderId: posting.orderId ?? null,
    reason: posting.reason ?? null,
    note: posting.note ?? null,
    orderDay: posting.orderId == null ? null : (posting.orderDay ?? null),
  });
  // A charged order is no longer open: it holds nothing from here on, and the client's run of expired
  // orders is over.
  for (const orderId of orderIds) store.holds.dropHold(orderId);
  if (orderIds.length > 0) store.holds.endExpiryRun();
  const forward = successor === null ? null : forwardCredit(store, posting.key, signed, [], posting.reason ?? null);
  return { ok: true, entry, replayed: false, ...forwarded(forward) };
}

/**
 * Voids the order for good: marks it voided (a mark, not a ledger entry: it moves no money) and, if its
 * charge had landed, credits that charge back as an `order_void` entry under its void key. A second void
 * answers the first. After it, `post` refuses any charge of the order.
 */
export function voidOrder(store: WalletStore, orderId: string, reason: string, now: number): OrderVoid {
  const successor = store.moves.successor();
  // Only a moved wallet says more than a void always did: where the void goes on, and a credit passed on.
  const moves = (forward: Transfer | null) =>
    successor === null ? {} : { forward, successor: placementOf(successor) };
  const voidedAt = store.holds.voidedAt([orderId]);
  if (voidedAt !== null)
    return {
      orderId,
      voidedAt,
      credit: store.ledger.byKey(voidKey(orderId)),
      ...moves(transferOut(store, forwardKey(voidKey(orderId)))),
    };
  const charge = store.ledger.byKey(chargeKey(orderId));
  let credit: LedgerEntry | null = null;
  let forward: Transfer | null = null;
  if (charge !== null) {
    const amount = new Money(charge.amount).abs();
    credit = store.ledger.append({
      key: voidKey(orderId),
      kind: "order_void",
      amount,
      balanceAfter: store.ledger.balance().plus(amount),
      orderId,
      reason,
      // The void gives back the charge: it is of the charge's day.
      orderDay: store.ledger.orderDayOf(charge.key),
    });
    if (successor !== null) forward = forwardCredit(store, voidKey(orderId), amount, [], reason);
  }
  store.holds.markVoided(orderId, reason, now);
  store.holds.dropHold(orderId);
  // An order voided uncharged expired unconfirmed (a void is its expiry's): one more in the client's run.
  if (charge === null) store.holds.noteExpired(expiriesInARow(store.holds.expiryStreak(), now) + 1, now);
  return { orderId, voidedAt: now, credit, ...moves(forward) };
}

/** Charged, not charged, or voided (final, even where a charge landed before the void): one read. */
export function chargeStatus(store: WalletStore, orderId: string): ChargeStatus {
  const voidedAt = store.holds.voidedAt([orderId]);
  if (voidedAt !== null) return { status: "voided", voidedAt };
  const entry = store.ledger.byKey(chargeKey(orderId));
  if (entry !== null) return { status: "charged", entry };
  const successor = store.moves.successor();
  return successor === null ? { status: "not_charged" } : { status: "moved", ...moved(store, successor) };
}

/** The balance a create checks, or where the wallet moved (its own balance is then 0). */
export function funds(store: WalletStore): FundsResult {
  const successor = store.moves.successor();
  return successor === null ? { ok: true, balance: store.ledger.balance().toFixed() } : moved(store, successor);
}

/**
 * Moves the wallet to its successor, in one step: marks it moved, debits its whole balance as a `move_out`
 * entry under the move's key and takes its standing holds along. Answers every transfer the wallet made,
 * the move first (then any credit passed on since), for the caller to deliver. Idempotent: once moved,
 * it answers the transfers it made, whatever it is asked again.
 */
export function moveOut(
  store: WalletStore,
  move: { key: string; to: Placement; reason: string },
  now: number,
): Transfer[] {
  if (store.moves.successor() !== null) return transfers(store);
  const balance = store.ledger.balance();
  const holds = store.holds.standingHolds();
  store.ledger.append({
    key: move.key,
    kind: "move_out",
    amount: balance.negated(),
    balanceAfter: new Money(0),
    orderId: null,
    reason: move.reason,
  });
  store.moves.recordTransfer(move.key, holds);
  store.holds.dropAllHolds();
  store.moves.markMoved({ generation: move.to.generation, region: move.to.region, moveKey: move.key, movedAt: now });
  return transfers(store);
}

/**
 * Takes in a transfer from the wallet's predecessor as a `move_in` entry under the transfer's key, once,
 * with the holds it carries (but not those of orders charged or voided here meanwhile, nor lapsed ones).
 * A wallet that has moved on itself passes it on at once, holds and all.
 */
export function moveIn(store: WalletStore, transfer: Transfer, reason: string, now: number): MoveInResult {
  const amount = new Money(transfer.amount);
  if (!amount.isFinite() || amount.isNegative()) throw new Error("transfer amount must be a non-negative decimal");
  const existing = store.ledger.byKey(transfer.key);
  if (existing !== null) {
    return existing.kind === "move_in" && new Money(existing.amount).equals(amount)
      ? { ok: true, entry: existing, replayed: true, forward: transferOut(store, forwardKey(transfer.key)) }
      : { ok: false, code: "idempotency_conflict", entry: existing };
  }
  const entry = store.ledger.append({
    key: transfer.key,
    kind: "move_in",
    amount,
    balanceAfter: store.ledger.balance().plus(amount),
    orderId: null,
    reason,
  });
  const holds = transfer.holds.filter(
    (hold) => store.holds.voidedAt([hold.orderId]) === null && store.ledger.byKey(chargeKey(hold.orderId)) === null,
  );
  if (store.moves.successor() !== null)
    return { ok: true, entry, replayed: false, forward: forwardCredit(store, transfer.key, amount, holds, reason) };
  for (const hold of holds) store.holds.placeHold(hold.orderId, new Money(hold.amount), hold.until, hold.codes ?? 0);
  return { ok: true, entry, replayed: false, forward: null };
}

/** Every transfer this wallet made to its successor (the move and each credit passed on), oldest first. */
export function transfers(store: WalletStore): Transfer[] {
  return store.moves.transferKeys().map((key) => transferOut(store, key)!);
}

/**
 * Holds the order's amount against the balance, and its codes against the client's cap, before it reserves
 * stock: refused when the balance is short of the order alone (insufficient_funds), or of the order
 * together with what the client's other open orders still hold (balance_held), or when their codes and
 * this order's would pass `maxCodes` (held_codes_limit: an order that costs nothing still counts). A
 * retried create replaces its own hold.
 */
export function hold(store: WalletStore, { orderId, amount, until, codes, maxCodes, open }: Hold): HoldResult {
  const wanted = new Money(amount);
  if (!wanted.isFinite() || wanted.isNegative()) throw new Error("hold amount must be a non-negative decimal");
  if (!Number.isInteger(codes) || codes < 0) throw new Error("hold codes must be a non-negative integer");
  const successor = store.moves.successor();
  if (successor !== null) return moved(store, successor);
  const balance = store.ledger.balance();
  if (balance.lessThan(wanted)) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
  const held = store.holds.heldBesides(orderId);
  if (balance.minus(held.amount).lessThan(wanted))
    return { ok: false, code: "balance_held", balance: balance.toFixed(), held: held.amount.toFixed() };
  if (held.codes + codes > maxCodes)
    return { ok: false, code: "held_codes_limit", heldCodes: held.codes, limit: maxCodes };
  const refused = open === undefined ? null : openOrdersRefused(store, orderId, open, Date.now());
  if (refused !== null) return refused;
  store.holds.placeHold(orderId, wanted, until, codes);
  return { ok: true, balance: balance.toFixed(), held: held.amount.plus(wanted).toFixed() };
}

/** Why the client may not open one more order now (its open orders reach their bound), or null. */
function openOrdersRefused(
  store: WalletStore,
  orderId: string,
  bound: OpenBound,
  now: number,
): OpenOrdersRefused | null {
  const expiredInARow = expiriesInARow(store.holds.expiryStreak(), now);
  const limit = openOrderLimit(bound.maxOpen, expiredInARow, bound.backoffStep);
  const open = store.holds.openOrders(orderId, now);
  return open < limit ? null : { ok: false, code: "open_orders_limit", open, limit, expiredInARow };
}

/**
 * An order that reserves no codes, at its create: refused when the balance is short of it
 * (insufficient_funds) or when the client's open orders reach their bound (open_orders_limit); otherwise
 * it takes a slot (one row, reused: open-order-rules.ts) and holds no money. A retried create finds its
 * own slot.
 */
export function openOrder(
  store: WalletStore,
  { orderId, amount, until, open }: OpenOrder,
  now: number,
): OpenOrderResult {
  const successor = store.moves.successor();
  if (successor !== null) return moved(store, successor);
  const balance = store.ledger.balance();
  if (balance.lessThan(amount)) return { ok: false, code: "insufficient_funds", balance: balance.toFixed() };
  const refused = openOrdersRefused(store, orderId, open, now);
  if (refused !== null) return refused;
  store.holds.takeSlot(orderId, until, now);
  return { ok: true, balance: balance.toFixed() };
}

/** A create that stores no order lets go of its hold (idempotent); a moved wallet's successor has it. */
export function releaseHold(store: WalletStore, orderId: string): ReleaseResult {
  const successor = store.moves.successor();
  if (successor !== null) return moved(store, successor);
  store.holds.dropHold(orderId);
  return { ok: true };
}

export function audit(store: WalletStore): WalletAudit {
  const { total, count } = store.ledger.sum();
  return { balance: store.ledger.balance().toFixed(), ledgerSum: total.toFixed(), entries: count };
}
