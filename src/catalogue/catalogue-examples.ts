/**
 * Examples of the catalogue routes (client and operator) and the deal routes in GET /openapi.json. The
 * product lists are real answers of a test run against the demo seed; the operator's SKU and deal examples
 * are derived from one fixture (an upsert of EU-VOUCHER, an upload of two codes, a deal) through the views
 * the routes answer with. test/openapi/examples.test.ts checks that each has exactly the shape of a real
 * answer, and the derived ones its values too (times aside).
 */
import type { RouteExample } from "../http/route";
import type { CodeCountRow } from "../inventory/code-store";
import { adminDealView, adminProductView } from "./catalogue-views";
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

export const catalogueExamples = {
  listProducts: {
    data: {
      products: [
        {
          sku: "DEMO-EU-FIXED",
          name: "Demo EU voucher",
          productType: "fixed",
          currency: "EUR",
          country: "DE",
          region: "Europe",
          quotes: [10, 25, 50],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 28,
            byQuote: [
              {
                quote: 10,
                count: 10,
              },
              {
                quote: 25,
                count: 8,
              },
              {
                quote: 50,
                count: 10,
              },
            ],
          },
          deal: null,
        },
        {
          sku: "DEMO-GB-FIXED",
          name: "Demo UK voucher",
          productType: "fixed",
          currency: "GBP",
          country: "GB",
          region: "Europe",
          quotes: [20],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 10,
            byQuote: [
              {
                quote: 20,
                count: 10,
              },
            ],
          },
          deal: null,
        },
        {
          sku: "DEMO-JP-RANGE",
          name: "Demo Japan top-up",
          productType: "range",
          currency: "JPY",
          country: "JP",
          region: "Asia",
          quotes: null,
          minQuote: 1000,
          maxQuote: 50000,
          availability: {
            type: "unlimited",
          },
          deal: null,
        },
        {
          sku: "DEMO-US-FAILING",
          name: "Demo US failing card",
          productType: "range",
          currency: "USD",
          country: "US",
          region: "North America",
          quotes: null,
          minQuote: 1,
          maxQuote: 100,
          availability: {
            type: "unlimited",
          },
          deal: null,
        },
        {
          sku: "DEMO-US-RANGE",
          name: "Demo US gift card",
          productType: "range",
          currency: "USD",
          country: "US",
          region: "North America",
          quotes: null,
          minQuote: 5,
          maxQuote: 500,
          availability: {
            type: "unlimited",
          },
          deal: null,
        },
        {
          sku: "DEMO-US-SOLDOUT",
          name: "Demo US sold-out card",
          productType: "fixed",
          currency: "USD",
          country: "US",
          region: "North America",
          quotes: [10],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 0,
            byQuote: [],
          },
          deal: null,
        },
      ],
    },
  },
  adminListProducts: {
    data: {
      products: [
        {
          sku: "DEMO-EU-FIXED",
          name: "Demo EU voucher",
          productType: "fixed",
          currency: "EUR",
          country: "DE",
          region: "Europe",
          quotes: [10, 25, 50],
          minQuote: null,
          maxQuote: null,
          supplier: "inventory",
          supplierConfig: {},
          active: true,
          updatedAt: 1767225600000,
          codes: {
            available: 28,
            reserved: 0,
            sold: 2,
          },
        },
      ],
      next: "DEMO-EU-FIXED",
    },
  },
  adminGetProduct: { data: adminProductView(euVoucher, ENABLED_AT, uploaded) },
  adminUpsertProduct: { request: upsertProduct, data: adminProductView(euVoucher, UPSERTED_AT, []) },
  adminDisableProduct: { data: adminProductView({ ...euVoucher, active: false }, DISABLED_AT, uploaded) },
  adminEnableProduct: { data: adminProductView(euVoucher, ENABLED_AT, uploaded) },
  adminListDeals: { data: { deals: [dealOfAcme] } },
  adminUpsertDeal: { request: upsertDeal, data: dealOfAcme },
  adminDeleteDeal: { data: dealOfAcme },
} satisfies Record<string, RouteExample>;
