import { failure, type Failure } from "../kernel/failures";
import type { LineStatus, OrderRecord } from "./order-record";
import type { OrderState } from "./order-view-schemas";

/** The order life cycle (docs/api.md). Anything not listed here is not a transition. */
const NEXT: Readonly<Record<OrderState, readonly OrderState[]>> = {
  created: ["confirmed", "rejected"],
  confirmed: ["processing"],
  processing: ["successful", "partial", "failed"],
  rejected: [],
  successful: [],
  partial: [],
  failed: [],
};

export function canTransition(from: OrderState, to: OrderState): boolean {
  return NEXT[from].includes(to);
}

export function transition(order: OrderRecord, to: OrderState, now: number): OrderRecord {
  if (!canTransition(order.state, to)) throw new Error(`order ${order.id}: no transition ${order.state} -> ${to}`);
  return { ...order, state: to, modifiedAt: Math.max(now, order.modifiedAt) };
}

/**
 * Whether an order may be confirmed now. An order already past `created` is a repeated confirmation (409),
 * except a rejected one, which expired (419); a created order past expiresAt is expired even before its
 * alarm has turned it into `rejected`.
 */
export function confirmable(order: OrderRecord, now: number): Failure | null {
  if (order.state === "rejected") return failure("order_expired");
  if (order.state !== "created") return failure("order_already_confirmed", { state: order.state });
  if (now >= order.expiresAt) return failure("order_expired");
  return null;
}

/** The end state of a processed order from the outcome of its lines. */
export function outcomeOf(statuses: LineStatus[]): "successful" | "partial" | "failed" | null {
  if (statuses.some((status) => status === "pending")) return null;
  const fulfilled = statuses.filter((status) => status === "fulfilled").length;
  if (fulfilled === statuses.length) return "successful";
  return fulfilled === 0 ? "failed" : "partial";
}
