/**
 * The create flow: the order the Worker planned (src/orders/order-plan.ts) is stored once its balance is
 * held and its stock reserved, or refused with everything it held given back.
 */
import type { Reservation } from "../inventory/reservation-store";
import { failure, type Failure } from "../kernel/failures";
import { placementFields, type OrderHost, type Result } from "./order-host";
import { holdAndReserve, openAtWallet, releaseUnstored, type HoldHost } from "./order-hold";
import type { OpenBound } from "../wallets/postings";
import type { OrderPlan } from "./order-plan";
import type { OrderRecord } from "./order-record";
import { createView } from "./order-view";
import type { CreateOrderRequest } from "./requests";

export interface CreateInput {
  clientId: string;
  /** The validated create request (src/orders/requests.ts): its fields, but the product list, go into the record. */
  request: CreateOrderRequest;
  requestHash: string;
  /** The Worker's create checks and pricing: the order to store, or why there is none. */
  plan: Failure | ({ ok: true } & OrderPlan);
  /** The most codes one wallet's open orders may hold together (MAX_HELD_CODES). */
  maxHeldCodes: number;
  /** The bound of one client's open orders in one wallet (MAX_OPEN_ORDERS, EXPIRED_ORDERS_BACKOFF_STEP). */
  open: OpenBound;
}

export type CreateHost = HoldHost & Pick<OrderHost, "now" | "save" | "ttlMs" | "livemode">;

export type CreateAnswer = Result<{ order: string; replayed: boolean }>;

/**
 * Run exclusively. The reference check comes first, so that a replayed create returns its order whatever
 * the catalogue says now. An order that reserves codes then holds its amount and its codes at the wallet
 * first, and reserves stock (atomically, in D1, idempotently per order) only once the hold proves the
 * client can pay for it: a client that cannot never holds a code, not even for a moment, so it can never
 * make another client's create fail for stock. Out of stock, the hold is let go of. The answer keeps the
 * create checks' order: a create the wallet refuses that would also be out of stock answers out_of_stock
 * (read from D1, reserving nothing). A create cut off anywhere leaves at most a hold and codes under its
 * expiry timer: the client's retry holds and reserves again in place of them, and the timer gives both
 * back if no retry comes (codes first, then the hold, so the hold never lapses before its codes).
 */
export async function create(
  host: CreateHost,
  { clientId, request, requestHash, plan, maxHeldCodes, open }: CreateInput,
): Promise<CreateAnswer> {
  const existing = host.store.load();
  if (existing !== null) {
    if (existing.clientId === clientId && existing.requestHash === requestHash) {
      // The first answer may have been lost before its alarm was armed.
      await host.armAlarm();
      return { ok: true, data: { order: JSON.stringify(createView(existing, host.livemode)), replayed: true } };
    }
    return failure("reference_already_used", { orderId: existing.id });
  }
  if (!plan.ok) {
    // An earlier attempt with another body may have died holding codes: a refused retry gives them back
    // now rather than at that attempt's expiry.
    if (host.store.nextDue() !== null) await releaseUnstored(host);
    return plan;
  }

  const id = host.orderId;
  const now = host.now();
  const expiresAt = now + host.ttlMs;
  // The wallet the plan names (the registry's, as the snapshot read it); a create that meets it moved is
  // stored against its successor.
  const planned = {
    clientId,
    wallet: request.wallet,
    walletRegion: plan.walletRegion,
    walletGeneration: plan.walletGeneration ?? 0,
  };
  const reservations: Reservation[] = plan.lines
    .filter((line) => line.product.supplier === "inventory")
    .map((line) => ({ sku: line.sku, value: line.quote, quantity: line.quantity }));
  // An earlier attempt of this reference that stored no order, cut off or refused, left timers.
  const holding = { planned, charge: plan.charge, expiresAt, earlier: host.store.nextDue() !== null, open };
  const taken =
    reservations.length > 0
      ? await holdAndReserve(host, { ...holding, reservations, maxHeldCodes })
      : await openAtWallet(host, holding);
  if (!taken.ok) return taken;
  const at = taken.at;
  // Every field of the request but its product list (the plan's lines replace it) is stored as sent, so
  // that a new optional field of the create request reaches the record without a change here.
  const { productList: _lines, webhookUrl, ...fields } = request;
  const order: OrderRecord = {
    ...fields,
    id,
    clientId,
    requestHash,
    webhookUrl: webhookUrl ?? null,
    state: "created",
    createdAt: now,
    modifiedAt: now,
    expiresAt,
    lines: plan.lines,
    rates: plan.rates,
    charge: plan.charge,
    retailCharge: plan.retailCharge,
    invoiceStatus: "unpaid",
    chargeIntentAt: null,
    // Only when there is one: an order of a wallet without a region, never moved, is stored as before.
    ...placementFields(at),
  };
  await host.save(order, null, { expire: expiresAt });
  return { ok: true, data: { order: JSON.stringify(createView(order, host.livemode)), replayed: false } };
}
