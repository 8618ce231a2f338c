/**
 * An order's row in its client's books and what it adds to its day's counters (docs/books.md): the row
 * built from the order's stored record, which version of a row wins, and the counters as a sum of each
 * row's part in them, so that a changed row moves the counters by its difference. Pure.
 */
import { Money } from "../pricing/money";
import { amountHash, codesHash, hashText } from "./set-hash-rules";

/** The states an order can be in (the order's own list; the books keep them as they are). */
export type BookState = "created" | "confirmed" | "processing" | "successful" | "partial" | "failed" | "rejected";

/** The states in which the order's wallet has been charged its total. */
const CHARGED_STATES: ReadonlySet<BookState> = new Set(["confirmed", "processing", "successful", "partial", "failed"]);

/** Whether an order in `state` has ended (its row changes no more but for its webhook answers). */
export function hasEnded(state: BookState): boolean {
  return state === "successful" || state === "partial" || state === "failed" || state === "rejected";
}

/** What became of a line, as the books show it. */
export type LineOutcome = "pending" | "delivered" | "failed";

/** One line of an order in the books; `amount` is the line's charge in the wallet's currency. */
export interface BookLine {
  sku: string;
  supplier: string;
  quantity: number;
  amount: string;
  outcome: LineOutcome;
}

/** One order as the writer sends it to its shard: its row, with the inventory codes it delivered. */
export interface BookWrite {
  id: string;
  clientId: string;
  reference: string;
  state: BookState;
  wallet: string;
  total: string;
  /** What the wallet was charged: the total once confirmed, 0 for a rejected order. */
  charged: string;
  /** What failed lines credited back. */
  refunded: string;
  skus: string[];
  lines: BookLine[];
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  /** The order's count of changes the books show: a row is replaced only by a newer one. */
  version: number;
  /** The inventory codes the order delivered: hashed by the shard, never stored there. */
  deliveredCodes: string[];
}

/**
 * One order as its client's books hold it; amounts are exact decimal strings in the wallet's currency. The
 * hashes are its members of the day's sets (set-hash-rules.ts), computed by the shard from what it was
 * sent, so that the counters take a changed row's old members out exactly as they were put in.
 */
export interface BookRow extends Omit<BookWrite, "deliveredCodes"> {
  /** Inventory codes the order delivered, and the hash of their (code, order) pairs (never the codes). */
  codes: number;
  codesHash: string;
  /** The hash of its (order, charged) pair, and of its (order, refunded) pair (0 for an amount of 0). */
  chargeHash: string;
  refundHash: string;
}

/**
 * What the books read of an order's stored record (src/orders/order-record.ts has it all): the record
 * passes as it is, and the books need not know the rest of it.
 */
export interface BookedOrder {
  id: string;
  clientId: string;
  reference: string;
  state: BookState;
  wallet: string;
  charge: string;
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  lines: readonly {
    sku: string;
    quantity: number;
    charge: string;
    refunded: string;
    status: "pending" | "fulfilled" | "failed";
    product: { supplier: string };
    redeem: { pins: readonly string[] } | null;
  }[];
}

const OUTCOMES = { pending: "pending", fulfilled: "delivered", failed: "failed" } as const;

/** What the writer sends for `order` at `version`. */
export function bookWriteOf(order: BookedOrder, version: number): BookWrite {
  let refunded = new Money(0);
  const deliveredCodes: string[] = [];
  for (const line of order.lines) {
    refunded = refunded.plus(line.refunded);
    if (line.product.supplier === "inventory" && line.status === "fulfilled")
      deliveredCodes.push(...(line.redeem?.pins ?? []));
  }
  return {
    id: order.id,
    clientId: order.clientId,
    reference: order.reference,
    state: order.state,
    wallet: order.wallet,
    total: new Money(order.charge).toFixed(),
    charged: CHARGED_STATES.has(order.state) ? new Money(order.charge).toFixed() : "0",
    refunded: refunded.toFixed(),
    skus: [...new Set(order.lines.map((line) => line.sku))],
    lines: order.lines.map((line) => ({
      sku: line.sku,
      supplier: line.product.supplier,
      quantity: line.quantity,
      amount: new Money(line.charge).toFixed(),
      outcome: OUTCOMES[line.status],
    })),
    createdAt: order.createdAt,
    modifiedAt: order.modifiedAt,
    expiresAt: order.expiresAt,
    version,
    deliveredCodes,
  };
}

/** The row the shard stores for `write`: its members of the day's sets hashed, its codes counted, not kept. */
export async function hashedRow(write: BookWrite): Promise<BookRow> {
  const { deliveredCodes, ...row } = write;
  return {
    ...row,
    codes: deliveredCodes.length,
    codesHash: hashText(await codesHash(write.id, deliveredCodes)),
    chargeHash: hashText(await amountHash("charge", write.id, write.charged)),
    refundHash: hashText(await amountHash("refund", write.id, write.refunded)),
  };
}

/** Whether `next` replaces `stored`: a newer (version, modifiedAt) of the order, never an equal or older one. */
export function isNewer(
  next: Pick<BookRow, "version" | "modifiedAt">,
  stored: Pick<BookRow, "version" | "modifiedAt"> | null,
): boolean {
  if (stored === null) return true;
  return next.version > stored.version || (next.version === stored.version && next.modifiedAt > stored.modifiedAt);
}

/** An exact amount as an integer of thousandths (no currency has more than 3 minor units). */
export function thousandths(amount: string): number {
  const scaled = new Money(amount).times(1000);
  if (!scaled.isInteger()) throw new Error(`amount ${amount} has more than 3 decimals`);
  return scaled.toNumber();
}
