/**
 * The operator's catalogue rules that zod cannot check alone, as pure functions: what PUT /admin/products
 * and PUT /admin/clients/:clientId/deals store, or why they refuse. No I/O, so tests call them directly.
 */
import type { z } from "zod";
import { fitsMinorUnits, Money } from "../pricing/money";
import type { AdjustmentMode } from "../pricing/deal";
import type { UpsertDealRequest, UpsertProductRequest } from "./catalogue-admin-schemas";

export interface Issue {
  path: string;
  message: string;
}

export type Checked<T> = ({ ok: true } & T) | { ok: false; issues: Issue[] };

/**
 * What gives a SKU's codes their worth: a code is stored with its value only, so it is worth that value in
 * the SKU's currency, of the SKU's type, delivered by its supplier. None of these may change while the SKU
 * has codes on sale or reserved (the database refuses it too: schema/migrations/0007_sku_terms_under_codes.sql).
 */
export const STOCK_TERMS = ["currency", "productType", "supplier"] as const;
export type StockTerm = (typeof STOCK_TERMS)[number];

/** The stock terms a replacement of the SKU changes, in STOCK_TERMS order. */
export function changedStockTerms(stored: Record<StockTerm, string>, next: Record<StockTerm, string>): StockTerm[] {
  return STOCK_TERMS.filter((term) => stored[term] !== next[term]);
}

/** The largest supplierConfig a SKU may carry, as JSON. */
export const SUPPLIER_CONFIG_MAX_BYTES = 4096;

/**
 * Amounts within the currency's minor units, distinct quotes, min ≤ max, a small supplierConfig. The quotes
 * come back as canonical decimal strings (`new Money(v).toFixed()`: 10.50 as "10.5"), which is how stock is
 * matched to quotes.
 */
export function canonicalQuotes(
  body: z.infer<typeof UpsertProductRequest>,
): Checked<{ quotes: string[] | null; min: string | null; max: string | null }> {
  const issues: Issue[] = [];
  const canonical = (value: string | number, path: string): string => {
    const amount = new Money(String(value));
    if (amount.lessThanOrEqualTo(0)) issues.push({ path, message: "must be positive" });
    else if (!fitsMinorUnits(amount, body.currency))
      issues.push({ path, message: `has more decimals than ${body.currency} allows` });
    return amount.toFixed();
  };
  let result: { quotes: string[] | null; min: string | null; max: string | null };
  if (body.productType === "fixed") {
    const quotes = body.quotes.map((quote, index) => canonical(quote, `quotes.${index}`));
    quotes.forEach((quote, index) => {
      if (quotes.indexOf(quote) !== index)
        issues.push({ path: `quotes.${index}`, message: `repeats the quote ${quote}` });
    });
    result = { quotes, min: null, max: null };
  } else {
    const min = canonical(body.minQuote, "minQuote");
    const max = canonical(body.maxQuote, "maxQuote");
    if (issues.length === 0 && new Money(min).greaterThan(max))
      issues.push({ path: "maxQuote", message: "must not be below minQuote" });
    result = { quotes: null, min, max };
  }
  if (JSON.stringify(body.supplierConfig ?? {}).length > SUPPLIER_CONFIG_MAX_BYTES) {
    issues.push({ path: "supplierConfig", message: `is larger than ${SUPPLIER_CONFIG_MAX_BYTES} bytes as JSON` });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, ...result };
}

export interface DealTerm {
  amount: string;
  mode: AdjustmentMode;
}

/**
 * A deal's fee and discount as stored: an absent one is zero; a percentage is at most 100 with at most 4
 * decimals; a fixed amount is in the product's currency with at most its minor units.
 */
export function canonicalDealTerms(
  body: z.infer<typeof UpsertDealRequest>,
  productCurrency: string,
): Checked<{ fee: DealTerm; discount: DealTerm }> {
  const issues: Issue[] = [];
  const term = (name: "fee" | "discount"): DealTerm => {
    const given = body[name] ?? { amount: "0", adjustmentMode: "fixed" as const };
    const amount = new Money(String(given.amount));
    if (given.adjustmentMode === "percentage" && amount.greaterThan(100))
      issues.push({ path: `${name}.amount`, message: "a percentage is at most 100" });
    if (given.adjustmentMode === "fixed" && !fitsMinorUnits(amount, productCurrency)) {
      issues.push({
        path: `${name}.amount`,
        message: `a fixed amount is in ${productCurrency} and has at most its minor units`,
      });
    }
    if (given.adjustmentMode === "percentage" && amount.decimalPlaces() > 4)
      issues.push({ path: `${name}.amount`, message: "a percentage has at most 4 decimals" });
    return { amount: amount.toFixed(), mode: given.adjustmentMode };
  };
  const fee = term("fee");
  const discount = term("discount");
  return issues.length > 0 ? { ok: false, issues } : { ok: true, fee, discount };
}
