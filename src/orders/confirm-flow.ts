/**
 * The confirm flow: the order's charge is posted to its wallet and the order confirmed; a confirm cut off
 * between its intent and the wallet's answer is settled by the `settle` timer, which asks the wallet.
 */
import { dayOf } from "../books/shard-rules";
import { failure } from "../kernel/failures";
import { toAmountNumber } from "../pricing/money";
import { chargeKey, chargeReason } from "../wallets/ledger-keys";
import { reject, type ExpiryHost } from "./expiry-flow";
import { placedAt, type OrderHost, type Result } from "./order-host";
import type { OrderRecord } from "./order-record";
import { tryFlushOutbox } from "./outbox-flow";
import { ORDER_SEAMS } from "./seams";
import { confirmable, transition } from "./transitions";

/**
 * How soon a confirm cut off between its intent and the wallet's answer is settled by the alarm. The
 * processing timer of a completed confirmation takes the same due time: processing starts inside the
 * confirming invocation right after it answers, so that timer only resumes it if the object dies first,
 * and the alarm armed for settling already stands at that time (no second alarm write per confirm).
 */
export const SETTLE_AFTER_MS = 5_000;

export type ConfirmHost = ExpiryHost & Pick<OrderHost, "processSoon" | "atWallet">;

/**
 * Run exclusively. Records the intent to charge before calling the wallet, so that a confirm cut off after
 * the charge landed is settled within seconds by the alarm instead of leaving the order unpaid-looking
 * with its money taken. The charge is keyed by order: a retried confirm finds it instead of charging twice.
 */
export async function confirm(
  host: ConfirmHost,
  clientId: string,
): Promise<Result<{ id: string; state: "confirmed" }>> {
  const order = host.store.load();
  if (order === null || order.clientId !== clientId) return failure("order_not_found");
  const now = host.now();
  const problem = confirmable(order, now);
  if (problem !== null) return problem;
  const intent: OrderRecord = { ...order, chargeIntentAt: now };
  await host.save(intent, order.state, { settle: now + SETTLE_AFTER_MS });
  // A charge that meets the wallet moved goes on to its successor; the order then records where it landed.
  const charged = await host.atWallet(order, ORDER_SEAMS.walletCharge, (wallet) =>
    wallet.post({
      key: chargeKey(order.id),
      kind: "order_charge",
      amount: order.charge,
      orderId: order.id,
      reason: chargeReason(order.reference),
      // The books' day of the order: the reconciliation pairs its ledger and its books by it.
      orderDay: dayOf(order.createdAt),
    }),
  );
  const posted = charged.answer;
  if (!posted.ok) {
    await host.save({ ...order, chargeIntentAt: null }, order.state, { settle: null });
    if (posted.code === "insufficient_funds") {
      return failure("insufficient_funds", {
        balance: toAmountNumber(posted.balance),
        required: toAmountNumber(order.charge),
      });
    }
    // The order expired and was voided while this confirm was on its way: it can never be charged.
    if (posted.code === "order_voided") return failure("order_expired");
    return failure("server_error");
  }
  await completeConfirmation(host, placedAt(intent, charged.placement));
  return { ok: true, data: { id: order.id, state: "confirmed" } };
}

/** The charge is in the ledger: the order is confirmed, and processing starts (its timer the safety net). */
async function completeConfirmation(host: ConfirmHost, order: OrderRecord): Promise<void> {
  const now = host.now();
  const confirmed: OrderRecord = {
    ...transition(order, "confirmed", now),
    invoiceStatus: "paid",
    chargeIntentAt: null,
  };
  const safetyNet = (order.chargeIntentAt ?? now) + SETTLE_AFTER_MS;
  if (await host.save(confirmed, order.state, { expire: null, settle: null, process: safetyNet }))
    await tryFlushOutbox(host);
  host.processSoon(order);
}

/**
 * The `settle` timer, run exclusively. A confirm was cut off between its intent and storing the wallet's
 * answer: the wallet decides. Charged: the confirmation completes. Not charged: the order is plainly
 * `created` again, to be confirmed anew. Voided is final, even where the charge landed first (the void
 * credited it back): an expiry that died before storing `rejected`, seen from a clock that reads before
 * expiresAt. The rejection completes.
 *
 * Once expiresAt has passed, settling confirms nothing: a confirm retried now is answered 419, so a
 * confirmation here could contradict what the client was told. The order is left to its expiry timer
 * (stored for as long as the order is `created`), whose wallet void credits back a charge that landed
 * and refuses it for good.
 */
export async function settle(host: ConfirmHost): Promise<void> {
  const order = host.store.load();
  if (order === null || order.state !== "created" || !order.chargeIntentAt) return;
  if (host.now() >= order.expiresAt) return;
  // Asked along the wallet's moves: a charge that met the wallet moved landed at its successor.
  const looked = await host.atWallet(order, ORDER_SEAMS.chargeLookup, (wallet) => wallet.chargeStatus(order.id));
  const charge = looked.answer;
  if (charge.status === "voided") await reject(host, order);
  else if (charge.status === "charged") await completeConfirmation(host, placedAt(order, looked.placement));
  else await host.save({ ...order, chargeIntentAt: null }, order.state, { settle: null });
}
