import type { OrderRecord } from "../orders/order-record";
import type { OrderState } from "../orders/schemas";

/** The states whose arrival is announced to the order's webhookUrl: the one list of webhook events. */
const ANNOUNCED = ["confirmed", "successful", "partial", "failed", "rejected"] as const satisfies readonly OrderState[];

export type OrderEventType = `order.${(typeof ANNOUNCED)[number]}`;

export const WEBHOOK_STATES: ReadonlySet<OrderState> = new Set(ANNOUNCED);

/** Every event type, in the order of the life cycle. */
export const ORDER_EVENT_TYPES = ANNOUNCED.map((state): OrderEventType => `order.${state}`) as [OrderEventType, ...OrderEventType[]];

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
