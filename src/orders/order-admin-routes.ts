/** Operator API: order lookup (read only; orders change only through their own flow). */
import type { IRequest } from "itty-router";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { objectIdOf, orderObjectName } from "./order-id";
import type { OrderRecord } from "./order-record";
import { orderView } from "./order-view";
import { adminActor } from "../http/admin-auth";
import { PageQuery, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { serviceMode } from "../kernel/service-mode";
import { AdminOrderData, OrderLookupQuery, OrderParams, StuckOrdersData } from "./admin-schemas";
import { listTimerFailures } from "./timer-failures";
import { orderExamples } from "./order-examples";
import { cell, csvLine, textCell } from "../kernel/csv-out";
import { toAmountNumber } from "../pricing/money";
import { AdminOrderList, AdminOrderListQuery, BackfillData, ReconciliationData, ReconciliationQuery } from "./list-schemas";
import { orderListExamples } from "./order-list-examples";
import { filterOf, orderSummary } from "./order-list";
import { cursorText, listIndex, walkIndex, type IndexRow } from "./order-index";
import { backfillIndex, reconcile } from "./order-reconciliation";

async function answer(stub: DurableObjectStub<import("./order-object").OrderObject>, env: Env): Promise<Response> {
  const record = (await stub.record()) as OrderRecord | null;
  if (record === null) fail("order_not_found");
  return ok("Order", { clientId: record.clientId, reference: record.reference, state: record.state, order: orderView(record, serviceMode(env) === "live"), record });
}

/** GET /admin/orders/:orderId: any client's order by id. */
export async function getAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { orderId } = parseParams(OrderParams, request);
  const id = objectIdOf(context.env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  return answer(context.env.ORDERS.get(id), context.env);
}

/** GET /admin/orders/by-reference?clientId=&reference=: the order a client created with that reference. */
export async function findAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { clientId, reference } = parseQuery(OrderLookupQuery, request);
  return answer(context.env.ORDERS.get(context.env.ORDERS.idFromName(orderObjectName(clientId, reference))), context.env);
}

/** What the operator's list and export show of an order: the client's summary, its client and its money. */
function adminSummary(row: IndexRow) {
  return { ...orderSummary(row), clientId: row.clientId, charged: toAmountNumber(row.charged), refunded: toAmountNumber(row.refunded) };
}

/** The operator's filters; a reference prefix is a client's own, so it needs the client. */
function adminFilterOf(request: IRequest) {
  const query = parseQuery(AdminOrderListQuery, request);
  if (query.reference !== undefined && query.clientId === undefined) {
    fail("invalid_parameters", { issues: [{ path: "reference", message: "a reference prefix needs clientId (references are the client's own)" }] });
  }
  return { limit: query.limit, ...filterOf(query) };
}

/** GET /admin/orders: every client's orders from the index, newest first, with the client's filters plus clientId and sku. */
export async function listAdminOrders(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { limit = DEFAULT_PAGE_SIZE, filter, after } = adminFilterOf(request);
  const rows = await listIndex(context.env.DB, filter, after, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => cursorText(row));
  return ok("Orders", { orders: page.items.map(adminSummary), next: page.next });
}

const EXPORT_COLUMNS = ["id", "clientId", "reference", "state", "wallet", "total", "charged", "refunded", "createdAt", "modifiedAt", "expiresAt", "skus"];

/** One order as an export row: what the list shows, times in ISO 8601 UTC, the reference neutralised. */
function exportLine(row: IndexRow): string {
  const summary = adminSummary(row);
  const time = (ms: number) => new Date(ms).toISOString();
  return csvLine([
    cell(summary.id),
    textCell(summary.clientId),
    textCell(summary.reference),
    cell(summary.state),
    cell(summary.wallet),
    cell(row.total),
    cell(row.charged),
    cell(row.refunded),
    cell(time(summary.createdAt)),
    cell(time(summary.modifiedAt)),
    cell(time(summary.expiresAt)),
    textCell(summary.skus.join(" ")),
  ]);
}

/**
 * GET /admin/orders/export: every matching order as CSV, streamed a batch of rows at a time in the list's
 * order (newest first), so that an export of any size never holds more than one batch.
 */
export async function exportAdminOrders(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { filter } = adminFilterOf(request);
  const encoder = new TextEncoder();
  const batches = walkIndex(context.env.DB, filter, 500);
  let header = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(csvLine(EXPORT_COLUMNS)));
        return;
      }
      const next = await batches.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value.map(exportLine).join("")));
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="orders-${Date.now()}.csv"` },
  });
}

/** GET /admin/reconciliation?createdFrom=&createdTo=: the three checks over a period, every mismatch with where to look. */
export async function getReconciliation(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { createdFrom, createdTo, grace } = parseQuery(ReconciliationQuery, request);
  if (createdFrom > createdTo) fail("invalid_parameters", { issues: [{ path: "createdTo", message: "createdTo is before createdFrom" }] });
  const result = await reconcile(context.env, createdFrom, createdTo, Date.now(), grace === undefined ? undefined : grace * 1000);
  return ok("Reconciliation", result);
}

/** POST /admin/orders/index/backfill: orders created before the index existed, found through the ledgers. */
export async function backfillOrderIndex(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  return ok("Order index backfilled", await backfillIndex(context.env));
}

/**
 * GET /admin/orders/stuck: orders whose timer (expiry, processing, webhook outbox, settling a cut-off
 * confirm) has failed 3 or more times in a row, with the last error, and orders whose upstream lines have
 * had an unknown outcome past the budget. The order keeps retrying on its own; a row disappears when its
 * timer succeeds again or its lines are settled.
 */
export async function listStuckOrders(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
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
    handler: listAdminOrders,
    operationId: "adminListOrders",
    example: orderListExamples.adminListOrders,
    tag: "Admin: orders",
    summary: "List every client's orders, newest first",
    description:
      "Orders from the order index across clients, newest first (createdAt, then id), a page at a time (`limit` 1..100, `after` the `next` of the previous page), each with its client, charged and refunded amounts. Filters combine: `clientId`, `state`, `sku`, `createdFrom` and `createdTo` (Unix ms, inclusive) and `reference` (a prefix; needs `clientId`). The index lags an order by up to a few seconds; GET /admin/orders/{orderId} reads the order itself. One client's order by its reference: GET /admin/orders/by-reference.",
    auth: "admin",
    query: AdminOrderListQuery,
    data: AdminOrderList,
    messages: ["Orders"],
    errors: [],
  },
  {
    method: "GET",
    path: "/admin/orders/export",
    handler: exportAdminOrders,
    operationId: "adminExportOrders",
    example: orderListExamples.adminExportOrders,
    tag: "Admin: orders",
    summary: "Export every matching order as CSV",
    description:
      "Every order that GET /admin/orders would list for the same filters (`limit` and `after` are ignored: all of them, not one page), in the same order, streamed as CSV: a header line, then one row per order. Amounts are exact decimals in the wallet's currency; times are ISO 8601 UTC; SKUs are separated by spaces. A text cell a client or an operator wrote (reference, client id, SKUs) that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`, so that a spreadsheet shows it as text and never runs it.",
    auth: "admin",
    query: AdminOrderListQuery,
    data: null,
    csvAnswer: "A header line (id, clientId, reference, state, wallet, total, charged, refunded, createdAt, modifiedAt, expiresAt, skus), then one row per order, newest first.",
    errors: [],
  },
  {
    method: "POST",
    path: "/admin/orders/index/backfill",
    handler: backfillOrderIndex,
    operationId: "adminBackfillIndex",
    example: orderListExamples.adminBackfillIndex,
    tag: "Admin: orders",
    summary: "Add orders created before the order index existed",
    description:
      "Walks every wallet's ledger (every charge names its order), reads each order named there that the index does not hold from the order itself, and writes its row. Safe to run again and while orders are being made: a row it writes never overwrites one an order wrote itself. Orders that were never charged (rejected before a confirm) are not in any ledger and are not added.",
    auth: "admin",
    data: BackfillData,
    messages: ["Order index backfilled"],
    errors: [],
  },
  {
    method: "GET",
    path: "/admin/orders/by-reference",
    handler: findAdminOrder,
    operationId: "adminFindOrder",
    example: orderExamples.adminFindOrder,
    tag: "Admin: orders",
    summary: "Find a client's order by its reference",
    description: "The order a client created with `reference` (references are unique per client), as the client sees it and as it is stored: lines with supplier status, attempts and failure reasons.",
    auth: "admin",
    query: OrderLookupQuery,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
  {
    method: "GET",
    path: "/admin/reconciliation",
    handler: getReconciliation,
    operationId: "adminReconcile",
    example: orderListExamples.adminReconcile,
    tag: "Admin: orders",
    summary: "Reconcile the order index with the ledgers and the sold codes",
    description:
      "Three checks over a period (`createdFrom`, `createdTo`, Unix ms, inclusive): every ledger movement in the period that names an order matches the indexed order (its wallet, state and the amounts charged and refunded); every indexed order created in the period that is in an end state has ledger lines netting to its charge minus its refunds; every code sold to those orders is in its order's redeem, and in no other order's. Answers the counts checked and every mismatch with where to look. Movements and orders changed in the last `grace` seconds (default 300) are left to the next run (the index lags by seconds); `grace=0` on a quiet system checks everything. The Worker runs it every hour over the last day and logs each mismatch as one structured line (`message: reconciliation mismatch`).",
    auth: "admin",
    query: ReconciliationQuery,
    data: ReconciliationData,
    messages: ["Reconciliation"],
    errors: [],
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
      "Orders whose expiry, processing, webhook outbox or settle timer has failed at least 3 times in a row, with the last error and the next attempt, and (timer `supplier`) orders whose upstream lines have had an unknown outcome (a timeout, \"in progress\") for longer than UPSTREAM_UNKNOWN_BUDGET_SECONDS: their SKUs, since when, and each line's last answer. The order object retries without limit with capped exponential backoff (a timer 2 s doubling to 5 min, a line 1 s doubling to 5 min); the row is removed when the timer succeeds again or the supplier settles the lines. Ordered by order id; page with `after`.",
    auth: "admin",
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
    description: "Any client's order by id, as the client sees it (`order`) and as it is stored (`record`, amounts as exact decimal strings).",
    auth: "admin",
    params: OrderParams,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
];
