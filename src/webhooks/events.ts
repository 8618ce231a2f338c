import type { OrderRecord } from "../orders/order-record";
import type { OrderState } from "../orders/schemas";

/** States whose arrival is announced to the order's webhookUrl. */
export const WEBHOOK_STATES: ReadonlySet<OrderState> = new Set(["confirmed", "successful", "partial", "failed", "rejected"]);

export type OrderEventType = `order.${"confirmed" | "successful" | "partial" | "failed" | "rejected"}`;

/** The body a receiver gets (docs/webhooks.md). */
export interface OrderEvent {
  id: string;
  type: OrderEventType;
  createdAt: number;
  data: { orderId: string; state: OrderState; reference: string };
}

/** What travels on the webhook queue: the event and where it goes; the secret is read at delivery. */
export interface WebhookMessage {
  clientId: string;
  url: string;
  event: OrderEvent;
}

export function orderEvent(order: OrderRecord, id: string, createdAt: number): WebhookMessage {
  return {
    clientId: order.clientId,
    url: order.webhookUrl ?? "",
    event: {
      id: `evt_${id.replaceAll("-", "")}`,
      type: `order.${order.state}` as OrderEventType,
      createdAt,
      data: { orderId: order.id, state: order.state, reference: order.reference },
    },
  };
}
