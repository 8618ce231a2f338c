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
import { maskedAdminOrderView } from "./order-view";
import { orderRecordById } from "./order-lookup";
import { audit } from "../audit/audit-store";
import { adminCaller } from "../http/admin-auth";
import { PageQuery, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { serviceMode } from "../kernel/service-mode";
import {
  AdminOrderData,
  OrderLookupQuery,
  OrderParams,
  RevealedCodesData,
  StuckOrdersData,
} from "./order-admin-schemas";
import { listTimerFailures } from "./timer-failure-store";
import { orderExamples } from "./order-examples";

/**
 * The order with its redeem codes and links masked, whatever the caller's role: a code is shown in clear
 * only by the audited reveal below, so that every code an operator saw has its audit row.
 */
async function answer(
  stub: DurableObjectStub<import("./order-object").OrderObject>,
  context: RequestContext,
): Promise<Response> {
  const record = (await stub.record()) as OrderRecord | null;
  if (record === null) fail("order_not_found");
  return ok("Order", maskedAdminOrderView(record, serviceMode(context.env) === "live"));
}

/** GET /admin/orders/:orderId: any client's order by id. */
export async function getAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  const { orderId } = parseParams(OrderParams, request);
  const id = objectIdOf(context.env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  return answer(context.env.ORDERS.get(id), context);
}

/**
 * POST /admin/orders/:orderId/codes/reveal: the order's redeem codes and links in clear. The audit row
 * (`order.codes_revealed`, naming the caller and each line's SKU and count) is written first: if it cannot
 * be written the call fails and shows nothing.
 */
export async function revealOrderCodes(request: IRequest, context: RequestContext): Promise<Response> {
  const caller = adminCaller(context);
  const { orderId } = parseParams(OrderParams, request);
  const record = await orderRecordById(context.env.ORDERS, orderId);
  if (record === null) fail("order_not_found");
  const lines = record.lines.flatMap((line, index) =>
    line.redeem === null || line.redeem.pins.length + line.redeem.links.length === 0
      ? []
      : [{ line: index, sku: line.sku, pins: line.redeem.pins, links: line.redeem.links }],
  );
  await audit(context.env.DB, caller, "order.codes_revealed", `order:${record.id}`, {
    lines: lines.map(({ line, sku, pins }) => ({ line, sku, codes: pins.length })),
  });
  return ok("Codes revealed", { orderId: record.id, clientId: record.clientId, reference: record.reference, lines });
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
      "The order a client created with `reference` (references are unique per client), as the client sees it and as it is stored: lines with supplier status, attempts and failure reasons. Redeem codes and links are masked for every role (`••••`, then the last 4 characters of a code of 16 or more); POST /admin/orders/{orderId}/codes/reveal shows them, audited.",
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
      "Any client's order by id, as the client sees it (`order`) and as it is stored (`record`, amounts as exact decimal strings). Redeem codes and links are masked for every role (`••••`, then the last 4 characters of a code of 16 or more); POST /admin/orders/{orderId}/codes/reveal shows them, audited.",
    auth: "admin",
    role: "viewer",
    params: OrderParams,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
  {
    method: "POST",
    path: "/admin/orders/:orderId/codes/reveal",
    handler: revealOrderCodes,
    operationId: "adminRevealOrderCodes",
    example: orderExamples.adminRevealOrderCodes,
    tag: "Admin: orders",
    summary: "Reveal an order's redeem codes, audited",
    description:
      "The order's redeem codes and links in clear, per line (lines without codes are left out). The audit row `order.codes_revealed`, naming the caller and each line's SKU and number of codes, is written before the answer: a call that cannot write it fails and shows nothing. Every other route masks the codes. Send no body.",
    auth: "admin",
    role: "operator",
    params: OrderParams,
    data: RevealedCodesData,
    messages: ["Codes revealed"],
    errors: ["order_not_found"],
  },
];
