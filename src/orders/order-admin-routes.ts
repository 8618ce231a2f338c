/**
 * Operator API: order lookup, search and CSV export over the order index (read only; orders change only
 * through their own flow).
 */
import type { IRequest } from "itty-router";
import { fail } from "../kernel/failures";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { objectIdOf, orderObjectName } from "./order-id";
import type { OrderRecord } from "./order-record";
import { adminOrderView, maskedAdminOrderView } from "./order-view";
import { adminCaller } from "../http/admin-auth";
import { PageQuery, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { serviceMode } from "../kernel/service-mode";
import {
  AdminOrderData,
  OrderExportQuery,
  OrderLookupQuery,
  OrderParams,
  OrderSearchData,
  OrderSearchQuery,
  StuckOrdersData,
} from "./order-admin-schemas";
import { cursorText, listIndex, parseCursor, type IndexFilter } from "./order-index";
import {
  csvDownloadHeaders,
  filterProblem,
  orderCsvStream,
  orderSummaryOf,
  ORDER_CSV_COLUMNS,
  SEARCH_PAGE_SIZE,
} from "./order-search";
import { listTimerFailures } from "./timer-failure-store";
import { orderExamples } from "./order-examples";

/** The order; a viewer gets its redeem codes and links masked (the operator role sees them). */
async function answer(
  stub: DurableObjectStub<import("./order-object").OrderObject>,
  context: RequestContext,
): Promise<Response> {
  const record = (await stub.record()) as OrderRecord | null;
  if (record === null) fail("order_not_found");
  const view = adminCaller(context).role === "viewer" ? maskedAdminOrderView : adminOrderView;
  return ok("Order", view(record, serviceMode(context.env) === "live"));
}

/** GET /admin/orders/:orderId: any client's order by id. */
export async function getAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  const { orderId } = parseParams(OrderParams, request);
  const id = objectIdOf(context.env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  return answer(context.env.ORDERS.get(id), context);
}

/** GET /admin/orders?clientId=&reference=: the order a client created with that reference. */
export async function findAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  const { clientId, reference } = parseQuery(OrderLookupQuery, request);
  return answer(context.env.ORDERS.get(context.env.ORDERS.idFromName(orderObjectName(clientId, reference))), context);
}

/**
 * GET /admin/orders/stuck: orders whose timer (expiry, processing, webhook outbox, settling a cut-off
 * confirm) has failed 3 or more times in a row, with the last error, and orders whose upstream lines have
 * had an unknown outcome past the budget. The order keeps retrying on its own; a row disappears when its
 * timer succeeds again or its lines are settled.
 */
export async function listStuckOrders(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(PageQuery, request);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listTimerFailures(context.env.DB, query.after ?? null, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.orderId);
  return ok("Stuck orders", { orders: page.items, next: page.next });
}

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

/** GET /admin/orders/search: indexed orders that match, newest first, a page at a time. */
export async function searchOrders(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(OrderSearchQuery, request);
  const filter = filterOf(query);
  const after = query.after === undefined ? null : parseCursor(query.after);
  if (after === null && query.after !== undefined)
    fail("invalid_parameters", {
      issues: [{ path: "after", message: "not a cursor of this search: pass the `next` of the previous page" }],
    });
  const limit = query.limit ?? SEARCH_PAGE_SIZE;
  const rows = await listIndex(context.env.DB, filter, after, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => cursorText(row));
  return ok("Orders", { orders: page.items.map(orderSummaryOf), next: page.next });
}

/** GET /admin/orders/export: every indexed order that matches, newest first, streamed as CSV. */
export async function exportOrders(request: IRequest, context: RequestContext): Promise<Response> {
  const filter = filterOf(parseQuery(OrderExportQuery, request));
  return new Response(orderCsvStream(context.env.DB, filter), { headers: csvDownloadHeaders("orders.csv") });
}

const INDEX_NOTE =
  "The order index holds every order that has moved money (from its charge on); an order still `created` (waiting for its confirm), or one that expired unconfirmed, is not in it: find it by its client and exact reference with GET /admin/orders. The indexer writes it from the wallets' ledgers every 5 minutes and at once on POST /admin/orders/index/run, so it may lag the orders by up to 5 minutes.";

/** This file's routes, each with its description in GET /openapi.json. */
export const adminOrderRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/orders",
    handler: findAdminOrder,
    operationId: "adminFindOrder",
    example: orderExamples.adminFindOrder,
    tag: "Admin: orders",
    summary: "Find a client's order by its reference",
    description:
      "The order a client created with `reference` (references are unique per client), as the client sees it and as it is stored: lines with supplier status, attempts and failure reasons. A viewer gets the redeem codes and links masked to their last four characters; the operator role sees them.",
    auth: "admin",
    role: "viewer",
    query: OrderLookupQuery,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
  {
    // Before /admin/orders/:orderId, which would take "stuck" for an order id.
    method: "GET",
    path: "/admin/orders/stuck",
    handler: listStuckOrders,
    operationId: "adminListStuckOrders",
    example: orderExamples.adminListStuckOrders,
    tag: "Admin: orders",
    summary: "Orders whose timers keep failing",
    description:
      'Orders whose expiry, processing, webhook outbox or settle timer has failed at least 3 times in a row, with the last error and the next attempt, and (timer `supplier`) orders whose upstream lines have had an unknown outcome (a timeout, "in progress") for longer than UPSTREAM_UNKNOWN_BUDGET_SECONDS: their SKUs, since when, and each line\'s last answer. The order object retries without limit with capped exponential backoff (a timer 2 s doubling to 5 min, a line 1 s doubling to 5 min); the row is removed when the timer succeeds again or the supplier settles the lines. Ordered by order id; page with `after`.',
    auth: "admin",
    role: "viewer",
    query: PageQuery,
    data: StuckOrdersData,
    messages: ["Stuck orders"],
    errors: [],
  },
  {
    // Before /admin/orders/:orderId, which would take "search" for an order id.
    method: "GET",
    path: "/admin/orders/search",
    handler: searchOrders,
    operationId: "adminSearchOrders",
    example: orderExamples.adminSearchOrders,
    tag: "Admin: orders",
    summary: "Search orders by client, state, SKU, creation time or reference prefix",
    description: `Orders that match every filter given, newest first (by creation time, then id), a page at a time: pass \`next\` as \`after\` for the next page; orders created meanwhile do not shift the pages. A reference prefix needs \`clientId\`. Amounts are in the wallet's currency. ${INDEX_NOTE}`,
    auth: "admin",
    role: "viewer",
    query: OrderSearchQuery,
    data: OrderSearchData,
    messages: ["Orders"],
    errors: [],
    checks: [
      {
        when: "The query: each filter's form, `limit` 1..100, a reference prefix only with `clientId`, `after` a cursor this search wrote",
        codes: ["invalid_parameters"],
      },
    ],
  },
  {
    // Before /admin/orders/:orderId, which would take "export" for an order id.
    method: "GET",
    path: "/admin/orders/export",
    handler: exportOrders,
    operationId: "adminExportOrders",
    example: orderExamples.adminExportOrders,
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
    errors: [],
    checks: [
      {
        when: "The query: each filter's form, a reference prefix only with `clientId`",
        codes: ["invalid_parameters"],
      },
    ],
  },
  {
    method: "GET",
    path: "/admin/orders/:orderId",
    handler: getAdminOrder,
    operationId: "adminGetOrder",
    example: orderExamples.adminGetOrder,
    tag: "Admin: orders",
    summary: "Any client's order by id, with its stored record",
    description:
      "Any client's order by id, as the client sees it (`order`) and as it is stored (`record`, amounts as exact decimal strings). A viewer gets the redeem codes and links masked to their last four characters; the operator role sees them.",
    auth: "admin",
    role: "viewer",
    params: OrderParams,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
];
