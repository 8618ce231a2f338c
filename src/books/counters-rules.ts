/**
 * A wallet's counters of one day in a shard (docs/books.md, "Counters"): the sum of each of its rows' part,
 * kept exact in the same transaction as the rows. A row's part is taken out as it was stored (its hashes
 * with it) and put in as it is written, so that any change of a row moves the counters by exactly its
 * difference. Pure.
 */
import { thousandths, type BookRow } from "./row-rules";
import { ZERO_HASH, addHash, hashOf, hashText, subtractHash } from "./set-hash-rules";

/** The buckets a day's orders are counted in: a state once ended, `open` while created, confirmed or processing. */
export const DAY_BUCKETS = ["open", "successful", "partial", "failed", "rejected"] as const;
export type DayBucket = (typeof DAY_BUCKETS)[number];

export function bucketOf(state: BookRow["state"]): DayBucket {
  return state === "created" || state === "confirmed" || state === "processing" ? "open" : state;
}

/** Ended lines of one SKU from one supplier with one outcome. */
export interface LineFigures {
  lines: number;
  quantity: number;
  /** Thousandths of the wallet's currency. */
  amount: number;
}

/** One wallet's figures of one day: amounts in thousandths, hashes as 16 hex digits. */
export interface Counters {
  orders: number;
  buckets: Record<DayBucket, number>;
  total: number;
  charged: number;
  refunded: number;
  /** Hash of the (order, charged) pairs of the orders charged something (set-hash-rules.ts). */
  chargesHash: string;
  /** Hash of the (order, refunded) pairs of the orders refunded something. */
  refundsHash: string;
  codes: number;
  /** Hash of the (code, order) pairs of the inventory codes delivered. */
  codesHash: string;
  /** By `sku\0supplier\0outcome`, ended lines only. */
  lines: Record<string, LineFigures>;
}

export function emptyCounters(): Counters {
  return {
    orders: 0,
    buckets: { open: 0, successful: 0, partial: 0, failed: 0, rejected: 0 },
    total: 0,
    charged: 0,
    refunded: 0,
    chargesHash: ZERO_HASH,
    refundsHash: ZERO_HASH,
    codes: 0,
    codesHash: ZERO_HASH,
    lines: {},
  };
}

/** The key of a line's figures. */
export function lineKey(sku: string, supplier: string, outcome: string): string {
  return `${sku}\u0000${supplier}\u0000${outcome}`;
}

/** `counters` with `row`'s part added (sign 1) or taken out (sign -1). */
export function withRow(counters: Counters, row: BookRow, sign: 1 | -1): Counters {
  const hashed = (sum: string, member: string) =>
    hashText(sign === 1 ? addHash(hashOf(sum), hashOf(member)) : subtractHash(hashOf(sum), hashOf(member)));
  const charged = thousandths(row.charged);
  const refunded = thousandths(row.refunded);
  const lines = { ...counters.lines };
  for (const line of row.lines) {
    if (line.outcome === "pending") continue;
    const key = lineKey(line.sku, line.supplier, line.outcome);
    const was = lines[key] ?? { lines: 0, quantity: 0, amount: 0 };
    const now = {
      lines: was.lines + sign,
      quantity: was.quantity + sign * line.quantity,
      amount: was.amount + sign * thousandths(line.amount),
    };
    if (now.lines === 0 && now.quantity === 0 && now.amount === 0) delete lines[key];
    else lines[key] = now;
  }
  const bucket = bucketOf(row.state);
  return {
    orders: counters.orders + sign,
    buckets: { ...counters.buckets, [bucket]: counters.buckets[bucket] + sign },
    total: counters.total + sign * thousandths(row.total),
    charged: counters.charged + sign * charged,
    refunded: counters.refunded + sign * refunded,
    chargesHash: hashed(counters.chargesHash, row.chargeHash),
    refundsHash: hashed(counters.refundsHash, row.refundHash),
    codes: counters.codes + sign * row.codes,
    codesHash: hashed(counters.codesHash, row.codesHash),
    lines,
  };
}

/** The counters after `stored` (null: a new row) is replaced by `next`. */
export function afterWrite(counters: Counters, stored: BookRow | null, next: BookRow): Counters {
  return withRow(stored === null ? counters : withRow(counters, stored, -1), next, 1);
}

/** The counters of a set of rows, computed afresh (what the counters must always equal). */
export function countersOf(rows: Iterable<BookRow>): Counters {
  let counters = emptyCounters();
  for (const row of rows) counters = withRow(counters, row, 1);
  return counters;
}
