/**
 * Examples of the operator inventory routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const inventoryExamples = {
  adminUploadCodes: {
    request: {
      codes: [
        {
          value: "25",
          pin: "EU25-0001-AAAA",
          link: "https://redeem.example/EU25-0001-AAAA",
        },
        {
          value: "25",
          pin: "EU25-0002-BBBB",
          link: "https://redeem.example/EU25-0002-BBBB",
        },
      ],
    },
    data: {
      sku: "EU-VOUCHER",
      added: 2,
      stock: [
        {
          value: 25,
          available: 2,
          reserved: 0,
          sold: 0,
        },
      ],
    },
    csv: "value,pin,link\n25,EU25-0001-AAAA,https://redeem.example/EU25-0001-AAAA\n25,EU25-0002-BBBB,https://redeem.example/EU25-0002-BBBB\n",
  },
  adminGetCodeStock: {
    data: {
      sku: "EU-VOUCHER",
      byValue: [
        {
          value: 25,
          available: 2,
          reserved: 0,
          sold: 0,
        },
      ],
    },
  },
} satisfies Record<string, RouteExample>;
