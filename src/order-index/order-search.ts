/**
 * The operator's order search and its CSV export over the order index (order-index-store.ts): what
 * GET /admin/orders/search, GET /admin/orders/export and the console's Orders page share, so that the list,
 * the API's CSV and the console's CSV show the same orders with the same values.
 */
import { csvLine } from "../kernel/csv-export";
import { logFailure } from "../kernel/log";
import { toAmountNumber } from "../pricing/money";
import type { OrderSummary } from "./order-search-admin-schemas";
import { walkIndex, type IndexFilter, type IndexRow } from "./order-index-store";

/** The page size of a search when a request gives none. */
export const SEARCH_PAGE_SIZE = 50;

/** Rows read from D1 per statement of an export: a walk of the time index, `batch` rows at a time. */
const EXPORT_BATCH = 500;

/** An order as the search lists it: the index row, amounts as numbers at this edge (toAmountNumber). */
export function orderSummaryOf(row: IndexRow): OrderSummary {
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
 * Every order the filter selects, newest first, as CSV: the header, then one line per order, read from D1
 * a batch at a time as the reader pulls, so that an export of any size holds one batch in memory. A D1
 * failure midway ends the stream with an error (the download breaks off rather than looking complete).
 */
export function orderCsvStream(db: D1Database, filter: IndexFilter, batch = EXPORT_BATCH): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const batches = walkIndex(db, filter, batch);
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
