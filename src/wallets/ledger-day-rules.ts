/**
 * A wallet object's ledger summarised by day, for the reconciliation by wallet and day (docs/operator-api.md,
 * Reconciliation): which day an entry is of, and what a day's entries add up to. Pure.
 *
 * An order's movement (its charge, its refunds, the void of its charge) is of the day its order was
 * created on, which the order sends with the posting and the entry keeps (`order_day`): the books keep the
 * order in the shard of that day, so both sides count it on the same day whatever the two objects' clocks
 * say and however late after midnight it was charged or refunded. Every other entry (a top-up, an
 * adjustment, a move transfer), and an order's movement written before entries kept their order's day, is
 * of the day of its own time.
 */
import { Money } from "../pricing/money";
import type { DayRow } from "./ledger-store";

export const DAY_MS = 86_400_000;

/**
 * How far before its day an entry of it may have been written: the order's clock and the wallet's are
 * different machines, a little apart.
 */
export const DAY_SKEW_MS = 5 * 60_000;

/**
 * How long after its day an order's movement may come: its confirm (within the order's time to live),
 * its processing and refunds (retried for hours). One later than this falls outside the day's summary,
 * which then disagrees, and the drill order by order (which reads each order's movements whenever they came)
 * finds it in order.
 */
export const DAY_LATE_MS = 2 * DAY_MS;

/** The day (UTC, days since 1970-01-01) an entry is of. */
export function dayOfEntry(entry: Pick<DayRow, "orderId" | "orderDay" | "createdAt">): number {
  return entry.orderId !== null && entry.orderDay !== null ? entry.orderDay : Math.floor(entry.createdAt / DAY_MS);
}

/** The span of writing times in which a day's entries lie: [from, before). */
export function dayWindow(day: number): { from: number; before: number } {
  return { from: day * DAY_MS - DAY_SKEW_MS, before: (day + 1) * DAY_MS + DAY_LATE_MS };
}

/** One order's movements of a day, summed by kind (decimal strings). */
export interface OrderNet {
  /** What its charges took, positive. */
  charged: string;
  /** What voids of its charge gave back. */
  voided: string;
  refunded: string;
  /** Any other kind of entry naming the order (the service writes none). */
  other: string;
  /** The entries naming it, by seq. */
  seqs: number[];
  lastAt: number;
}

/** A posting or a transfer of the day, as the audit log and the other side of a move are checked against it. */
export interface DayMovement {
  seq: number;
  key: string;
  kind: string;
  amount: string;
  createdAt: number;
}

/** What a page of a day's entries adds up to: per order, the postings and transfers, the running balance. */
export interface LedgerDayPage {
  day: number;
  /** Entries of the day read (of any kind). */
  entries: number;
  orders: Record<string, OrderNet>;
  postings: DayMovement[];
  transfers: DayMovement[];
  /** Entries whose balance after does not follow from the one before and its amount. */
  breaks: { seq: number; expected: string; found: string }[];
  /** The last seq read, whatever its day, and its balance after: where the next page goes on. */
  lastSeq: number;
  lastBalance: string | null;
  /** The seq the next page starts after; null when the day's window has been read to its end. */
  next: number | null;
}

const POSTINGS = new Set(["top_up", "adjustment"]);
const TRANSFERS = new Set(["move_out", "move_in"]);

/** Adds `amount` to a decimal string. */
const plus = (sum: string, amount: Money) => new Money(sum).plus(amount).toFixed();

/**
 * The page of `day` from `rows` (in seq order, every entry of the window, whatever its day: each balance
 * follows from the one before), after the entry whose balance was `before` (null: none).
 */
export function dayPage(
  day: number,
  rows: readonly DayRow[],
  before: string | null,
  full: boolean,
): Omit<LedgerDayPage, "next"> & { full: boolean } {
  const page: Omit<LedgerDayPage, "next"> = {
    day,
    entries: 0,
    orders: {},
    postings: [],
    transfers: [],
    breaks: [],
    lastSeq: 0,
    lastBalance: before,
  };
  for (const row of rows) {
    const amount = new Money(row.amount);
    const expected = page.lastBalance === null ? amount : new Money(page.lastBalance).plus(amount);
    if (!expected.equals(row.balanceAfter))
      page.breaks.push({ seq: row.seq, expected: expected.toFixed(), found: new Money(row.balanceAfter).toFixed() });
    page.lastSeq = row.seq;
    page.lastBalance = row.balanceAfter;
    if (dayOfEntry(row) !== day) continue;
    page.entries += 1;
    const movement = { seq: row.seq, key: row.key, kind: row.kind, amount: amount.toFixed(), createdAt: row.createdAt };
    if (row.orderId !== null) addToOrder(page.orders, row.orderId, row, amount);
    else if (POSTINGS.has(row.kind)) page.postings.push(movement);
    else if (TRANSFERS.has(row.kind)) page.transfers.push(movement);
    else page.postings.push(movement);
  }
  return { ...page, full };
}

function addToOrder(orders: Record<string, OrderNet>, orderId: string, row: DayRow, amount: Money): void {
  const net = (orders[orderId] ??= { charged: "0", voided: "0", refunded: "0", other: "0", seqs: [], lastAt: 0 });
  if (row.kind === "order_charge") net.charged = plus(net.charged, amount.negated());
  else if (row.kind === "order_void") net.voided = plus(net.voided, amount);
  else if (row.kind === "order_refund") net.refunded = plus(net.refunded, amount);
  else net.other = plus(net.other, amount);
  net.seqs.push(row.seq);
  net.lastAt = Math.max(net.lastAt, row.createdAt);
}

/** Two pages of one day (`later` read after `earlier`) as one. */
export function mergePages(earlier: LedgerDayPage, later: LedgerDayPage): LedgerDayPage {
  const orders: Record<string, OrderNet> = { ...earlier.orders };
  for (const [orderId, net] of Object.entries(later.orders)) {
    const was = orders[orderId];
    orders[orderId] =
      was === undefined
        ? net
        : {
            charged: plus(was.charged, new Money(net.charged)),
            voided: plus(was.voided, new Money(net.voided)),
            refunded: plus(was.refunded, new Money(net.refunded)),
            other: plus(was.other, new Money(net.other)),
            seqs: [...was.seqs, ...net.seqs],
            lastAt: Math.max(was.lastAt, net.lastAt),
          };
  }
  return {
    day: earlier.day,
    entries: earlier.entries + later.entries,
    orders,
    postings: [...earlier.postings, ...later.postings],
    transfers: [...earlier.transfers, ...later.transfers],
    breaks: [...earlier.breaks, ...later.breaks],
    lastSeq: later.lastSeq,
    lastBalance: later.lastBalance,
    next: later.next,
  };
}
