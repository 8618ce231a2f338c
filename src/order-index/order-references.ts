/**
 * The client's own references of its orders, by order id: what a wallet's ledger and statement show beside
 * an order's movement when the ledger itself does not name it (an order's charge names its reference).
 * Read from the order index; an order the index
 * has not caught up with yet (it is current within seconds) is read from its own object, so the answer is
 * always complete. Another client's order is not found, whichever way it is read.
 */
import { orderRecordById } from "../orders/order-lookup";
import { indexedReferences } from "./order-index-store";

export async function orderReferences(
  env: Pick<Env, "DB" | "ORDERS">,
  clientId: string,
  orderIds: readonly string[],
): Promise<Map<string, string>> {
  const found = await indexedReferences(env.DB, clientId, orderIds);
  const missing = [...new Set(orderIds)].filter((orderId) => !found.has(orderId));
  await Promise.all(
    missing.map(async (orderId) => {
      const order = await orderRecordById(env.ORDERS, orderId);
      if (order !== null && order.clientId === clientId) found.set(orderId, order.reference);
    }),
  );
  return found;
}
