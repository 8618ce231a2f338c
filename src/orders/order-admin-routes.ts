/**
 * Operator API: order lookup and the stuck-order list (read only; orders change only through their own
 * flow). The search and the export over the order index are the order index's (src/order-index/).
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
import { AdminOrderData, OrderLookupQuery, OrderParams, StuckOrdersData } from "./order-admin-schemas";
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
