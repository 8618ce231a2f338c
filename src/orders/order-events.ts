/** The webhook event of an order's state change, built from its record (the contract is src/webhooks/events.ts). */
import { ANNOUNCED_STATES, type AnnouncedState, type WebhookMessage } from "../webhooks/events";
import type { OrderRecord } from "./order-record";
import type { OrderState } from "./order-view-schemas";

// Fails to compile when webhooks announce a state that orders do not have.
ANNOUNCED_STATES satisfies readonly OrderState[];

/** The order states a webhook announces. */
export const WEBHOOK_STATES: ReadonlySet<OrderState> = new Set<OrderState>(ANNOUNCED_STATES);

function isAnnounced(state: OrderState): state is AnnouncedState {
  return WEBHOOK_STATES.has(state);
}

/** The queue message announcing that `order` reached its current state (one of WEBHOOK_STATES). */
export function orderEvent(order: OrderRecord, id: string, createdAt: number, livemode: boolean): WebhookMessage {
  const state = order.state;
  if (!isAnnounced(state)) throw new Error(`order ${order.id}: state ${state} is not announced by a webhook`);
  return {
    clientId: order.clientId,
    orderCreatedAt: order.createdAt,
    url: order.webhookUrl ?? "",
    event: {
      id: `evt_${id.replaceAll("-", "")}`,
      type: `order.${state}`,
      createdAt,
      data: { orderId: order.id, state, reference: order.reference },
      livemode,
    },
  };
}
