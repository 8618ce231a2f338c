/**
 * How many open (created, unconfirmed) orders one client may hold in one wallet at once, pure: the bound
 * MAX_OPEN_ORDERS, halved for every EXPIRED_ORDERS_BACKOFF_STEP of the client's orders in a row that
 * expired unconfirmed (a confirmed order starts the count again, and so does a day without an expiry),
 * never below one, so that a client whose orders keep expiring can still place and pay for one at a time
 * (docs/configuration.md, docs/api.md).
 */

/** A run of expiries with none for this long is over: the next expiry starts a new one. */
export const EXPIRY_RUN_MS = 24 * 60 * 60 * 1000;

/** The bound of open orders for a client whose last `expiredInARow` orders expired unconfirmed. */
export function openOrderLimit(maxOpen: number, expiredInARow: number, backoffStep: number): number {
  if (!(backoffStep > 0)) return maxOpen;
  const halvings = Math.floor(expiredInARow / backoffStep);
  return Math.max(1, Math.floor(maxOpen / 2 ** Math.min(halvings, 30)));
}

/** The expiries in a row that still count at `now`: none once a day has passed since the last. */
export function expiriesInARow(stored: { count: number; lastAt: number } | null, now: number): number {
  if (stored === null || now - stored.lastAt >= EXPIRY_RUN_MS) return 0;
  return stored.count;
}
