/**
 * GET /orders: every order of the calling client, in any state, from its books (order-list.ts), newest
 * first, a page at a time. No order object is asked, so the create, confirm and get of any order never
 * wait for it.
 */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { once } from "../kernel/once";

// The query's schema loads with the list's first request, or the document.
const schemas = once(() => import("./order-list-schemas"));
// The list's modules load with its first request.
const lister = once(() => Promise.all([import("./order-list"), import("./order-index-store")]));
const examples = async () => (await import("./order-list-examples")).orderListExamples;

const ORDER_LIST_NOTE =
  "The list is read from the order index, which the service keeps current within seconds of each change of an order; GET /order/get (by `orderId` or `reference`) reads the order itself and is always current.";

/** This file's routes, each with its description in GET /openapi.json. */
export const orderListRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/orders",
      operationId: "listOrders",
      example: async () => (await examples()).listOrders,
      tag: "Orders",
      summary: "Your orders, newest first",
      description: `Every order of the calling client in any state (\`created\` and expired, \`rejected\`, ones included), newest first (by \`createdAt\`, then \`id\`), filtered by \`state\`, creation time (\`createdFrom\`, \`createdTo\`, both inclusive) and a \`reference\` prefix. Page with \`limit\` and \`after\` (the \`next\` of the previous page): paging is stable, so a walk of the pages while orders are being created neither repeats nor skips an order that existed when it began (newer orders come before its first page). ${ORDER_LIST_NOTE}`,
      auth: "apiKey",
      query: async () => (await schemas()).ListOrdersQuery,
      data: async () => (await schemas()).OrderListData,
      messages: ["Orders"],
      checks: [
        { when: "The query: each filter's form, `after` a cursor this list gave", codes: ["invalid_parameters"] },
      ],
    },
    async ({ query, client, env, ok }) => {
      const [{ clientOrders }, { parseCursor }] = await lister();
      const after = query.after === undefined ? null : parseCursor(query.after);
      if (query.after !== undefined && after === null)
        fail("invalid_parameters", { issues: [{ path: "after", message: "not a cursor this list gave" }] });
      const page = await clientOrders(
        env,
        client.id,
        {
          ...(query.state !== undefined ? { state: query.state } : {}),
          ...(query.createdFrom !== undefined ? { createdFrom: query.createdFrom } : {}),
          ...(query.createdTo !== undefined ? { createdTo: query.createdTo } : {}),
          ...(query.reference !== undefined ? { reference: query.reference } : {}),
        },
        after,
        query.limit,
      );
      return ok("Orders", page);
    },
  ),
];
