/** Operator API: order lookup (read only; orders change only through their own flow). */
import type { IRequest } from "itty-router";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { objectIdOf, orderObjectName } from "./order-id";
import type { OrderRecord } from "./order-record";
import { orderView } from "./order-view";
import { adminActor, parseParams, parseQuery } from "../http/params";
import { AdminOrderData, OrderLookupQuery, OrderParams } from "../clients/schemas";
import { orderExamples } from "./order-examples";

async function answer(stub: DurableObjectStub<import("./order-object").OrderObject>): Promise<Response> {
  const record = (await stub.record()) as OrderRecord | null;
  if (record === null) fail("order_not_found");
  return ok("Order", { clientId: record.clientId, reference: record.reference, state: record.state, order: orderView(record), record });
}

/** GET /admin/orders/:orderId: any client's order by id. */
export async function getAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { orderId } = parseParams(OrderParams, request);
  const id = objectIdOf(context.env.ORDERS, orderId);
  if (id === null) fail("order_not_found");
  return answer(context.env.ORDERS.get(id));
}

/** GET /admin/orders?clientId=&reference=: the order a client created with that reference. */
export async function findAdminOrder(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { clientId, reference } = parseQuery(OrderLookupQuery, request);
  return answer(context.env.ORDERS.get(context.env.ORDERS.idFromName(orderObjectName(clientId, reference))));
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
    description: "The order a client created with `reference` (references are unique per client), as the client sees it and as it is stored: lines with supplier status, attempts and failure reasons.",
    auth: "admin",
    query: OrderLookupQuery,
    data: AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
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
