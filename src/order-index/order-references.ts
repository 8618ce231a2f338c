/**
 * The client's own references of its orders, by order id: what a wallet's ledger and statement show beside
 * an order's movement when the ledger itself does not name it (an order's charge names its reference).
 * Read from each order's own object, the source of truth: the client's books are kept by day, which an
 * order id does not tell, and the D1 index is on its way out (docs/books.md). Another client's order is
 * not found.
 */
import { orderRecordById } from "../orders/order-lookup";

/** Order objects asked at once. */
const ASK_AT_ONCE = 16;

export async function orderReferences(
  env: Pick<Env, "ORDERS">,
  clientId: string,
  orderIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const unique = [...new Set(orderIds)];
  for (let start = 0; start < unique.length; start += ASK_AT_ONCE)
    await Promise.all(
      unique.slice(start, start + ASK_AT_ONCE).map(async (orderId) => {
        const order = await orderRecordById(env.ORDERS, orderId);
        if (order !== null && order.clientId === clientId) found.set(orderId, order.reference);
      }),
    );
  return found;
}
