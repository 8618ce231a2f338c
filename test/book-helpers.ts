/**
 * Orders written straight into a client's books, as an order's `index` timer writes them, for the tests of
 * what reads or changes the books (the shard, retention, the webhook consumer's answers, exports).
 */
import { bookWriteOf, type BookedOrder, type BookWrite } from "../src/books/row-rules";
import { uid } from "./order-helpers";

/**
 * A successful USD 5 order of `clientId` as its record stands: created now (or at `overrides.createdAt`),
 * unchanged since, with no line unless given.
 */
export function bookedOrderOf(clientId: string, overrides: Partial<BookedOrder> = {}): BookedOrder {
  const createdAt = overrides.createdAt ?? Date.now();
  return {
    id: `ord_${crypto.randomUUID().replaceAll("-", "").repeat(2)}`,
    clientId,
    reference: uid("ref"),
    state: "successful",
    wallet: "USD",
    charge: "5",
    createdAt,
    modifiedAt: createdAt,
    expiresAt: createdAt + 600_000,
    lines: [],
    ...overrides,
  };
}

/** A line of one code, delivered: what a successful order of one SKU holds. */
export function deliveredLine(sku: string, charge: string): BookedOrder["lines"][number] {
  return {
    sku,
    quantity: 1,
    charge,
    refunded: "0",
    status: "fulfilled",
    product: { supplier: "sandbox" },
    redeem: { pins: ["X"] },
  };
}

/** The books' write of such an order, at `version` of its record. */
export function bookedWriteOf(clientId: string, overrides: Partial<BookedOrder> = {}, version = 1): BookWrite {
  return bookWriteOf(bookedOrderOf(clientId, overrides), version);
}
