/**
 * The expiry flow: a created order that is not confirmed by expiresAt becomes rejected, its reserved codes
 * go back on sale and its wallet voids it for good; the sandbox's expire-now runs the same path at once.
 */
import { releaseCodes } from "../inventory/reservation-store";
import { failure } from "../kernel/failures";
import { logFailure } from "../kernel/log";
import type { OrderHost, Result } from "./order-host";
import { cancelExpiry, releaseHeld } from "./order-hold";
import type { OrderRecord } from "./order-record";
import { orderView } from "./order-view";
import { tryFlushOutbox, type OutboxHost } from "./outbox-flow";
import { ORDER_SEAMS } from "./seams";
import { transition } from "./transitions";

export type ExpiryHost = OutboxHost &
  Pick<OrderHost, "orderId" | "now" | "save" | "voidOrderAlong" | "atWallet" | "db" | "livemode">;

/**
 * At expiresAt a still-created order becomes rejected (see `reject`). Each step is idempotent, so a
 * retried timer repeats none of them. Answers a time when it ran too early and did nothing.
 *
 * Never before expiresAt: the alarm may fire early for this timer (it stands at the earliest due time
 * stored, and a failed alarm write can leave it at an earlier one, such as a settle that was cleared
 * since), and a live order must not be rejected ahead of the TTL its client was given. Then nothing is
 * done and the expiry is due again at expiresAt.
 */
export async function expire(host: ExpiryHost): Promise<number | null> {
  const order = host.store.load();
  if (order !== null && order.state !== "created") return null;
  if (order === null) {
    // A create that died (or was refused) before storing its order: its codes go, then its hold.
    await releaseHeld(host);
    return null;
  }
  if (host.now() < order.expiresAt) return order.expiresAt;
  if (order.lines.some((line) => line.product.supplier === "inventory"))
    await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, order.id));
  await reject(host, order);
  return null;
}

/**
 * The wallet voids the order for good (idempotently: it credits back a charge from a confirm that never
 * finished, and refuses any charge that arrives later), and the order is stored `rejected`.
 */
export async function reject(host: ExpiryHost, order: OrderRecord): Promise<void> {
  // In the wallet the order was created against and every wallet it moved to since.
  await host.voidOrderAlong(order, ORDER_SEAMS.walletVoid, `order ${order.reference} expired`);
  const rejected: OrderRecord = {
    ...transition(order, "rejected", host.now()),
    invoiceStatus: "void",
    chargeIntentAt: null,
  };
  if (await host.save(rejected, order.state, { settle: null, expire: null })) await tryFlushOutbox(host);
}

/**
 * The sandbox's expire-now (POST /sandbox/orders/:orderId/expire), run exclusively: the client's own
 * `created` order is expired at once by the expiry path itself. Its expiresAt is moved to now and stored
 * with the expiry timer due now before anything else, so an object that dies anywhere after leaves an order
 * the alarm expires as it would have at its TTL; then `expire` runs here (release, void, rejected, event).
 * Asked again, an order it already rejected answers as it is, so a retry after a lost reply succeeds.
 * Another client's order is order_not_found, like an unknown one; a confirmed order cannot expire (409).
 */
export async function expireNow(host: ExpiryHost, clientId: string): Promise<Result<string>> {
  const order = host.store.load();
  if (order === null || order.clientId !== clientId) return failure("order_not_found");
  if (order.state === "created") {
    const now = host.now();
    const due: OrderRecord = { ...order, expiresAt: Math.min(order.expiresAt, now), modifiedAt: now };
    await host.save(due, order.state, { expire: due.expiresAt });
    try {
      await expire(host);
    } catch (error) {
      logFailure(error, { step: "sandbox.expire-now", orderId: order.id, clientId });
      return failure("server_error", {
        reason: "the order's expiry is under way and completes by itself; retry to see it",
      });
    }
    await cancelExpiry(host);
  }
  const current = host.store.load()!;
  if (current.state !== "rejected") return failure("order_already_confirmed", { state: current.state });
  return { ok: true, data: JSON.stringify(orderView(current, host.livemode)) };
}
