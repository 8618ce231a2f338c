/**
 * The reconciliation's pure rules (reconciliation.ts runs them; those of a wallet-day are in day-rules.ts):
 * what each check is called, how an order's ledger lines must agree with its books row, and what a mismatch
 * says to look at.
 */
import { Money, type Money as MoneyT } from "../pricing/money";
import type { OrderState } from "../orders/order-view-schemas";

/**
 * Orders and ledger entries changed this recently are left to the next pass: their order may still be
 * under way (a refund posted before the order stores it), and the books row may lag its order by seconds.
 */
export const DEFAULT_GRACE_SECONDS = 600;

/** The longest span an on-demand run checks. */
export const MAX_PERIOD_MS = 31 * 86_400_000;

/** A viewer's run from the console: the changes of the last day. */
export const ON_DEMAND_PERIOD_MS = 86_400_000;

/** What each check compares; docs/operator-api.md, Reconciliation, says what each means. */
export const CHECK_NAMES = [
  "charge_for_delivery",
  "index_matches_order",
  "ledger_matches_order",
  "codes_match_redeem",
  "unknown_order",
  "posting_audited",
  "audit_has_posting",
  "transfer_paired",
  "balance_matches_ledger",
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

export interface Mismatch {
  check: CheckName;
  orderId: string | null;
  clientId: string | null;
  problem: string;
  /** The operator routes that show what disagrees. */
  lookAt: string[];
}

/** Where to look: the order (when it has one of ours) and the wallet's whole ledger. */
export function lookAt(orderId: string | null, clientId: string | null, currency: string | null): string[] {
  const paths: string[] = [];
  if (orderId !== null) paths.push(`/admin/orders/${encodeURIComponent(orderId)}`);
  if (clientId !== null && currency !== null)
    paths.push(`/admin/wallets/${encodeURIComponent(clientId)}/${encodeURIComponent(currency)}/ledger`);
  return paths;
}

/** What a run counted. */
export interface Checked {
  /** Wallet-days checked, and of them those sealed (their summaries agreed, or every order did). */
  days: number;
  sealedDays: number;
  /** Orders drilled into (record, books row, ledger lines and codes compared). */
  orders: number;
  /** Of those, orders still changing whose day had not settled within the bound, judged all the same. */
  ordersPastBound: number;
  /** Wallets whose ledgers and balances were checked, and the wallet objects (one per region) read. */
  wallets: number;
  walletObjects: number;
  /** Ledger entries of the days checked. */
  ledgerEntries: number;
  /** Audit rows of top-ups and adjustments compared with their ledger entries. */
  postingAudits: number;
  /** Codes the codes table sells to the days' orders, compared with those their books delivered. */
  soldCodes: number;
  /** Move transfers whose other side was read. */
  transfers: number;
  /** Orders still changing (their day left settling), and wallet-days due beyond this pass's budget. */
  leftToNextRun: number;
  /** Wallet-days handed to the reconciliation's queue, whose consumer checks them. */
  handedOut: number;
}

export function noneChecked(): Checked {
  return {
    days: 0,
    sealedDays: 0,
    orders: 0,
    ordersPastBound: 0,
    wallets: 0,
    walletObjects: 0,
    ledgerEntries: 0,
    postingAudits: 0,
    soldCodes: 0,
    transfers: 0,
    leftToNextRun: 0,
    handedOut: 0,
  };
}

export interface Reconciliation {
  /** The span of changes the run read: from (exclusive) to (inclusive), unix ms. */
  createdFrom: number;
  createdTo: number;
  /** False when a budget stopped it: the next run resumes where it did. */
  complete: boolean;
  checked: Checked;
  mismatches: Mismatch[];
  /** What needs an operator beside the mismatches: a run that did not finish, a rising backlog. */
  alerts: string[];
}

/** The alert of a run that started (at `startedAt`) and never finished; null when the last run finished. */
export function unfinishedAlert(startedAt: number, finishedAt: number): string | null {
  return startedAt > finishedAt
    ? `the run started at ${new Date(startedAt).toISOString()} did not finish; this one resumed from its checkpoint`
    : null;
}

/** One order's lines in one wallet's ledger (every object it has been), summed by kind. */
export interface OrderMoney {
  clientId: string;
  currency: string;
  /** What its charges took, positive. */
  charged: MoneyT;
  /** What voids of a charge gave back. */
  voided: MoneyT;
  refunded: MoneyT;
  /** Any other kind of entry naming the order (the service writes none). */
  other: MoneyT;
  /** The signed sum of every line. */
  net: MoneyT;
  lastAt: number;
  /** How many of its lines fall in the period checked. */
  inPeriod: number;
}

export function emptyMoney(clientId: string, currency: string): OrderMoney {
  const zero = new Money(0);
  return {
    clientId,
    currency,
    charged: zero,
    voided: zero,
    refunded: zero,
    other: zero,
    net: zero,
    lastAt: 0,
    inPeriod: 0,
  };
}

/** Adds one ledger line of the order. */
export function addLine(money: OrderMoney, kind: string, amount: string, at: number, inPeriod: boolean): OrderMoney {
  const value = new Money(amount);
  return {
    ...money,
    charged: kind === "order_charge" ? money.charged.minus(value) : money.charged,
    voided: kind === "order_void" ? money.voided.plus(value) : money.voided,
    refunded: kind === "order_refund" ? money.refunded.plus(value) : money.refunded,
    other: ["order_charge", "order_void", "order_refund"].includes(kind) ? money.other : money.other.plus(value),
    net: money.net.plus(value),
    lastAt: Math.max(money.lastAt, at),
    inPeriod: money.inPeriod + (inPeriod ? 1 : 0),
  };
}

/** An order as the index holds it, as far as the ledger can check it. */
export interface IndexedMoney {
  state: OrderState;
  wallet: string;
  charged: string;
  refunded: string;
}

/**
 * What disagrees between an order (as its index row would say it) and its ledger lines (none: they agree). The charge
 * must be what the ledger kept of the charge (a rejected order's charge, landed by a cut-off confirm, is
 * voided back: 0), its refunds the ledger's refunds, and its state what those amounts say: nothing
 * refunded when successful, everything when failed, some but not all when partial, nothing charged when
 * rejected.
 */
export function ledgerProblems(row: IndexedMoney, money: OrderMoney): string[] {
  const problems: string[] = [];
  const kept = money.charged.minus(money.voided);
  if (row.wallet !== money.currency)
    problems.push(`the ${money.currency} ledger names the order, which says it is paid in ${row.wallet}`);
  if (!kept.equals(row.charged))
    problems.push(`the ledger charged ${kept.toFixed()} (after voids), the order says ${row.charged} (${row.state})`);
  if (!money.refunded.equals(row.refunded))
    problems.push(`the ledger refunded ${money.refunded.toFixed()}, the order says ${row.refunded} (${row.state})`);
  if (!money.other.isZero())
    problems.push(`the ledger holds ${money.other.toFixed()} of other movements naming the order`);
  const stateSays = stateProblem(row.state, kept, money.refunded);
  if (stateSays !== null) problems.push(stateSays);
  return problems;
}

/** Whether the ledger's amounts fit the order's state; null when they do. */
export function stateProblem(state: OrderState, kept: MoneyT, refunded: MoneyT): string | null {
  const said = `the order says ${state}, the ledger kept a charge of ${kept.toFixed()} and refunded ${refunded.toFixed()}`;
  switch (state) {
    case "rejected":
      return kept.isZero() && refunded.isZero() ? null : said;
    case "successful":
      return kept.greaterThan(0) && refunded.isZero() ? null : said;
    case "failed":
      return kept.greaterThan(0) && refunded.equals(kept) ? null : said;
    case "partial":
      return refunded.greaterThan(0) && refunded.lessThan(kept) ? null : said;
    case "processing":
      return kept.greaterThan(0) && refunded.lessThanOrEqualTo(kept) ? null : said;
    default:
      return said;
  }
}

/** An order's index row as far as the order can check it. */
export interface IndexedAmounts {
  state: OrderState;
  total: string;
  charged: string;
  refunded: string;
}

/** What the index row says that the order does not (none: they agree). Amounts compare as numbers. */
export function indexProblems(row: IndexedAmounts, order: IndexedAmounts): string[] {
  const problems: string[] = [];
  if (row.state !== order.state) problems.push(`the index says ${row.state}, the order is ${order.state}`);
  for (const field of ["total", "charged", "refunded"] as const)
    if (!new Money(row[field]).equals(order[field]))
      problems.push(`the index says ${field} ${row[field]}, the order ${new Money(order[field]).toFixed()}`);
  return problems;
}

/**
 * An order that was charged (by its state) or delivered anything (a line fulfilled, or any redeem handed
 * over, whichever supplier) must have a charge the ledger kept: the problem when it has none, else null.
 */
export function deliveryProblem(
  state: OrderState,
  lines: readonly { status: string; redeem: unknown }[],
  money: OrderMoney,
): string | null {
  const delivered = lines.filter((line) => line.status === "fulfilled" || line.redeem !== null).length;
  const chargedByState = ["confirmed", "processing", "successful", "partial", "failed"].includes(state);
  if (!chargedByState && delivered === 0) return null;
  const kept = money.charged.minus(money.voided);
  if (kept.greaterThan(0)) return null;
  return delivered > 0
    ? `${state}: ${delivered} line${delivered === 1 ? "" : "s"} delivered, but the ledger holds no charge for the order`
    : `${state}: the order says it was charged, but the ledger holds no charge for it`;
}

/** A code as the codes table has it. */
export interface CodeRow {
  id: number;
  sku: string;
  pin: string;
  status: string;
  orderId: string | null;
}

/**
 * What disagrees between an order's redeem (its inventory lines' pins) and the codes table: a code sold
 * to it that its redeem lacks (only once the order is settled: a sale lands before the redeem is stored),
 * and a pin of its redeem the table does not sell to it (named by where the code is now). A code is named
 * by its row id, never by its pin.
 */
export function redeemProblems(
  orderId: string,
  redeemed: readonly { sku: string; pin: string }[],
  soldToOrder: readonly CodeRow[],
  byPin: readonly CodeRow[],
  settled: boolean,
): string[] {
  const key = (code: { sku: string; pin: string }) => `${code.sku}\u0000${code.pin}`;
  const inRedeem = new Set(redeemed.map(key));
  const sold = new Set(soldToOrder.map(key));
  const where = new Map(byPin.map((code) => [key(code), code]));
  const problems: string[] = [];
  if (settled)
    for (const code of soldToOrder)
      if (!inRedeem.has(key(code)))
        problems.push(`code #${code.id} (${code.sku}) is sold to the order but is not in its redeem`);
  for (const pin of redeemed) {
    if (sold.has(key(pin))) continue;
    const now = where.get(key(pin));
    if (now === undefined) problems.push(`a code of ${pin.sku} in the order's redeem is not in the codes table`);
    else if (now.orderId !== null && now.orderId !== orderId)
      problems.push(`code #${now.id} (${now.sku}) of the order's redeem is ${now.status} to ${now.orderId}`);
    else problems.push(`code #${now.id} (${now.sku}) of the order's redeem is ${now.status}, sold to no order`);
  }
  return problems;
}

/** A ledger entry as a transfer's two sides are compared. */
export interface TransferSide {
  key: string;
  kind: string;
  amount: string;
}

/**
 * Whether a `move_out` (or `move_in`) has its pair on the other object: the same key, the other kind, the
 * same amount with the other sign. The problem, or null.
 */
export function transferProblem(side: TransferSide, other: TransferSide | null, otherName: string): string | null {
  const wanted = side.kind === "move_out" ? "move_in" : "move_out";
  if (other === null)
    return `${side.kind} ${side.key} of ${new Money(side.amount).abs().toFixed()} has no ${wanted} in ${otherName}`;
  if (other.kind !== wanted || !new Money(other.amount).equals(new Money(side.amount).negated()))
    return `${side.kind} ${side.key} of ${side.amount} meets ${other.kind} of ${other.amount} in ${otherName}`;
  return null;
}
