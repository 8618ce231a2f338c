import Decimal from "decimal.js";

/**
 * One Decimal constructor for all money in the service: 40 significant digits so that a division by a
 * rate never loses a digit that a rounding step later needs, and no exponent notation in strings.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -30, toExpPos: 40 });
export type Money = Decimal;

/** ISO 4217 minor units of the currencies the service accepts. A currency not listed is not accepted. */
export const MINOR_UNITS: Readonly<Record<string, number>> = {
  AED: 2,
  ARS: 2,
  AUD: 2,
  BHD: 3,
  BRL: 2,
  CAD: 2,
  CHF: 2,
  CLP: 0,
  CNY: 2,
  CZK: 2,
  DKK: 2,
  EGP: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  IQD: 3,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  LYD: 3,
  MXN: 2,
  MYR: 2,
  NOK: 2,
  NZD: 2,
  OMR: 3,
  PHP: 2,
  PLN: 2,
  QAR: 2,
  RON: 2,
  SAR: 2,
  SEK: 2,
  SGD: 2,
  THB: 2,
  TND: 3,
  TRY: 2,
  TWD: 2,
  UAH: 2,
  USD: 2,
  VND: 0,
  ZAR: 2,
};

export function isKnownCurrency(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(MINOR_UNITS, code);
}

export function minorUnits(currency: string): number {
  if (!isKnownCurrency(currency)) throw new Error(`unknown currency ${currency}`);
  return MINOR_UNITS[currency]!;
}

/** Rounds up (away from zero) to the currency's minor unit: what a wallet is charged never falls short. */
export function roundUpToMinor(amount: Money, currency: string): Money {
  return amount.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_UP);
}

/** Rounds half up to the currency's minor unit: used for fees and discounts shown on the invoice. */
export function roundToMinor(amount: Money, currency: string): Money {
  return amount.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** True when the amount has no more decimals than the currency allows. */
export function fitsMinorUnits(amount: Money, currency: string): boolean {
  return amount.decimalPlaces() <= minorUnits(currency);
}

/**
 * JSON number for an amount that has already been rounded to its minor unit. Amounts are kept as
 * decimal strings everywhere they are stored; only the HTTP edge turns them into numbers, because the API
 * answers amounts as JSON numbers (docs/api.md, Conventions).
 */
export function toAmountNumber(amount: Decimal.Value): number {
  return Number(new Money(amount).toFixed());
}

export function sum(amounts: Iterable<Money>): Money {
  let total = new Money(0);
  for (const amount of amounts) total = total.plus(amount);
  return total;
}
