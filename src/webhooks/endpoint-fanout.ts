/**
 * The fan-out of a client's new events to its account webhook endpoints (docs/webhooks.md, "Account
 * endpoints"): a books shard calls it with the events it is about to store for the first time, and each
 * event becomes one queue message per endpoint that subscribes to its type, delivered and retried by the
 * consumer as every webhook is. The endpoints are read from D1 at most once per 30 s per client and isolate
 * (a client with none costs no queue operation); the consumer reads the endpoint again at delivery, so a
 * deleted endpoint or a type no longer subscribed gets nothing, and an endpoint created elsewhere starts
 * receiving within 30 s.
 */
import type { BookEvent } from "../books/event-rules";
import type { ClientEvent, EndpointMessage } from "./events";
import type { StoredEndpoint } from "./endpoint-store";
import { subscribers } from "./endpoint-cache";

/** The messages that deliver `events` to the endpoints subscribing to each one's type. */
export function endpointMessages(
  clientId: string,
  endpoints: readonly Pick<StoredEndpoint, "id" | "url" | "eventTypes">[],
  events: readonly ClientEvent[],
): EndpointMessage[] {
  return events.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.eventTypes.includes(event.type))
      .map((endpoint) => ({ clientId, endpointId: endpoint.id, url: endpoint.url, event })),
  );
}

/** Queues `events` for the client's endpoints; throws when the queue does not take them (the shard retries). */
export async function announceToEndpoints(
  env: Pick<Env, "DB" | "WEBHOOKS">,
  clientId: string,
  events: readonly BookEvent[],
): Promise<void> {
  const endpoints = await subscribers(env.DB, clientId, Date.now());
  if (endpoints.length === 0) return;
  // The books hold the events as webhooks wrote them.
  const messages = endpointMessages(clientId, endpoints, events as readonly ClientEvent[]);
  for (let start = 0; start < messages.length; start += 100)
    await env.WEBHOOKS.sendBatch(
      messages.slice(start, start + 100).map((body) => ({ body, contentType: "json" as const })),
    );
}
