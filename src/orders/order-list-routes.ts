/**
 * GET /orders: the calling client's orders from the order index (src/orders/order-index.ts), newest first,
 * a page at a time. The index may lag an order by seconds; GET /order/get reads the order itself.
 */
import type { IRequest } from "itty-router";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { cursorText, listIndex } from "./order-index";
import { filterOf, orderSummary } from "./order-list";

// zod (through the query's schema) loads with the first list request, not when the Worker starts.
const schemas = () => import("./list-schemas");
const params = () => import("../http/params");
const examples = async () => (await import("./order-list-examples")).orderListExamples;

/** GET /orders: only the caller's own orders (the filter's clientId is the caller's, whatever the query says). */
export async function listOrders(request: IRequest, { env, authenticate }: RequestContext): Promise<Response> {
  const client = await authenticate();
  const [{ OrderListQuery }, { parseQuery }] = await Promise.all([schemas(), params()]);
  const query = parseQuery(OrderListQuery, request);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const { filter, after } = filterOf(query);
  const rows = await listIndex(env.DB, { ...filter, clientId: client.id }, after, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => cursorText(row));
  return ok("Orders", { orders: page.items.map(orderSummary), next: page.next });
}

export const orderListRoutes: Route[] = [
  {
    method: "GET",
    path: "/orders",
    handler: listOrders,
    operationId: "listOrders",
    example: async () => (await examples()).listOrders,
    tag: "Orders",
    summary: "List your orders, newest first",
    description:
      "Your orders from the order index, newest first (createdAt, then id), a page at a time: pass `next` as `after` for the next page. Filters combine: `state`, `createdFrom` and `createdTo` (Unix ms, inclusive) and `reference` (a prefix). Paging is stable: orders created while you walk the pages appear before the first page and never shift the pages you have not read yet. The index lags an order by up to a few seconds (as Stripe's search does): a list may show an order's previous state, or not yet show an order just created; GET /order/get always answers the order as it is now.",
    auth: "apiKey",
    query: async () => (await schemas()).OrderListQuery,
    data: async () => (await schemas()).OrderList,
    messages: ["Orders"],
    errors: ["invalid_parameters"],
  },
];
