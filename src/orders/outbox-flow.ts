/**
 * The outbox flow: webhook events stored with the state change they announce (src/orders/order-store.ts)
 * are handed to the queue, right after the change and by the `outbox` timer until the queue takes them.
 */
import { logFailure } from "../kernel/log";
import type { WebhookMessage } from "../webhooks/events";
import type { OrderHost } from "./order-host";
import type { OrderStore } from "./order-store";
import { ORDER_SEAMS } from "./seams";

export type OutboxHost = Pick<OrderHost, "store" | "io" | "queue" | "armAlarm">;

/** Hands stored events to the webhook queue; a failure leaves them for the outbox timer's retries. */
export async function flushOutbox(host: Pick<OutboxHost, "store" | "io" | "queue">): Promise<void> {
  const { store } = host;
  const pending = store.pendingEvents();
  if (pending.length > 0) {
    await host.io(ORDER_SEAMS.queueSend, () =>
      host.queue.sendBatch(pending.map(({ message }) => ({ body: message, contentType: "json" as const }))),
    );
    store.markSent(pending.map(({ eventId }) => eventId));
  }
  store.clearTimer("outbox");
}

/** A flush right after a state change; what fails here the outbox timer (set with the event) retries. */
export async function tryFlushOutbox(host: OutboxHost): Promise<void> {
  try {
    await flushOutbox(host);
    await host.armAlarm();
  } catch (error) {
    const order = host.store.load();
    logFailure(error, { step: "outbox.flush", orderId: order?.id, clientId: order?.clientId });
  }
}

/** A webhook event the order stored: the state it announces, when, and whether the queue has it. */
export interface StoredWebhookEvent {
  eventId: string;
  state: string;
  at: number;
  sent: boolean;
}

/** The order's stored webhook events, in order (the operator's order timeline). */
export function storedWebhookEvents(store: OrderStore): StoredWebhookEvent[] {
  return store.outbox().map((entry) => {
    const { event } = JSON.parse(entry.message) as WebhookMessage;
    return { eventId: entry.eventId, state: event.data.state, at: event.createdAt, sent: entry.sent };
  });
}
