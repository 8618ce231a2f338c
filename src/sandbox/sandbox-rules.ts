/**
 * The sandbox helpers' pure rules: what a self-serve top-up may be, and which idempotency key it carries;
 * and what the helpers answer (their views, which their examples are derived through). No I/O, so tests
 * call them directly.
 */
import { Money, toAmountNumber } from "../pricing/money";
import type { OrderEvent, OrderEventType } from "../webhooks/events";
import { topUpAmount, type AmountCheck } from "../wallets/wallet-rules";

/**
 * The most one sandbox top-up credits, in units of the wallet's currency (whatever the currency: it is
 * play money, and the cap only keeps a typo from making a balance no test needs).
 */
export const SANDBOX_TOP_UP_MAX = "1000000";

/** A sandbox top-up's amount: as an operator top-up's (positive, the currency's minor units), at most SANDBOX_TOP_UP_MAX. */
export function sandboxTopUpAmount(given: string | number, currency: string): AmountCheck {
  const checked = topUpAmount(given, currency);
  if (!checked.ok) return checked;
  if (new Money(checked.amount).greaterThan(SANDBOX_TOP_UP_MAX))
    return { ok: false, reason: `amount must be at most ${SANDBOX_TOP_UP_MAX} per sandbox top-up` };
  return checked;
}

/** The idempotency key of a top-up: the Idempotency-Key header or the body's idempotencyKey; both must agree. */
export function topUpIdempotencyKey(
  header: string | null,
  body: string | undefined,
): { ok: true; key: string } | { ok: false; reason: string } {
  if (header !== null && !/^[\x21-\x7e]{1,128}$/.test(header))
    return { ok: false, reason: "Idempotency-Key must be 1 to 128 visible ASCII characters" };
  if (header !== null && body !== undefined && header !== body)
    return { ok: false, reason: "Idempotency-Key and idempotencyKey differ" };
  const key = header ?? body;
  if (key === undefined)
    return {
      ok: false,
      reason:
        "an Idempotency-Key header (or idempotencyKey in the body) is required: a retry with the same key adds nothing",
    };
  return { ok: true, key };
}

/** What a top-up answers: the amount the wallet's ledger entry credited and the balance after it. */
export function topUpView(
  currency: string,
  credited: { amount: string; balance: Money; key: string; replayed: boolean },
) {
  return {
    currency,
    amount: toAmountNumber(credited.amount),
    balance: toAmountNumber(credited.balance),
    idempotencyKey: credited.key,
    replayed: credited.replayed,
  };
}

/** An example event of `type`, as an order of the sandbox would send it (its order does not exist). */
export function exampleEvent(
  type: OrderEventType,
  { id, orderId, createdAt }: { id: string; orderId: string; createdAt: number },
): OrderEvent {
  const state = type.slice("order.".length) as OrderEvent["data"]["state"];
  return { id, type, createdAt, data: { orderId, state, reference: "sandbox-test-webhook" }, livemode: false };
}

/** What a test webhook answers: the event sent, and how its one delivery went. */
export function testWebhookView(
  event: OrderEvent,
  delivery: { delivered: boolean; status: number | null; error: string | null },
) {
  return { event, delivered: delivery.delivered, status: delivery.status, error: delivery.error };
}
