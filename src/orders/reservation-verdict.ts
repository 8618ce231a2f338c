/**
 * Whether an order still needs the codes it holds: the question the inventory sweep asks of each order
 * holding stale reservations (src/inventory/sweep.ts). An order that was never stored (its create failed
 * after reserving), is over (rejected, failed, partial, successful) or is still `created` past its expiry
 * (its confirm already answers 419) needs none. A `confirmed` or `processing` order keeps its codes:
 * processing sells them.
 */
import type { AskHolder, HolderVerdict } from "../inventory/sweep";
import type { OrderObject } from "./order-object";
import { orderRecordById } from "./order-lookup";
import type { OrderRecord } from "./order-record";
import type { OrderState } from "./order-view-schemas";

const RELEASABLE = new Set<OrderState>(["rejected", "failed", "partial", "successful"]);

export function verdictOn(record: OrderRecord | null, now: number): HolderVerdict {
  if (record === null) return { release: true, state: "missing" };
  if (RELEASABLE.has(record.state)) return { release: true, state: record.state };
  if (record.state === "created" && record.expiresAt < now) return { release: true, state: record.state };
  return { release: false, state: record.state };
}

/** The sweep's question, answered from each order's own object. */
export function askOrders(orders: DurableObjectNamespace<OrderObject>): AskHolder {
  return async (orderId, now) => verdictOn(await orderRecordById(orders, orderId), now);
}
