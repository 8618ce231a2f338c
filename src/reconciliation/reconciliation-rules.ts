/**
 * The reconciliation's pure rules (src/orders/reconciliation.ts runs them): when the scheduled job runs it,
 * how an order's ledger lines must agree with its index row, and what a mismatch says to look at.
 */
import { Money, type Money as MoneyT } from "../pricing/money";
import type { OrderState } from "../orders/order-view-schemas";

/**
 * Movements and orders changed this recently are left to the next run: their order may still be under way,
 * and the index may not have them yet (the scheduled job brings it up to date every 5 minutes).
 */
export const DEFAULT_GRACE_SECONDS = 600;

/** The longest period one request checks: a run reads every wallet's ledger from the period's start on. */
export const MAX_PERIOD_MS = 31 * 86_400_000;

/** The scheduled run's period: the last day. */
export const SCHEDULED_PERIOD_MS = 86_400_000;

/** The cron's interval (wrangler.toml, every 5 minutes). */
const CRON_INTERVAL_MS = 5 * 60_000;

/**
 * Whether the cron firing scheduled for `scheduledTime` runs the hourly reconciliation: the one in the
 * first 5 minutes of each hour. scheduledTime is when the firing was due, not when it ran, so a late
 * firing still counts for its own hour and exactly one firing an hour is chosen.
 */
export function isHourlyRun(scheduledTime: number): boolean {
  return scheduledTime % 3_600_000 < CRON_INTERVAL_MS;
}

export type CheckName = "ledger_matches_index" | "index_matches_ledger" | "codes_match_redeem";

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
  /** Wallets in the registry, and the wallet objects (one per region a wallet has been in) read. */
  wallets: number;
  walletObjects: number;
  /** Ledger movements in the period that name an order. */
  ledgerMovements: number;
  /** Orders named by those movements that were checked against the index. */
  ordersOfMovements: number;
  /** Orders named by those movements that are still open (created or confirmed): no row yet, no mismatch. */
  openOrders: number;
  /** Indexed orders created in the period, and those of them in an end state whose ledger lines were summed. */
  indexedOrders: number;
  endedOrders: number;
  /** Codes sold to those orders or in the period. */
  soldCodes: number;
  /** Orders and movements changed within the grace: left to the next run. */
  leftToNextRun: number;
}

export interface Reconciliation {
  createdFrom: number;
  createdTo: number;
  checked: Checked;
  mismatches: Mismatch[];
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
 * What disagrees between an order's index row and its ledger lines (none: they agree). The row's charge
 * must be what the ledger kept of the charge (a rejected order's charge, landed by a cut-off confirm, is
 * voided back: 0), its refunds the ledger's refunds, and its state what those amounts say: nothing
 * refunded when successful, everything when failed, some but not all when partial, nothing charged when
 * rejected.
 */
export function ledgerProblems(row: IndexedMoney, money: OrderMoney): string[] {
  const problems: string[] = [];
  const kept = money.charged.minus(money.voided);
  if (row.wallet !== money.currency)
    problems.push(`the ${money.currency} ledger names the order, whose index row says it is paid in ${row.wallet}`);
  if (!kept.equals(row.charged))
    problems.push(`the ledger charged ${kept.toFixed()} (after voids), the index says ${row.charged} (${row.state})`);
  if (!money.refunded.equals(row.refunded))
    problems.push(`the ledger refunded ${money.refunded.toFixed()}, the index says ${row.refunded} (${row.state})`);
  if (!money.other.isZero())
    problems.push(`the ledger holds ${money.other.toFixed()} of other movements naming the order`);
  const stateSays = stateProblem(row.state, kept, money.refunded);
  if (stateSays !== null) problems.push(stateSays);
  return problems;
}

/** Whether the ledger's amounts fit the order's state; null when they do. */
export function stateProblem(state: OrderState, kept: MoneyT, refunded: MoneyT): string | null {
  const said = `the index says ${state}, the ledger kept a charge of ${kept.toFixed()} and refunded ${refunded.toFixed()}`;
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
