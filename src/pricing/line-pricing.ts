import { chargeInWallet, type ExchangeRate } from "./exchange";
import type { Adjustment, Deal } from "./deal";
import { Money, fitsMinorUnits, roundToMinor, type Money as MoneyT } from "./money";

/** What a quote is checked against: the part of a catalogue SKU that says which quotes it sells. */
export interface QuotedProduct {
  productType: "fixed" | "range";
  currency: string;
  quotes: string[] | null;
  minQuote: string | null;
  maxQuote: string | null;
}

export type QuoteCheck = "ok" | "quote_mismatch" | "quote_out_of_range";

/**
 * Whether a requested line fits its SKU. A productType other than the SKU's, a quote with more decimals
 * than the product currency has, or a fixed quote that is not listed is a mismatch; a range quote outside
 * min..max (inclusive) is out of range.
 */
export function checkQuote(product: QuotedProduct, productType: string, quote: MoneyT): QuoteCheck {
  if (productType !== product.productType) return "quote_mismatch";
  if (!fitsMinorUnits(quote, product.currency)) return "quote_mismatch";
  if (product.productType === "fixed") {
    return (product.quotes ?? []).some((allowed) => quote.equals(allowed)) ? "ok" : "quote_mismatch";
  }
  if (product.minQuote === null || product.maxQuote === null) return "quote_mismatch";
  return quote.lessThan(product.minQuote) || quote.greaterThan(product.maxQuote) ? "quote_out_of_range" : "ok";
}

/**
 * A fee or discount on a line, in the product currency: a percentage of the line's face value, or a fixed
 * amount per unit. Rounded half up to the product currency's minor unit, since it is shown on the invoice.
 */
export function adjustmentAmount(
  adjustment: Adjustment,
  faceValue: MoneyT,
  quantity: number,
  currency: string,
): MoneyT {
  const amount = new Money(adjustment.amount);
  const raw =
    adjustment.adjustmentMode === "percentage" ? faceValue.times(amount).dividedBy(100) : amount.times(quantity);
  return roundToMinor(raw, currency);
}

export interface LinePrice {
  /** quote × quantity, product currency. */
  faceValue: MoneyT;
  fee: MoneyT;
  discount: MoneyT;
  /** faceValue + fee − discount, never below zero, product currency. */
  lineTotal: MoneyT;
  /** What the wallet pays for the line: lineTotal / rate rounded up to the wallet's minor unit. */
  charge: MoneyT;
}

/** What a line is priced from: its quote and quantity in the product's currency, the deal, the wallet's rate. */
export interface LineTerms {
  quote: MoneyT;
  quantity: number;
  productCurrency: string;
  deal: Deal;
  walletCurrency: string;
  rate: ExchangeRate | null;
}

export function priceLine({ quote, quantity, productCurrency, deal, walletCurrency, rate }: LineTerms): LinePrice {
  const faceValue = quote.times(quantity);
  const fee = adjustmentAmount(deal.fee, faceValue, quantity, productCurrency);
  const beforeDiscount = faceValue.plus(fee);
  const discount = Money.min(adjustmentAmount(deal.discount, faceValue, quantity, productCurrency), beforeDiscount);
  const lineTotal = beforeDiscount.minus(discount);
  return { faceValue, fee, discount, lineTotal, charge: chargeInWallet(lineTotal, walletCurrency, rate) };
}
