/** Operator API: the order search and its CSV export over the order index (read only). */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { cursorText, listIndex, parseCursor, type IndexFilter } from "./order-index-store";
import { OrderExportQuery, OrderSearchData, OrderSearchQuery } from "./order-search-admin-schemas";
import { orderSearchExamples } from "./order-search-examples";
import {
  csvDownloadHeaders,
  filterProblem,
  orderCsvStream,
  orderSummaryOf,
  ORDER_CSV_COLUMNS,
  SEARCH_PAGE_SIZE,
} from "./order-search";

/** The index filter of a search or export query; a reference prefix without its client is a 400. */
function filterOf(query: {
  clientId?: string;
  state?: IndexFilter["state"];
  sku?: string;
  createdFrom?: number;
  createdTo?: number;
  reference?: string;
}): IndexFilter {
  const filter: IndexFilter = {};
  if (query.clientId !== undefined) filter.clientId = query.clientId;
  if (query.state !== undefined) filter.state = query.state;
  if (query.sku !== undefined) filter.sku = query.sku;
  if (query.createdFrom !== undefined) filter.createdFrom = query.createdFrom;
  if (query.createdTo !== undefined) filter.createdTo = query.createdTo;
  if (query.reference !== undefined) filter.reference = query.reference;
  const problem = filterProblem(filter);
  if (problem !== null) fail("invalid_parameters", { issues: [problem] });
  return filter;
}

const INDEX_NOTE =
  "The order index holds every order in every state, `created` and expired ones included: each order writes its own row within a few seconds of each change (under 10 s), after the client has its answer. A client filter reads that client's orders alone, through the index's key.";

/** This file's routes, each with its description in GET /openapi.json. */
export const orderSearchRoutes: Route[] = [
  route(
    {
      // Gathered before /admin/orders/:orderId (app.ts), which would take "search" for an order id.
      method: "GET",
      path: "/admin/orders/search",
      operationId: "adminSearchOrders",
      example: orderSearchExamples.adminSearchOrders,
      tag: "Admin: orders",
      summary: "Search orders by client, state, SKU, creation time or reference prefix",
      description: `Orders that match every filter given, newest first (by creation time, then id), a page at a time: pass \`next\` as \`after\` for the next page; orders created meanwhile do not shift the pages. A reference prefix needs \`clientId\`. Amounts are in the wallet's currency. ${INDEX_NOTE}`,
      auth: "admin",
      role: "viewer",
      query: OrderSearchQuery,
      data: OrderSearchData,
      messages: ["Orders"],
      checks: [
        {
          when: "The query: each filter's form, `limit` 1..100, a reference prefix only with `clientId`, `after` a cursor this search wrote",
          codes: ["invalid_parameters"],
        },
      ],
    },
    async ({ query, env, ok }) => {
      const filter = filterOf(query);
      const after = query.after === undefined ? null : parseCursor(query.after);
      if (after === null && query.after !== undefined)
        fail("invalid_parameters", {
          issues: [{ path: "after", message: "not a cursor of this search: pass the `next` of the previous page" }],
        });
      const limit = query.limit ?? SEARCH_PAGE_SIZE;
      const rows = await listIndex(env.DB, filter, after, rowsToFetch(limit));
      const page = pageOf(rows, limit, (row) => cursorText(row));
      return ok("Orders", { orders: page.items.map(orderSummaryOf), next: page.next });
    },
  ),
  route(
    {
      // Gathered before /admin/orders/:orderId (app.ts), which would take "export" for an order id.
      method: "GET",
      path: "/admin/orders/export",
      operationId: "adminExportOrders",
      example: orderSearchExamples.adminExportOrders,
      tag: "Admin: orders",
      summary: "Every order a search selects, as CSV",
      description: `The orders GET /admin/orders/search selects with the same filters, every one of them, newest first, as a CSV download (RFC 4180, CRLF): a header row, then one row per order with the values the search answers (times in Unix ms, SKUs separated by spaces). A text cell that starts with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return gets a leading apostrophe, so that a spreadsheet shows it as text and never runs it as a formula. The rows are streamed as they are read; a download that breaks off midway ends without its last rows. ${INDEX_NOTE}`,
      auth: "admin",
      role: "viewer",
      query: OrderExportQuery,
      data: null,
      file: {
        mediaType: "text/csv",
        description: `A header row (${ORDER_CSV_COLUMNS.join(", ")}), then one row per order, newest first.`,
      },
      headers: {
        "Content-Disposition": {
          description: '`attachment; filename="orders.csv"`',
          schema: { type: "string" },
        },
      },
      checks: [
        {
          when: "The query: each filter's form, a reference prefix only with `clientId`",
          codes: ["invalid_parameters"],
        },
      ],
    },
    async ({ query, env }) =>
      new Response(orderCsvStream(env.DB, filterOf(query)), { headers: csvDownloadHeaders("orders.csv") }),
  ),
];
