/**
 * GET /events: every event of the calling client for the last 30 days, newest first, a page at a time,
 * from its books (src/books/event-reader.ts): its orders' state changes whether or not an order named a
 * webhookUrl, its wallets' top-ups and low balances, and its deliveries that failed for good. Each event is
 * the body a webhook receiver gets. No order or wallet object is asked.
 */
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { once } from "../kernel/once";
import type { ClientEvent } from "./events";

// The query's schema loads with the list's first request, or the document.
const schemas = once(() => import("./event-schemas"));
// The list's modules load with its first request.
const lister = once(() => Promise.all([import("../books/event-reader"), import("../books/event-rules")]));
const examples = async () => (await import("./event-examples")).eventExamples;

/** This file's routes, each with its description in GET /openapi.json. */
export const eventRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/events",
      scope: "books:read",
      operationId: "listEvents",
      example: async () => (await examples()).listEvents,
      tag: "Events",
      summary: "Your events of the last 30 days, newest first",
      description:
        "Every event of the calling client of the last 30 days, newest first (by `createdAt`, then `id`): each order's state changes (`order.*`, whether or not the order named a `webhookUrl`), `wallet.funded` (an operator's top-up or credit, with the note written for you), `wallet.low` (a balance below your threshold, `PUT /wallets/{currency}/alert`) and `delivery.failed` (an event a webhook receiver never accepted). Each event is exactly the body a webhook receiver gets. Filter by `type` and creation time (`createdFrom`, `createdTo`, both inclusive); page with `limit` and `after` (the `next` of the previous page): a walk neither repeats nor skips an event (newer ones come before its first page). Events reach the list within seconds (an order's with its books, about 2 s after the change).",
      auth: "apiKey",
      query: async () => (await schemas()).ListEventsQuery,
      data: async () => (await schemas()).EventListData,
      messages: ["Events"],
      checks: [
        {
          when: "The query: each filter's form, `type` only known types, `after` a cursor this list gave",
          codes: ["invalid_parameters"],
        },
      ],
    },
    async ({ query, client, env, ok }) => {
      const [[{ clientEvents }, { parseEventCursor, cursorText }], { typesOf }] = await Promise.all([
        lister(),
        schemas(),
      ]);
      const after = query.after === undefined ? null : parseEventCursor(query.after);
      if (query.after !== undefined && after === null)
        fail("invalid_parameters", { issues: [{ path: "after", message: "not a cursor this list gave" }] });
      const types = query.type === undefined ? undefined : typesOf(query.type);
      if (types === null) fail("invalid_parameters", { issues: [{ path: "type", message: "not a type of event" }] });
      const page = await clientEvents(env, client.id, {
        filter: {
          ...(types !== undefined ? { types } : {}),
          ...(query.createdFrom !== undefined ? { createdFrom: query.createdFrom } : {}),
          ...(query.createdTo !== undefined ? { createdTo: query.createdTo } : {}),
        },
        after,
        limit: query.limit ?? 100,
        now: Date.now(),
      });
      // The books hold the events as webhooks wrote them.
      return ok("Events", {
        events: page.events as ClientEvent[],
        next: page.next === null ? null : cursorText(page.next),
      });
    },
  ),
];
