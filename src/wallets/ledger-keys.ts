/**
 * Every ledger entry key the service writes, made here and nowhere else. A key names one money movement
 * for good: the wallet writes at most one entry per key, so a retried call finds its entry instead of
 * moving the money twice.
 */

/** The one charge of a confirmed order. */
export function chargeKey(orderId: string): string {
  return `order:${orderId}:charge`;
}

/**
 * The reason written with an order's charge: it names the client's reference, so that a wallet's ledger
 * alone tells which order of the client's a charge (and the refunds after it) belongs to.
 */
export function chargeReason(reference: string): string {
  return `order ${reference}`;
}

/** The client's reference a charge's reason names (the inverse of chargeReason), or null. */
export function referenceOfChargeReason(reason: string | null): string | null {
  return reason !== null && reason.startsWith("order ") ? reason.slice("order ".length) : null;
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

/**
 * The key a forwarded credit started from: a transfer passed on along a chain of moved wallets is keyed
 * `forward:` once per hop (forwardKey), so the first key without the prefix is the credit or the move.
 */
export function rootOfForward(key: string): string {
  let root = key;
  while (root.startsWith("forward:")) root = root.slice("forward:".length);
  return root;
}

/** Whether the key is a wallet's move to its next object (moveKey), not a movement of the client's money. */
export function isMoveKey(key: string): boolean {
  return key.startsWith("move:");
}

/**
 * The order credit a key names (a refund of a failed line, or a void's credit-back), or null: what a
 * forwarded credit was, read from its key when it lands in the wallet's newer object.
 */
export function orderCreditOfKey(
  key: string,
): { kind: "order_refund"; orderId: string; sku: string } | { kind: "order_void"; orderId: string } | null {
  const refund = /^order:(ord_[0-9a-f]+):refund:(.+)$/.exec(key);
  if (refund !== null) return { kind: "order_refund", orderId: refund[1]!, sku: refund[2]! };
  const voided = /^order:(ord_[0-9a-f]+):void$/.exec(key);
  return voided === null ? null : { kind: "order_void", orderId: voided[1]! };
}
