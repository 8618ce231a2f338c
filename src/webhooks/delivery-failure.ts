/**
 * `delivery.failed` (docs/webhooks.md, "Account events"): an event a receiver never accepted, recorded in
 * the client's books (and so announced to its account endpoints) when its delivery is given up: an order's
 * webhook when it is kept as a dead letter, an account endpoint's after its last attempt. Its id is a hash
 * of the event and where it went, so that recording it again after a crash is a repeat; no failure is
 * recorded for the delivery of a `delivery.failed` itself (a dead receiver would otherwise feed a chain).
 */
import { recordClientEvents } from "../books/event-writer";
import { toHex } from "../kernel/crypto";
import type { ClientEvent, DeliveryFailedEvent } from "./events";

/** What is known of a delivery given up. */
export interface GivenUp {
  clientId: string;
  event: ClientEvent;
  endpointId: string | null;
  url: string;
  attempts: number;
  error: string;
}

async function failureId(event: ClientEvent, where: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${event.id}\u0000${where}`));
  return `evt_df_${toHex(new Uint8Array(digest)).slice(0, 32)}`;
}

/** The `delivery.failed` event of a delivery given up, or null for one that announced a failure itself. */
export async function deliveryFailedEvent(given: GivenUp, now: number): Promise<DeliveryFailedEvent | null> {
  if (given.event.type === "delivery.failed") return null;
  return {
    id: await failureId(given.event, given.endpointId ?? given.url),
    type: "delivery.failed",
    createdAt: now,
    data: {
      eventId: given.event.id,
      eventType: given.event.type,
      endpointId: given.endpointId,
      url: given.url,
      attempts: given.attempts,
      error: given.error.slice(0, 500),
    },
    livemode: given.event.livemode,
  };
}

/** Records the failures of `given` in their clients' books; throws when one could not be (the caller retries). */
export async function recordDeliveryFailures(
  env: Pick<Env, "BOOKS">,
  given: readonly GivenUp[],
  now: number,
): Promise<void> {
  const byClient = new Map<string, DeliveryFailedEvent[]>();
  for (const each of given) {
    const event = await deliveryFailedEvent(each, now);
    if (event !== null) byClient.set(each.clientId, [...(byClient.get(each.clientId) ?? []), event]);
  }
  await Promise.all([...byClient].map(([clientId, events]) => recordClientEvents(env.BOOKS, clientId, events)));
}
