/**
 * The operator's rules for wallet postings that zod cannot check alone, as pure functions: what the amount
 * of a top-up or an adjustment may be. No I/O, so tests call them directly.
 */
import { fitsMinorUnits, Money } from "../pricing/money";

/** The amount as the ledger stores it (a canonical decimal string), or why it is refused (a 400's reason). */
export type AmountCheck = { ok: true; amount: string } | { ok: false; reason: string };

function postingAmount(given: string | number, currency: string, sign: "positive" | "non-zero"): AmountCheck {
  const amount = new Money(String(given));
  const signOk = sign === "positive" ? amount.greaterThan(0) : !amount.isZero();
  if (!signOk || !fitsMinorUnits(amount, currency))
    return { ok: false, reason: `amount must be ${sign} with at most the minor units of ${currency}` };
  return { ok: true, amount: amount.toFixed() };
}

/** A top-up credits the wallet: a positive amount with at most the currency's minor units. */
export function topUpAmount(given: string | number, currency: string): AmountCheck {
  return postingAmount(given, currency, "positive");
}

/** An adjustment credits (positive) or debits (negative): non-zero, with at most the currency's minor units. */
export function adjustmentAmount(given: string | number, currency: string): AmountCheck {
  return postingAmount(given, currency, "non-zero");
}

/**
 * A low-balance threshold (PUT /wallets/{currency}/alert): a decimal string, zero or more, with at most the
 * currency's minor units; the canonical decimal, or why it is refused.
 */
export function thresholdAmount(given: string, currency: string): AmountCheck {
  if (!/^\d{1,15}(\.\d{1,6})?$/.test(given))
    return { ok: false, reason: 'threshold must be a decimal string, zero or more, such as "100.00"' };
  const amount = new Money(given);
  if (!fitsMinorUnits(amount, currency))
    return { ok: false, reason: `threshold must have at most the minor units of ${currency}` };
  return { ok: true, amount: amount.toFixed() };
}
