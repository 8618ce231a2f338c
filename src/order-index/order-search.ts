/**
 * The operator's order search and its CSV export over the client's books (src/books/, read across the
 * client's days and their parts, or across clients in bounded steps: books-reader.ts): what
 * GET /admin/orders/search, GET /admin/orders/export and the console's Orders page share, so that the list,
 * the API's CSV and the console's CSV show the same orders with the same values.
 */
import { booksAcrossClients, clientBooks, type BooksEnv } from "../books/books-reader";
import type { BookRow } from "../books/row-rules";
import { csvLine } from "../kernel/csv-export";
import { logFailure } from "../kernel/log";
import { toAmountNumber } from "../pricing/money";
import type { OrderSummary } from "./order-search-admin-schemas";
import type { IndexCursor, IndexFilter } from "./order-index-store";

export { TooManyShards } from "../books/books-reader";

/** What the search lists of an order's row in the books. */
export type SearchedRow = Pick<
  BookRow,
  | "id"
  | "clientId"
  | "reference"
  | "state"
  | "wallet"
  | "total"
  | "charged"
  | "refunded"
  | "skus"
  | "createdAt"
  | "modifiedAt"
  | "expiresAt"
>;

/**
 * Up to `limit` orders the filter selects after `after`, newest first (createdAt, then id), and the cursor
 * of the next page (null: none): one client's books, or every client's in bounded steps. A page that had to
 * open many days (or, across clients, many shards) may hold fewer than `limit` with a `next`; across
 * clients, a day of more shards than a page opens throws TooManyShards.
 */
export async function searchOrders(
  env: BooksEnv,
  filter: IndexFilter,
  after: IndexCursor | null,
  limit: number,
): Promise<{ rows: SearchedRow[]; next: IndexCursor | null }> {
  const { clientId, ...books } = filter;
  return clientId === undefined
    ? booksAcrossClients(env, books, after, limit)
    : clientBooks(env, clientId, books, after, limit);
}

/** Every order the filter selects, newest first, `batch` at a time: an export walks them all. */
async function* walkOrders(env: BooksEnv, filter: IndexFilter, batch: number): AsyncGenerator<SearchedRow[]> {
  let after: IndexCursor | null = null;
  for (;;) {
    const page = await searchOrders(env, filter, after, batch);
    if (page.rows.length > 0) yield page.rows;
    if (page.next === null) return;
    after = page.next;
  }
}

/** The page size of a search when a request gives none. */
export const SEARCH_PAGE_SIZE = 50;

/** Rows an export reads per page of the books. */
const EXPORT_BATCH = 500;

/** An order as the search lists it: the books' row, amounts as numbers at this edge (toAmountNumber). */
export function orderSummaryOf(row: SearchedRow): OrderSummary {
  return {
    id: row.id,
    clientId: row.clientId,
    reference: row.reference,
    state: row.state as OrderSummary["state"],
    wallet: row.wallet,
    total: toAmountNumber(row.total),
    charged: toAmountNumber(row.charged),
    refunded: toAmountNumber(row.refunded),
    skus: row.skus,
    createdAt: row.createdAt,
    modifiedAt: row.modifiedAt,
    expiresAt: row.expiresAt,
  };
}

/**
 * Why a filter cannot run, or null: a reference prefix needs its client, since references are each
 * client's own and the prefix is a range of the table's key (client, reference).
 */
export function filterProblem(filter: IndexFilter): { path: string; message: string } | null {
  if (filter.reference !== undefined && filter.clientId === undefined)
    return { path: "reference", message: "a reference prefix needs clientId: references are each client's own" };
  return null;
}

/** The CSV's columns: the summary's fields, in its order. */
export const ORDER_CSV_COLUMNS = [
  "id",
  "client_id",
  "reference",
  "state",
  "wallet",
  "total",
  "charged",
  "refunded",
  "skus",
  "created_at",
  "modified_at",
  "expires_at",
] as const;

/** One order's CSV line; text cells are neutralised against spreadsheet formulas (csv-export.ts). */
export function orderCsvLine(summary: OrderSummary): string {
  return csvLine([
    summary.id,
    summary.clientId,
    summary.reference,
    summary.state,
    summary.wallet,
    summary.total,
    summary.charged,
    summary.refunded,
    // A SKU holds no space, so one cell lists them all.
    summary.skus.join(" "),
    summary.createdAt,
    summary.modifiedAt,
    summary.expiresAt,
  ]);
}

/**
 * Every order the filter selects, newest first, as CSV: the header, then one line per order, read from the
 * books a page at a time as the reader pulls, so that an export of any size holds one page in memory. A
 * failure midway (a shard or D1 that fails, a day too wide to read across clients) ends the stream with an
 * error (the download breaks off rather than looking complete).
 *
 * `source` is the Worker's bindings; a D1 database alone (how the console's export, src/console/pages/
 * orders-export.ts, calls it until it is rebuilt as a background job) reads the books through the
 * Worker's own `BOOKS` binding with it.
 */
export function orderCsvStream(env: BooksEnv, filter: IndexFilter, batch = EXPORT_BATCH): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const batches = walkOrders(env, filter, batch);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(csvLine([...ORDER_CSV_COLUMNS])));
      },
      async pull(controller) {
        try {
          const next = await batches.next();
          if (next.done === true) {
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(next.value.map((row) => orderCsvLine(orderSummaryOf(row))).join("")));
        } catch (error) {
          logFailure(error, { step: "orders.export" });
          controller.error(error);
        }
      },
      async cancel() {
        await batches.return(undefined);
      },
    },
    // One batch waits at most: the next is read when the reader has taken it.
    { highWaterMark: 1 },
  );
}

/** The headers of a CSV download named `filename`. */
export function csvDownloadHeaders(filename: string): Record<string, string> {
  return {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${filename}"`,
  };
}
