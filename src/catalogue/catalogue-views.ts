import { toAmountNumber } from "../pricing/money";
import type { CodeCountRow } from "../inventory/code-store";
import type { Adjustment, CatalogueProduct, Deal } from "./catalogue-schemas";

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

/**
 * A SKU as GET /products shows it to a client: what can be delivered now (an inventory SKU's unsold,
 * unreserved codes per quote; any other supplier's are unlimited) and the client's deal on it, if any.
 */
export function clientProductView(
  product: CatalogueProduct,
  stock: readonly { value: string; available: number }[],
  deal: Deal | null,
) {
  const byQuote = stock
    .map((entry) => ({ quote: toAmountNumber(entry.value), count: entry.available }))
    .sort((a, b) => a.quote - b.quote);
  return {
    ...productFields(product),
    availability:
      product.supplier === "inventory"
        ? { type: "stock" as const, count: byQuote.reduce((sum, entry) => sum + entry.count, 0), byQuote }
        : { type: "unlimited" as const },
    deal: deal === null ? null : dealView(deal),
  };
}

/** A SKU as the operator sees it: as stored, with its code counts by status for an inventory SKU. */
export function adminProductView(product: CatalogueProduct, updatedAt: number, counts: readonly CodeCountRow[]) {
  const byStatus = { available: 0, reserved: 0, sold: 0 };
  for (const count of counts) byStatus[count.status] += count.n;
  return {
    ...productFields(product),
    supplier: product.supplier,
    supplierConfig: product.supplierConfig,
    active: product.active,
    updatedAt,
    codes: product.supplier === "inventory" ? byStatus : null,
  };
}

/** A client's deal on a SKU as the operator sees it. */
export function adminDealView(clientId: string, sku: string, deal: Deal, updatedAt: number) {
  return { clientId, sku, ...dealView(deal), updatedAt };
}
