/**
 * The reconciliation by wallet and day, its pure rules (docs/operator-api.md, Reconciliation): the summary
 * each source gives of one (client, currency, day), what it takes for them to agree, which orders a day
 * that disagrees is drilled into, when a day is settled, sealed and re-verified, and the alert lines.
 *
 * Every set is hashed as the books hash theirs (src/books/set-hash-rules.ts: each pair's SHA-256 truncated
 * to 64 bits, summed modulo 2^64), so that equal sets give equal hashes on both sides.
 */
import { Money } from "../pricing/money";
import { addHash, amountHash, codesHash, hashOf, hashText, ZERO_HASH } from "../books/set-hash-rules";
import type { OrderState } from "../orders/order-view-schemas";
import type { OrderNet } from "../wallets/ledger-day-rules";
import { stateProblem } from "./reconciliation-rules";

export const DAY_MS = 86_400_000;

/** One (client, currency, day): the unit the reconciliation checks, seals and re-verifies. */
export interface WalletDay {
  clientId: string;
  currency: string;
  day: number;
}

/** The key a wallet-day's findings are stored under. */
export function dayKey(day: WalletDay): string {
  return `${day.clientId}\u0000${day.currency}\u0000${day.day}`;
}

/** The day's date, as alert lines and problems say it. */
export function dayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** What one source says a wallet-day moved: the money of its orders, and the codes they delivered. */
export interface MoneySide {
  /** Orders that moved money (charged or refunded something). */
  orders: number;
  charged: string;
  refunded: string;
  chargesHash: string;
  refundsHash: string;
}

export interface CodesSide {
  codes: number;
  codesHash: string;
}

/** One order of the day as the books hold it: what the summary and the drill read of its row. */
export interface BookedOrder {
  id: string;
  state: string;
  total: string;
  charged: string;
  refunded: string;
  codes: number;
  codesHash: string;
  modifiedAt: number;
  createdAt: number;
  /** Its lines the books show delivered. */
  delivered: number;
}

/** What the reconciliation reads of a books row. */
export function bookedOrderOf(
  row: Omit<BookedOrder, "delivered"> & { lines: readonly { outcome: string }[] },
): BookedOrder {
  return {
    id: row.id,
    state: row.state,
    total: row.total,
    charged: row.charged,
    refunded: row.refunded,
    codes: row.codes,
    codesHash: row.codesHash,
    modifiedAt: row.modifiedAt,
    createdAt: row.createdAt,
    delivered: row.lines.filter((line) => line.outcome === "delivered").length,
  };
}

/** The books' money of the day, from its rows. */
export async function booksMoney(rows: readonly BookedOrder[]): Promise<MoneySide> {
  return moneyOf(rows.map((row) => ({ orderId: row.id, charged: row.charged, refunded: row.refunded })));
}

/** The books' codes of the day, from its rows (each row keeps its (code, order) hash). */
export function booksCodes(rows: readonly BookedOrder[]): CodesSide {
  let hash = 0n;
  let codes = 0;
  for (const row of rows) {
    codes += row.codes;
    hash = addHash(hash, hashOf(row.codesHash));
  }
  return { codes, codesHash: hashText(hash) };
}

/** What the ledger kept of an order's charge (a charge voided back keeps 0). */
export function keptCharge(net: Pick<OrderNet, "charged" | "voided">): Money {
  return new Money(net.charged).minus(net.voided);
}

/** The ledger's money of the day, from its orders' movements. */
export async function ledgerMoney(orders: Record<string, OrderNet>): Promise<MoneySide> {
  return moneyOf(
    Object.entries(orders).map(([orderId, net]) => ({
      orderId,
      charged: keptCharge(net).toFixed(),
      refunded: new Money(net.refunded).toFixed(),
    })),
  );
}

async function moneyOf(orders: readonly { orderId: string; charged: string; refunded: string }[]): Promise<MoneySide> {
  let charged = new Money(0);
  let refunded = new Money(0);
  let chargesHash = 0n;
  let refundsHash = 0n;
  let moved = 0;
  for (const order of orders) {
    charged = charged.plus(order.charged);
    refunded = refunded.plus(order.refunded);
    chargesHash = addHash(chargesHash, await amountHash("charge", order.orderId, order.charged));
    refundsHash = addHash(refundsHash, await amountHash("refund", order.orderId, order.refunded));
    if (!new Money(order.charged).isZero() || !new Money(order.refunded).isZero()) moved += 1;
  }
  return {
    orders: moved,
    charged: charged.toFixed(),
    refunded: refunded.toFixed(),
    chargesHash: hashText(chargesHash),
    refundsHash: hashText(refundsHash),
  };
}

/** The codes table's side: the codes sold to the day's orders, hashed as (pin, order) pairs. */
export async function tableCodes(sold: readonly { orderId: string; pin: string }[]): Promise<CodesSide> {
  let hash = 0n;
  const byOrder = new Map<string, string[]>();
  for (const code of sold) byOrder.set(code.orderId, [...(byOrder.get(code.orderId) ?? []), code.pin]);
  for (const [orderId, pins] of byOrder) hash = addHash(hash, await codesHash(orderId, pins));
  return { codes: sold.length, codesHash: hashText(hash) };
}

/** The four summaries of a wallet-day, as a seal stores them. */
export interface DaySummaries {
  books: MoneySide & CodesSide;
  ledger: MoneySide & { entries: number; postings: string; transfers: string };
  codes: CodesSide;
  /** Postings of the day and the audit rows found for them. */
  audit: { postings: number; audited: number };
}

/** What disagrees between the summaries, in words (none: they agree and the day may be sealed). */
export function summaryProblems(summaries: DaySummaries): string[] {
  const { books, ledger, codes, audit } = summaries;
  const problems: string[] = [];
  if (!new Money(books.charged).equals(ledger.charged))
    problems.push(`the books charged ${books.charged}, the ledger ${ledger.charged}`);
  if (!new Money(books.refunded).equals(ledger.refunded))
    problems.push(`the books refunded ${books.refunded}, the ledger ${ledger.refunded}`);
  if (books.chargesHash !== ledger.chargesHash) problems.push("the charges' (order, amount) sets differ");
  if (books.refundsHash !== ledger.refundsHash) problems.push("the refunds' (order, amount) sets differ");
  if (books.codes !== codes.codes || books.codesHash !== codes.codesHash)
    problems.push(`the books delivered ${books.codes} codes, the codes table sold ${codes.codes} to the day's orders`);
  if (audit.postings !== audit.audited)
    problems.push(`${audit.postings} postings, ${audit.audited} with their audit row`);
  return problems;
}

/** What changed since a day was sealed (none: it is as sealed). */
export function sealProblems(sealed: DaySummaries, now: DaySummaries): string[] {
  const problems: string[] = [];
  for (const side of ["books", "ledger", "codes", "audit"] as const)
    if (JSON.stringify(sealed[side]) !== JSON.stringify(now[side]))
      problems.push(`the ${side} of the day changed since its seal`);
  return problems;
}

/** One order of the day from both sides: its books row (if any) and its ledger movements of the day (if any). */
export interface DayOrder {
  orderId: string;
  row: BookedOrder | null;
  net: OrderNet | null;
  /** The (pin, order) hash and count of the codes the table sells to it. */
  sold: CodesSide;
}

/**
 * Whether the two sides agree on an order: the same money, and the codes the books say it delivered; a
 * ledger naming an order the day's books do not hold never agrees (it may be no order of ours, or another
 * wallet's).
 */
export function orderAgrees(order: DayOrder): boolean {
  if (order.net !== null && order.row === null) return false;
  const rowCharged = new Money(order.row?.charged ?? 0);
  const rowRefunded = new Money(order.row?.refunded ?? 0);
  const kept = order.net === null ? new Money(0) : keptCharge(order.net);
  const refunded = new Money(order.net?.refunded ?? 0);
  const other = new Money(order.net?.other ?? 0);
  const codes = { codes: order.row?.codes ?? 0, codesHash: order.row?.codesHash ?? ZERO_HASH };
  // An ended row's state must fit what the ledger moved (an open one may lag its money by seconds).
  const ended = order.row !== null && ["successful", "partial", "failed", "rejected"].includes(order.row.state);
  if (ended && stateProblem(order.row!.state as OrderState, kept, refunded) !== null) return false;
  // Delivered and not paid, as the books alone show it (whatever the state says).
  if ((order.row?.delivered ?? 0) > 0 && !kept.greaterThan(0)) return false;
  return (
    rowCharged.equals(kept) &&
    rowRefunded.equals(refunded) &&
    other.isZero() &&
    codes.codes === order.sold.codes &&
    codes.codesHash === order.sold.codesHash
  );
}

/** Whether either side of an order changed after `settledBy`: it may still be on its way (a row lags its charge). */
export function orderChanging(order: DayOrder, settledBy: number): boolean {
  return (order.row?.modifiedAt ?? 0) > settledBy || (order.net?.lastAt ?? 0) > settledBy;
}

/**
 * How long a day may disagree while its orders are still changing before it is drilled all the same: no
 * order of it stays out of a check for longer than this (an order retried for hours keeps changing).
 */
export const SETTLE_BOUND_MS = 3_600_000;

/** How soon a day that was left settling is looked at again. */
export const SETTLE_RECHECK_MS = 5 * 60_000;

/**
 * When a sealed day is re-verified: 1, 7 and 30 days after its seal (docs/operator-api.md, "Sealed days"),
 * as gaps from one verification to the next.
 */
export const REVERIFY_GAPS_DAYS = [1, 6, 23] as const;

/** When a day sealed or re-verified at `now`, re-verified `verified` times so far, is next; null: never again. */
export function nextVerification(now: number, verified: number): number | null {
  const gap = REVERIFY_GAPS_DAYS[verified];
  return gap === undefined ? null : now + gap * DAY_MS;
}

/** How many days back a pass looks for books that changed: a day older than this changes only by a tampering. */
export const OPEN_DAYS = 3;

/** The alert of a day one check could not read whole (its rows or ledger beyond one step's bound). */
export function largeDayAlert(day: WalletDay, what: string): string {
  return `client ${day.clientId}: its ${day.currency} day ${dayText(day.day)} is larger than one check reads (${what}); checked in part, the rest is not sealed`;
}

/** The alert of a day that has disagreed while still changing for longer than the bound. */
export function unsettledAlert(day: WalletDay, since: number, now: number): string {
  const minutes = Math.round((now - since) / 60_000);
  return `client ${day.clientId}: its ${day.currency} day ${dayText(day.day)} has not settled for ${minutes} minutes; its orders are drilled as they are`;
}
