/**
 * The create flow: the order the Worker planned (src/orders/order-plan.ts) is stored once its stock is
 * reserved and its balance checked, or refused with everything it held given back.
 */
import { releaseCodes, reserveCodes, type Reservation } from "../inventory/reservation-store";
import { failure, type Failure } from "../kernel/failures";
import { Money, toAmountNumber } from "../pricing/money";
import { cancelExpiry } from "./expiry-flow";
import { placement, placementFields, type OrderHost, type Result } from "./order-host";
import type { Placement } from "../wallets/wallet-object";
import type { OrderPlan } from "./order-plan";
import type { OrderRecord } from "./order-record";
import { createView } from "./order-view";
import type { CreateOrderRequest } from "./requests";
import { ORDER_SEAMS } from "./seams";

export interface CreateInput {
  clientId: string;
  /** The validated create request (src/orders/requests.ts): its fields, but the product list, go into the record. */
  request: CreateOrderRequest;
  requestHash: string;
  /** The Worker's create checks and pricing: the order to store, or why there is none. */
  plan: Failure | ({ ok: true } & OrderPlan);
}

export type CreateHost = Pick<
  OrderHost,
  "orderId" | "store" | "now" | "io" | "save" | "armAlarm" | "atWallet" | "db" | "ttlMs" | "livemode"
>;

export type CreateAnswer = Result<{ order: string; replayed: boolean }>;

/**
 * Run exclusively. The reference check comes first, so that a replayed create returns its order whatever
 * the catalogue says now. Stock is then decided by reserving it (atomically, in D1, idempotently per order)
 * and the balance is checked last, as the create checks are ordered; a create refused for its balance gives
 * its codes back. A create cut off anywhere leaves at most codes held under its expiry timer: the client's
 * retry reserves again in place of them, and the timer gives them back if no retry comes.
 */
export async function create(
  host: CreateHost,
  { clientId, request, requestHash, plan }: CreateInput,
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
    if (host.store.nextDue() !== null) await releaseHeldCodes(host);
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
  let at: Placement = placement(planned);
  const reservations: Reservation[] = plan.lines
    .filter((line) => line.product.supplier === "inventory")
    .map((line) => ({ sku: line.sku, value: line.quote, quantity: line.quantity }));
  if (reservations.length > 0) {
    // Armed before reserving, so that codes reserved by a create that dies halfway still come back.
    host.store.schedule("expire", expiresAt);
    await host.armAlarm();
    const reserved = await host.io(ORDER_SEAMS.reserveCodes, () => reserveCodes(host.db, id, reservations, expiresAt));
    if (!reserved.ok) {
      await cancelExpiry(host);
      return failure("out_of_stock", {
        sku: reserved.sku,
        quote: Number(reserved.value),
        quantity: reserved.requested,
      });
    }
    // Codes held count against the balance together with the client's other open orders that hold
    // codes, so that no client holds stock it could not pay for.
    const holding = await host.atWallet(planned, ORDER_SEAMS.walletHold, (wallet) =>
      wallet.hold({ orderId: id, amount: plan.charge, until: expiresAt }),
    );
    at = holding.placement;
    const held = holding.answer;
    if (!held.ok) {
      await releaseHeldCodes(host);
      return held.code === "insufficient_funds"
        ? failure("insufficient_funds", {
            balance: toAmountNumber(held.balance),
            required: toAmountNumber(plan.charge),
          })
        : failure("balance_held", {
            balance: toAmountNumber(held.balance),
            held: toAmountNumber(held.held),
            required: toAmountNumber(plan.charge),
          });
    }
  } else {
    // An earlier attempt with another body left timers, so it may have reserved codes this one does not
    // need: give them back (one statement, only on such a retry).
    if (host.store.nextDue() !== null) await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, id));
    const funds = await host.atWallet(planned, ORDER_SEAMS.walletBalance, (wallet) => wallet.funds());
    at = funds.placement;
    const balance = new Money(funds.answer.balance);
    if (balance.lessThan(plan.charge))
      return failure("insufficient_funds", { balance: toAmountNumber(balance), required: toAmountNumber(plan.charge) });
  }
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

/** A create that stores no order gives back the codes it (or an earlier attempt) reserved, and its timer. */
async function releaseHeldCodes(host: CreateHost): Promise<void> {
  await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, host.orderId));
  await cancelExpiry(host);
}
