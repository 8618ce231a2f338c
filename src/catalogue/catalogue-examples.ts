/**
 * Examples of the catalogue routes (client and operator) and the deal routes in GET /openapi.json, derived
 * from fixtures through the views the routes answer with: the client's list is the demo seed's catalogue
 * and stock (clientProductView), the operator's SKU and deal examples an upsert of EU-VOUCHER, an upload of
 * two codes and a deal (adminProductView, adminDealView). test/openapi/examples.test.ts checks that each
 * has exactly the shape of a real answer, and the derived ones of a fixture the test sends its values too
 * (times aside).
 */
import type { RouteExample } from "../http/route";
import type { CodeCountRow } from "../inventory/code-store";
import { adminDealView, adminProductView, clientProductView } from "./catalogue-views";
import type { CatalogueProduct, Deal } from "./catalogue-schemas";

/** The operator's fixture: a SKU as upserted, two codes uploaded to it, then disabled and enabled again. */
const upsertProduct = {
  productType: "fixed",
  name: "EU voucher",
  currency: "EUR",
  country: "DE",
  region: "Europe",
  quotes: ["10", "25"],
  supplier: "inventory",
} as const;
const euVoucher: CatalogueProduct = {
  sku: "EU-VOUCHER",
  ...upsertProduct,
  quotes: [...upsertProduct.quotes],
  minQuote: null,
  maxQuote: null,
  supplierConfig: {},
  active: true,
};
const UPSERTED_AT = 1795345078836;
const DISABLED_AT = 1795345079256;
const ENABLED_AT = 1795345079302;
const uploaded: CodeCountRow[] = [{ sku: euVoucher.sku, status: "available", n: 2 }];

/** A deal of the client acme on the SKU, as sent and as stored (amounts canonical). */
const upsertDeal = {
  dealState: "active",
  fee: { amount: "2", adjustmentMode: "percentage" },
  discount: { amount: "0.5", adjustmentMode: "fixed" },
} as const;
const deal: Deal = { ...upsertDeal, fee: { ...upsertDeal.fee }, discount: { ...upsertDeal.discount } };
const dealOfAcme = adminDealView("acme", euVoucher.sku, deal, 1795345079490);

/** The demo seed's catalogue (schema/seed/demo.sql), by SKU as GET /products lists it; no deals. */
const SEEDED_AT = 1767225600000;
const demoProduct = (
  fields: Omit<CatalogueProduct, "supplierConfig" | "active" | "quotes" | "minQuote" | "maxQuote">,
  offer: { quotes: string[] } | { min: string; max: string },
): CatalogueProduct => ({
  ...fields,
  quotes: "quotes" in offer ? offer.quotes : null,
  minQuote: "min" in offer ? offer.min : null,
  maxQuote: "max" in offer ? offer.max : null,
  supplierConfig: {},
  active: true,
});
const US = { currency: "USD", country: "US", region: "North America" } as const;
export const DEMO_PRODUCTS: CatalogueProduct[] = [
  demoProduct(
    {
      sku: "DEMO-EU-FIXED",
      name: "Demo EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      supplier: "inventory",
    },
    { quotes: ["10", "25", "50"] },
  ),
  demoProduct(
    {
      sku: "DEMO-GB-FIXED",
      name: "Demo UK voucher",
      productType: "fixed",
      currency: "GBP",
      country: "GB",
      region: "Europe",
      supplier: "inventory",
    },
    { quotes: ["20"] },
  ),
  demoProduct(
    {
      sku: "DEMO-JP-RANGE",
      name: "Demo Japan top-up",
      productType: "range",
      currency: "JPY",
      country: "JP",
      region: "Asia",
      supplier: "sandbox",
    },
    { min: "1000", max: "50000" },
  ),
  demoProduct(
    { sku: "DEMO-US-FAILING", name: "Demo US failing card", productType: "range", ...US, supplier: "sandbox" },
    { min: "1", max: "100" },
  ),
  demoProduct(
    { sku: "DEMO-US-RANGE", name: "Demo US gift card", productType: "range", ...US, supplier: "sandbox" },
    { min: "5", max: "500" },
  ),
  demoProduct(
    { sku: "DEMO-US-SOLDOUT", name: "Demo US sold-out card", productType: "fixed", ...US, supplier: "inventory" },
    { quotes: ["10"] },
  ),
];
const demoEuFixed = DEMO_PRODUCTS[0]!;
/**
 * The demo's codes on sale once the orders' example order (src/orders/order-examples.ts) took two of
 * 25 EUR, which are sold once it is fulfilled; the sold-out SKU has none.
 */
const DEMO_STOCK: Record<string, { value: string; available: number }[]> = {
  "DEMO-EU-FIXED": [
    { value: "10", available: 10 },
    { value: "25", available: 8 },
    { value: "50", available: 10 },
  ],
  "DEMO-GB-FIXED": [{ value: "20", available: 10 }],
};
const demoEuFixedCounts: CodeCountRow[] = [
  { sku: demoEuFixed.sku, status: "available", n: 28 },
  { sku: demoEuFixed.sku, status: "sold", n: 2 },
];

export const catalogueExamples = {
  listProducts: {
    data: {
      products: DEMO_PRODUCTS.map((product) => clientProductView(product, DEMO_STOCK[product.sku] ?? [], null)),
    },
  },
  adminListProducts: {
    data: { products: [adminProductView(demoEuFixed, SEEDED_AT, demoEuFixedCounts)], next: demoEuFixed.sku },
  },
  adminGetProduct: { data: adminProductView(euVoucher, ENABLED_AT, uploaded) },
  adminUpsertProduct: { request: upsertProduct, data: adminProductView(euVoucher, UPSERTED_AT, []) },
  adminDisableProduct: { data: adminProductView({ ...euVoucher, active: false }, DISABLED_AT, uploaded) },
  adminEnableProduct: { data: adminProductView(euVoucher, ENABLED_AT, uploaded) },
  adminListDeals: { data: { deals: [dealOfAcme] } },
  adminUpsertDeal: { request: upsertDeal, data: dealOfAcme },
  adminDeleteDeal: { data: dealOfAcme },
} satisfies Record<string, RouteExample>;
