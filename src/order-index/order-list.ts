/**
 * The client's own list of its orders (GET /orders): a page of the client's books (src/books/, read across
 * its days and their parts) filtered to what the client asked, newest first, each order as the client sees
 * it. No order object is asked.
 */
import { clientBooks, type BooksEnv } from "../books/books-reader";
import type { BookRow } from "../books/row-rules";
import { toAmountNumber } from "../pricing/money";
import { cursorText, type ClientIndexFilter, type IndexCursor } from "./order-index-store";
import type { ClientOrderSummary } from "./order-list-schemas";

/** The page size when a request gives none. */
const ORDERS_PAGE_SIZE = 100;

/** An order as the client's list shows it: the books' row, amounts as numbers at this edge. */
export function clientOrderSummary(
  row: Omit<BookRow, "codes" | "codesHash" | "chargeHash" | "refundHash">,
): ClientOrderSummary {
  return {
    id: row.id,
    reference: row.reference,
    state: row.state,
    wallet: row.wallet,
    total: toAmountNumber(row.total),
    skus: row.skus,
    createdAt: row.createdAt,
    modifiedAt: row.modifiedAt,
    expiresAt: row.expiresAt,
  };
}

/**
 * A page of the client's orders after `after`, newest first; `next` continues it (null: the last page). A
 * page that had to open many days to fill may hold fewer than `limit` with a `next` (books-reader.ts).
 */
export async function clientOrders(
  env: BooksEnv,
  clientId: string,
  filter: ClientIndexFilter,
  after: IndexCursor | null,
  limit = ORDERS_PAGE_SIZE,
): Promise<{ orders: ClientOrderSummary[]; next: string | null }> {
  const page = await clientBooks(env, clientId, filter, after, limit);
  return { orders: page.rows.map(clientOrderSummary), next: page.next === null ? null : cursorText(page.next) };
}
