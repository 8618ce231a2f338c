/**
 * Examples of the catalogue routes (client and operator) and the deal routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

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
          quotes: [
            10,
            25,
            50
          ],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 28,
            byQuote: [
              {
                quote: 10,
                count: 10
              },
              {
                quote: 25,
                count: 8
              },
              {
                quote: 50,
                count: 10
              }
            ]
          },
          deal: null
        },
        {
          sku: "DEMO-GB-FIXED",
          name: "Demo UK voucher",
          productType: "fixed",
          currency: "GBP",
          country: "GB",
          region: "Europe",
          quotes: [
            20
          ],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 10,
            byQuote: [
              {
                quote: 20,
                count: 10
              }
            ]
          },
          deal: null
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
            type: "unlimited"
          },
          deal: null
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
            type: "unlimited"
          },
          deal: null
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
            type: "unlimited"
          },
          deal: null
        },
        {
          sku: "DEMO-US-SOLDOUT",
          name: "Demo US sold-out card",
          productType: "fixed",
          currency: "USD",
          country: "US",
          region: "North America",
          quotes: [
            10
          ],
          minQuote: null,
          maxQuote: null,
          availability: {
            type: "stock",
            count: 0,
            byQuote: []
          },
          deal: null
        }
      ]
    }
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
          quotes: [
            10,
            25,
            50
          ],
          minQuote: null,
          maxQuote: null,
          supplier: "inventory",
          supplierConfig: {},
          active: true,
          updatedAt: 1767225600000,
          codes: {
            available: 28,
            reserved: 0,
            sold: 2
          }
        }
      ],
      next: "DEMO-EU-FIXED"
    }
  },
  adminGetProduct: {
    data: {
      sku: "EU-VOUCHER",
      name: "EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: [
        10,
        25
      ],
      minQuote: null,
      maxQuote: null,
      supplier: "inventory",
      supplierConfig: {},
      active: true,
      updatedAt: 1795345079302,
      codes: {
        available: 2,
        reserved: 0,
        sold: 0
      }
    }
  },
  adminUpsertProduct: {
    request: {
      productType: "fixed",
      name: "EU voucher",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: [
        "10",
        "25"
      ],
      supplier: "inventory"
    },
    data: {
      sku: "EU-VOUCHER",
      name: "EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: [
        10,
        25
      ],
      minQuote: null,
      maxQuote: null,
      supplier: "inventory",
      supplierConfig: {},
      active: true,
      updatedAt: 1795345078836,
      codes: {
        available: 0,
        reserved: 0,
        sold: 0
      }
    }
  },
  adminDisableProduct: {
    data: {
      sku: "EU-VOUCHER",
      name: "EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: [
        10,
        25
      ],
      minQuote: null,
      maxQuote: null,
      supplier: "inventory",
      supplierConfig: {},
      active: false,
      updatedAt: 1795345079256,
      codes: {
        available: 2,
        reserved: 0,
        sold: 0
      }
    }
  },
  adminEnableProduct: {
    data: {
      sku: "EU-VOUCHER",
      name: "EU voucher",
      productType: "fixed",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: [
        10,
        25
      ],
      minQuote: null,
      maxQuote: null,
      supplier: "inventory",
      supplierConfig: {},
      active: true,
      updatedAt: 1795345079302,
      codes: {
        available: 2,
        reserved: 0,
        sold: 0
      }
    }
  },
  adminListDeals: {
    data: {
      deals: [
        {
          clientId: "acme",
          sku: "EU-VOUCHER",
          dealState: "active",
          fee: {
            amount: 2,
            adjustmentMode: "percentage"
          },
          discount: {
            amount: 0.5,
            adjustmentMode: "fixed"
          },
          updatedAt: 1795345079490
        }
      ]
    }
  },
  adminUpsertDeal: {
    request: {
      dealState: "active",
      fee: {
        amount: "2",
        adjustmentMode: "percentage"
      },
      discount: {
        amount: "0.5",
        adjustmentMode: "fixed"
      }
    },
    data: {
      clientId: "acme",
      sku: "EU-VOUCHER",
      dealState: "active",
      fee: {
        amount: 2,
        adjustmentMode: "percentage"
      },
      discount: {
        amount: 0.5,
        adjustmentMode: "fixed"
      },
      updatedAt: 1795345079490
    }
  },
  adminDeleteDeal: {
    data: {
      clientId: "acme",
      sku: "EU-VOUCHER",
      dealState: "active",
      fee: {
        amount: 2,
        adjustmentMode: "percentage"
      },
      discount: {
        amount: 0.5,
        adjustmentMode: "fixed"
      },
      updatedAt: 1795345079490
    }
  },
} satisfies Record<string, RouteExample>;
