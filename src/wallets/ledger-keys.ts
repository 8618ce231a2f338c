/**
 * Every ledger entry key the service writes, made here and nowhere else. A key names one money movement
 * for good: the wallet writes at most one entry per key, so a retried call finds its entry instead of
 * moving the money twice.
 */

/** The one charge of a confirmed order. */
export function chargeKey(orderId: string): string {
  return `order:${orderId}:charge`;
}

/** The refund of one failed line of an order. */
export function refundKey(orderId: string, sku: string): string {
  return `order:${orderId}:refund:${sku}`;
}

/** The void of an order that expired unconfirmed: final, and after it the order can never be charged. */
export function voidKey(orderId: string): string {
  return `order:${orderId}:void`;
}

/** An operator top-up, keyed by the idempotency key the operator sent. */
export function topUpKey(idempotencyKey: string): string {
  return `top-up:${idempotencyKey}`;
}

/** A client's own top-up in the sandbox, keyed by the idempotency key the client sent (apart from the operator's). */
export function sandboxTopUpKey(idempotencyKey: string): string {
  return `sandbox-top-up:${idempotencyKey}`;
}

/** An operator adjustment, keyed by the idempotency key the operator sent. */
export function adjustmentKey(idempotencyKey: string): string {
  return `adjustment:${idempotencyKey}`;
}

/**
 * A wallet's move to its next object: the `move_out` entry in the old wallet and the `move_in` entry in
 * the new one share it, so the transfer is written once on each side however often it is retried.
 */
export function moveKey(clientId: string, currency: string, toGeneration: number): string {
  return `move:${clientId}:${currency}:${toGeneration}`;
}

/**
 * A credit a moved wallet received after its move (a refund or a void of an order it charged), passed on
 * to its successor: the `move_out` and `move_in` of that credit, keyed by the credit's own key.
 */
export function forwardKey(creditKey: string): string {
  return `forward:${creditKey}`;
}

/** The order a charge key belongs to, or null when the key is not a charge key (the inverse of chargeKey). */
export function orderIdOfChargeKey(key: string): string | null {
  const match = /^order:(.+):charge$/.exec(key);
  return match ? match[1]! : null;
}
