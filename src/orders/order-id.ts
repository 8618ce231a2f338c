/** Order ids are `ord_` and the hex id of the order's Durable Object, named by client and reference. */
const ORDER_ID = /^ord_([0-9a-f]{64})$/;

export function orderObjectName(clientId: string, reference: string): string {
  return `${clientId}\u0000${reference}`;
}

export function orderIdOf(objectId: DurableObjectId): string {
  return `ord_${objectId.toString()}`;
}

/** The Durable Object id behind an order id, or null when the string cannot be one of ours. */
export function objectIdOf(namespace: DurableObjectNamespace<any>, orderId: string): DurableObjectId | null {
  const match = ORDER_ID.exec(orderId);
  if (match === null) return null;
  try {
    return namespace.idFromString(match[1]!);
  } catch {
    return null;
  }
}
