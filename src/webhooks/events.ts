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

/** The account's events besides an order's state changes (docs/webhooks.md, "Account events"). */
export const ACCOUNT_EVENT_TYPES = ["wallet.funded", "wallet.low", "delivery.failed"] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** Every type of event a client can list (GET /events) and subscribe an endpoint to. */
export const EVENT_TYPES = [...ORDER_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES] as [
  OrderEventType | AccountEventType,
  ...(OrderEventType | AccountEventType)[],
];
export type EventType = (typeof EVENT_TYPES)[number];

/** A top-up or a positive credit an operator posted: the client-facing note only, never the reason. */
export interface WalletFundedEvent {
  id: string;
  type: "wallet.funded";
  createdAt: number;
  data: { currency: string; amount: string; balance: string; note: string | null };
  livemode: boolean;
}

/** The wallet's balance went below the client's threshold (once per crossing, at most once a day). */
export interface WalletLowEvent {
  id: string;
  type: "wallet.low";
  createdAt: number;
  data: { currency: string; balance: string; threshold: string };
  livemode: boolean;
}

/** A delivery to an endpoint failed for good: every attempt failed and it was dead-lettered. */
export interface DeliveryFailedEvent {
  id: string;
  type: "delivery.failed";
  createdAt: number;
  data: {
    eventId: string;
    eventType: EventType;
    /** The account endpoint it was for; null for an order's own webhookUrl. */
    endpointId: string | null;
    url: string;
    attempts: number;
    error: string;
  };
  livemode: boolean;
}

/** Any event of a client: what GET /events lists and an account endpoint receives. */
export type ClientEvent = OrderEvent | WalletFundedEvent | WalletLowEvent | DeliveryFailedEvent;

/**
 * A delivery to one of the client's account webhook endpoints, on the same queue: the endpoint's secret
 * (read at delivery) signs it, and the endpoint must still exist and take the event's type.
 */
export interface EndpointMessage {
  clientId: string;
  endpointId: string;
  url: string;
  event: ClientEvent;
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
