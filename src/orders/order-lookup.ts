/** An order's stored record by its id, read from the order's own object (the source of truth). */
import { objectIdOf } from "./order-id";
import type { OrderObject } from "./order-object";
import type { OrderRecord } from "./order-record";

/** The record; null for an id that names no order of this service, or an order never stored. */
export async function orderRecordById(
  orders: DurableObjectNamespace<OrderObject>,
  orderId: string,
): Promise<OrderRecord | null> {
  const id = objectIdOf(orders, orderId);
  return id === null ? null : ((await orders.get(id).record()) as OrderRecord | null);
}
