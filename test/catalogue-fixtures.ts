import type { CatalogueProduct } from "../src/catalogue/catalogue-schemas";

/** A sandbox range SKU in USD (5..500) for pure tests; override what the test is about. */
export function catalogueProduct(overrides: Partial<CatalogueProduct> = {}): CatalogueProduct {
  return {
    sku: "X",
    name: "X",
    productType: "range",
    currency: "USD",
    country: "US",
    region: "NA",
    quotes: null,
    minQuote: "5",
    maxQuote: "500",
    supplier: "sandbox",
    supplierConfig: {},
    active: true,
    ...overrides,
  };
}
