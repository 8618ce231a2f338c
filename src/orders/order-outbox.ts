/**
 * The order's outbox: each webhook event stored under its own key in the object's key-value storage, in
 * the same transaction as the state change it announces (src/orders/order-store.ts), until the queue has
 * taken it.
 */
import type { WebhookMessage } from "../webhooks/events";

/** One stored webhook event, exactly as it was handed (or will be handed) to the queue. */
export interface OutboxEntry {
  seq: number;
  eventId: string;
  /** The queue message as JSON text: what the receiver gets is byte for byte its `event`. */
  message: string;
  sent: boolean;
}

export const OUTBOX_PREFIX = "outbox:";

/** Zero-padded so that the keys list in the order the events were stored. */
export function outboxKey(seq: number): string {
  return `${OUTBOX_PREFIX}${String(seq).padStart(10, "0")}`;
}

/** The entry that stores `message` as the order's `seq`-th event, not yet sent. */
export function outboxEntry(seq: number, message: WebhookMessage): OutboxEntry {
  return { seq, eventId: message.event.id, message: JSON.stringify(message), sent: false };
}

/** The events still to hand to the queue, in the order they were stored. */
export function pendingOf(entries: readonly OutboxEntry[]): { eventId: string; message: WebhookMessage }[] {
  return entries
    .filter((entry) => !entry.sent)
    .map((entry) => ({ eventId: entry.eventId, message: JSON.parse(entry.message) as WebhookMessage }));
}
