/**
 * The order's hold, which create places and create and expiry both give back: the charge held at the
 * wallet (with the codes it reserves counted there) and the codes reserved in D1, under the expiry timer
 * that gives both back if no order is stored. Codes go back before the hold, so that the hold never lapses
 * before its codes.
 */
import { releaseCodes, reserveCodes, shortLine, type Reservation } from "../inventory/reservation-store";
import { failure, type Failure } from "../kernel/failures";
import { Money, toAmountNumber } from "../pricing/money";
import type { OrderHost, WalletOf } from "./order-host";
import type { HoldResult, OpenBound, OpenOrdersRefused } from "../wallets/postings";
import type { Placement } from "../wallets/wallet-object";
import { ORDER_SEAMS } from "./seams";

export type HoldHost = Pick<OrderHost, "orderId" | "store" | "io" | "armAlarm" | "atWallet" | "db">;

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
export async function holdAndReserve(
  host: HoldHost,
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
    if (earlier) await releaseUnstored(host);
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
export async function openAtWallet(
  host: HoldHost,
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
export async function releaseUnstored(host: HoldHost): Promise<void> {
  await releaseHeld(host);
  await cancelExpiry(host);
}

/**
 * Gives back what a create that stored no order holds: its codes, then its hold (the expiry timer's run
 * for such a create, and a create's own release).
 */
export async function releaseHeld(host: Pick<HoldHost, "orderId" | "store" | "io" | "atWallet" | "db">): Promise<void> {
  await host.io(ORDER_SEAMS.releaseCodes, () => releaseCodes(host.db, host.orderId));
  const heldAt = host.store.pendingHold();
  if (heldAt != null) await releaseHold(host, heldAt);
}

/** The expiry timer goes (a create that stores no order, an order expired now). */
export async function cancelExpiry(host: Pick<OrderHost, "store" | "armAlarm">): Promise<void> {
  host.store.clearTimer("expire");
  await host.armAlarm();
}

/** Lets go of the order's hold at the wallet it was placed in (or wherever that wallet moved). */
export async function releaseHold(
  host: Pick<OrderHost, "orderId" | "store" | "atWallet">,
  heldAt: WalletOf,
): Promise<void> {
  await host.atWallet(heldAt, ORDER_SEAMS.walletRelease, (wallet) => wallet.releaseHold(host.orderId));
  host.store.notePendingHold(null);
}
