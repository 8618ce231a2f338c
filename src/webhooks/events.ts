/**
 * The webhook event contract: which order states are announced, the event a receiver gets and the message
 * that carries it on the queue. Webhooks own this contract and import nothing of orders;
 * src/orders/order-events.ts builds an event from an order record and checks at compile time that every
 * announced state is an order state.
 */

/** The states whose arrival is announced to the order's webhookUrl: the one list of webhook events. */
export const ANNOUNCED_STATES = ["confirmed", "successful", "partial", "failed", "rejected"] as const;

export type AnnouncedState = (typeof ANNOUNCED_STATES)[number];

export type OrderEventType = `order.${AnnouncedState}`;

/** Every event type, in the order of the life cycle. */
export const ORDER_EVENT_TYPES = ANNOUNCED_STATES.map((state): OrderEventType => `order.${state}`) as [
  OrderEventType,
  ...OrderEventType[],
];

/** The body a receiver gets (docs/webhooks.md). */
export interface OrderEvent {
  id: string;
  type: OrderEventType;
  createdAt: number;
  data: { orderId: string; state: AnnouncedState; reference: string };
  /** false for an event of the sandbox. */
  livemode: boolean;
}

/** What travels on the webhook queue: the event and where it goes; the secret is read at delivery. */
export interface WebhookMessage {
  clientId: string;
  url: string;
  event: OrderEvent;
  /**
   * When the order was created (unix ms): which day of its client's books keeps the receiver's answer
   * (docs/books.md). Absent on a message queued before the books kept them.
   */
  orderCreatedAt?: number;
}
