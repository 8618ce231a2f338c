import { toAmountNumber } from "../pricing/money";
import type { Adjustment, CatalogueProduct, Deal } from "./schemas";

export function adjustmentView(adjustment: Adjustment) {
  return { amount: toAmountNumber(adjustment.amount), adjustmentMode: adjustment.adjustmentMode };
}

/** A deal as JSON. Used by the catalogue, the operator API and the order's customerDeal. */
export function dealView(deal: Deal) {
  return { dealState: deal.dealState, fee: adjustmentView(deal.fee), discount: adjustmentView(deal.discount) };
}

/** What the client and the operator views of a SKU share; quotes and bounds as JSON numbers. */
export function productFields(product: CatalogueProduct) {
  return {
    sku: product.sku,
    name: product.name,
    productType: product.productType,
    currency: product.currency,
    country: product.country,
    region: product.region,
    quotes: product.quotes === null ? null : product.quotes.map((quote) => toAmountNumber(quote)),
    minQuote: product.minQuote === null ? null : toAmountNumber(product.minQuote),
    maxQuote: product.maxQuote === null ? null : toAmountNumber(product.maxQuote),
  };
}

