/** Operator API: the order search and its CSV export over the client's books (read only). */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { cursorText, parseCursor, type IndexFilter } from "./order-index-store";
import { OrderExportQuery, OrderSearchData, OrderSearchQuery } from "./order-search-admin-schemas";
import { orderSearchExamples } from "./order-search-examples";
import {
  csvDownloadHeaders,
  filterProblem,
  orderCsvStream,
  orderSummaryOf,
  ORDER_CSV_COLUMNS,
  searchOrders,
  SEARCH_PAGE_SIZE,
  TooManyShards,
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
  "The books hold every order in every state, `created` and expired ones included: each order writes its own row to its client's books within a few seconds of each change (under 10 s), after the client has its answer. A client filter reads that client's books alone, day by day; a page that had to open many days may hold fewer than `limit` orders with a `next`. Without a client a page reads every client's books of the newest days, at most 256 shards (a client's day, or a part of a busy one): a day with more is refused with a 400 asking for `clientId` (the export across clients is a background job of its own).";

/** The 400's words for a day too wide to search across clients. */
function tooWide(error: TooManyShards): string {
  return `the orders of ${new Date(error.day * 86_400_000).toISOString().slice(0, 10)} are in more shards than one page reads across clients: give clientId (or export across clients as a background job)`;
}

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
          when: "The query: each filter's form, `limit` 1..100, a reference prefix only with `clientId`, `after` a cursor this search wrote; without `clientId`, a day with the books of more than 256 shards",
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
      const page = await searchOrders(env, filter, after, limit).catch((error: unknown) => {
        if (!(error instanceof TooManyShards)) throw error;
        return fail("invalid_parameters", { issues: [{ path: "clientId", message: tooWide(error) }] });
      });
      return ok("Orders", {
        orders: page.rows.map(orderSummaryOf),
        next: page.next === null ? null : cursorText(page.next),
      });
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
      new Response(orderCsvStream(env, filterOf(query)), { headers: csvDownloadHeaders("orders.csv") }),
  ),
];
