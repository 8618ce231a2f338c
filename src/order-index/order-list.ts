/**
 * The client's own list of its orders (GET /orders): a page of the order index (order-index-store.ts) filtered
 * to the client, newest first, each order as the client sees it. Reads D1 only.
 */
import { pageOf, rowsToFetch } from "../kernel/paging";
import { toAmountNumber } from "../pricing/money";
import {
  cursorText,
  listClientIndex,
  type ClientIndexFilter,
  type IndexCursor,
  type IndexRow,
} from "./order-index-store";
import type { ClientOrderSummary } from "./order-list-schemas";

/** The page size when a request gives none. */
const ORDERS_PAGE_SIZE = 100;

/** An order as the client's list shows it: the index row, amounts as numbers at this edge. */
export function clientOrderSummary(row: IndexRow): ClientOrderSummary {
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

/** A page of the client's orders after `after`, newest first; `next` continues it (null: the last page). */
export async function clientOrders(
  db: D1Database,
  clientId: string,
  filter: ClientIndexFilter,
  after: IndexCursor | null,
  limit = ORDERS_PAGE_SIZE,
): Promise<{ orders: ClientOrderSummary[]; next: string | null }> {
  const rows = await listClientIndex(db, clientId, filter, after, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => cursorText(row));
  return { orders: page.items.map(clientOrderSummary), next: page.next };
}
