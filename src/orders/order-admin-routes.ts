/**
 * Operator API: order lookup and the stuck-order list (read only; orders change only through their own
 * flow). The search and the export over the order index are the order index's (src/order-index/).
 */
import type * as z from "zod";
import { fail } from "../kernel/failures";
import { route, type AdminCaller, type Route } from "../http/route";
import { objectIdOf, orderObjectName } from "./order-id";
import type { OrderRecord } from "./order-record";
import { maskedAdminOrderView } from "./order-view";
import { orderRecordById } from "./order-lookup";
import { audit } from "../audit/audit-store";
import { PageQuery } from "../http/params";
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
async function maskedOrder(stub: DurableObjectStub<import("./order-object").OrderObject>, env: Env) {
  const record = (await stub.record()) as OrderRecord | null;
  if (record === null) fail("order_not_found");
  const view = maskedAdminOrderView(record, serviceMode(env) === "live");
  // The record as stored, which the document describes as any object.
  return { ...view, record: { ...view.record } };
}

/** GET /admin/orders/:orderId: any client's order by id. */
async function orderById(env: Env, orderId: string) {
  const id = objectIdOf(env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  return maskedOrder(env.ORDERS.get(id), env);
}

/**
 * POST /admin/orders/:orderId/codes/reveal: the order's redeem codes and links in clear. The audit row
 * (`order.codes_revealed`, naming the caller and each line's SKU and count) is written first: if it cannot
 * be written the call fails and shows nothing.
 */
async function revealedCodes(env: Env, caller: AdminCaller, orderId: string) {
  const record = await orderRecordById(env.ORDERS, orderId);
  if (record === null) fail("order_not_found");
  const lines = record.lines.flatMap((line, index) =>
    line.redeem === null || line.redeem.pins.length + line.redeem.links.length === 0
      ? []
      : [{ line: index, sku: line.sku, pins: line.redeem.pins, links: line.redeem.links }],
  );
  await audit(env.DB, caller, "order.codes_revealed", `order:${record.id}`, {
    lines: lines.map(({ line, sku, pins }) => ({ line, sku, codes: pins.length })),
  });
  return { orderId: record.id, clientId: record.clientId, reference: record.reference, lines };
}

/**
 * GET /admin/orders/stuck: orders whose timer (expiry, processing, webhook outbox, settling a cut-off
 * confirm) has failed 3 or more times in a row, with the last error, and orders whose upstream lines have
 * had an unknown outcome past the budget. The order keeps retrying on its own; a row disappears when its
 * timer succeeds again or its lines are settled.
 */
async function stuckOrders(db: D1Database, query: z.output<typeof PageQuery>) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listTimerFailures(db, query.after ?? null, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.orderId);
  return { orders: page.items, next: page.next };
}

/** This file's routes, each with its description in GET /openapi.json. */
export const adminOrderRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/orders",
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
    async ({ query: { clientId, reference }, env, ok }) =>
      ok("Order", await maskedOrder(env.ORDERS.get(env.ORDERS.idFromName(orderObjectName(clientId, reference))), env)),
  ),
  route(
    {
      // Before /admin/orders/:orderId, which would take "stuck" for an order id.
      method: "GET",
      path: "/admin/orders/stuck",
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
    async ({ query, env, ok }) => ok("Stuck orders", await stuckOrders(env.DB, query)),
  ),
  route(
    {
      method: "GET",
      path: "/admin/orders/:orderId",
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
    async ({ params: { orderId }, env, ok }) => ok("Order", await orderById(env, orderId)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/orders/:orderId/codes/reveal",
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
    async ({ params: { orderId }, caller, env, ok }) => ok("Codes revealed", await revealedCodes(env, caller, orderId)),
  ),
];
