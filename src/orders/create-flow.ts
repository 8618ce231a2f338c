/**
 * The create flow: the order the Worker planned (src/orders/order-plan.ts) is stored once its balance is
 * held and its stock reserved, or refused with everything it held given back.
 */
import { releaseCodes, reserveCodes, shortLine, type Reservation } from "../inventory/reservation-store";
import { failure, type Failure } from "../kernel/failures";
import { Money, toAmountNumber } from "../pricing/money";
import { cancelExpiry, releaseHold } from "./expiry-flow";
import { placementFields, type OrderHost, type Result, type WalletOf } from "./order-host";
import type { HoldResult, OpenBound, OpenOrdersRefused } from "../wallets/postings";
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
  /** The most codes one wallet's open orders may hold together (MAX_HELD_CODES). */
  maxHeldCodes: number;
  /** The bound of one client's open orders in one wallet (MAX_OPEN_ORDERS, EXPIRED_ORDERS_BACKOFF_STEP). */
  open: OpenBound;
}

export type CreateHost = Pick<
  OrderHost,
  "orderId" | "store" | "now" | "io" | "save" | "armAlarm" | "atWallet" | "db" | "ttlMs" | "livemode"
>;

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

/** What holding and reserving for a create needs to know. */
interface Holding {
  planned: WalletOf;
  reservations: Reservation[];
  charge: string;
  expiresAt: number;
  /** An earlier attempt of this reference stored no order and left timers. */
  earlier: boolean;
  maxHeldCodes: number;
  open: OpenBound;
}

/**
 * Holds the charge at the wallet, then reserves the codes: a client that cannot pay never reserves one, so
 * it cannot make another client's create fail for stock. Answers where the wallet is, or the refusal.
 */
async function holdAndReserve(
  host: CreateHost,
  { planned, reservations, charge, expiresAt, earlier, maxHeldCodes, open }: Holding,
): Promise<{ ok: true; at: Placement } | Failure> {
  const id = host.orderId;
  // It held in another wallet (another body's currency): let go of that hold first.
  const heldBefore = host.store.pendingHold();
  if (heldBefore != null && heldBefore.wallet !== planned.wallet) await releaseHold(host, heldBefore);
  // Armed, with the wallet it holds at, before holding, so that a create that dies halfway still gives
  // back its hold and codes.
  host.store.notePendingHold(planned, expiresAt);
  await host.armAlarm();
  const codes = reservations.reduce((sum, line) => sum + line.quantity, 0);
  const holding = await host.atWallet(planned, ORDER_SEAMS.walletHold, (wallet) =>
    wallet.hold({ orderId: id, amount: charge, until: expiresAt, codes, maxCodes: maxHeldCodes, open }),
  );
  const held = holding.answer;
  if (!held.ok) {
    // Stock is checked before the balance: read it (nothing is reserved) to answer as the checks are ordered.
    const short = await host.io(ORDER_SEAMS.reserveCodes, () => shortLine(host.db, id, reservations));
    if (earlier) await releaseHeldCodes(host);
    else {
      // Refused, so this attempt holds nothing: its marker and timer go.
      host.store.notePendingHold(null);
      await cancelExpiry(host);
    }
    if (short !== null) return outOfStock(short);
    return holdRefusal(held, charge, codes);
  }
  const reserved = await host.io(ORDER_SEAMS.reserveCodes, () => reserveCodes(host.db, id, reservations, expiresAt));
  if (!reserved.ok) {
    // The batch that found the stock short reserved nothing; the hold goes, then the timer.
    await releaseHold(host, planned);
    await cancelExpiry(host);
    return outOfStock(reserved);
  }
  return { ok: true, at: holding.placement };
}

/** The client's open orders reach their bound, as the create's failure. */
function openOrdersRefusal(refused: OpenOrdersRefused): Failure {
  return failure("open_orders_limit", {
    open: refused.open,
    limit: refused.limit,
    expiredInARow: refused.expiredInARow,
  });
}

/** The wallet's refusal of a hold, as the create's failure. */
function holdRefusal(
  held: Extract<HoldResult, { code: "insufficient_funds" | "balance_held" | "held_codes_limit" | "open_orders_limit" }>,
  charge: string,
  codes: number,
): Failure {
  if (held.code === "open_orders_limit") return openOrdersRefusal(held);
  if (held.code === "insufficient_funds")
    return failure("insufficient_funds", { balance: toAmountNumber(held.balance), required: toAmountNumber(charge) });
  if (held.code === "balance_held")
    return failure("balance_held", {
      balance: toAmountNumber(held.balance),
      held: toAmountNumber(held.held),
      required: toAmountNumber(charge),
    });
  return failure("held_codes_limit", { held: held.heldCodes, limit: held.limit, requested: codes });
}

/**
 * A create that holds no codes: the wallet checks the balance and counts the order among the client's open
 * ones (open_orders_limit past their bound), in the one call the create made anyway, and takes the
 * order's slot until its expiry. Answers where the wallet is, or the refusal.
 */
async function openAtWallet(
  host: CreateHost,
  { planned, charge, expiresAt, earlier, open }: Omit<Holding, "reservations" | "maxHeldCodes">,
): Promise<{ ok: true; at: Placement } | Failure> {
  // An earlier attempt with another body may have reserved codes and held at the wallet for them: give
  // them back (only on such a retry).
  if (earlier) {
    await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, host.orderId));
    const heldBefore = host.store.pendingHold();
    if (heldBefore != null) await releaseHold(host, heldBefore);
  }
  const opened = await host.atWallet(planned, ORDER_SEAMS.walletBalance, (wallet) =>
    wallet.openOrder({ orderId: host.orderId, amount: charge, until: expiresAt, open }),
  );
  const answer = opened.answer;
  if (answer.ok) return { ok: true, at: opened.placement };
  if (answer.code === "open_orders_limit") return openOrdersRefusal(answer);
  const balance = new Money(answer.balance);
  return failure("insufficient_funds", { balance: toAmountNumber(balance), required: toAmountNumber(charge) });
}

function outOfStock(short: { sku: string; value: string; requested: number }): Failure {
  return failure("out_of_stock", { sku: short.sku, quote: Number(short.value), quantity: short.requested });
}

/**
 * A create that stores no order gives back the codes and the hold it (or an earlier attempt) placed, codes
 * first, and its timer.
 */
async function releaseHeldCodes(host: CreateHost): Promise<void> {
  await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, host.orderId));
  const heldAt = host.store.pendingHold();
  if (heldAt != null) await releaseHold(host, heldAt);
  await cancelExpiry(host);
}
