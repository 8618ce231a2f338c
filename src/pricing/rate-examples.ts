/**
 * Examples of the operator exchange-rate routes in GET /openapi.json: real answers of a test run
 * (test/openapi/examples.test.ts checks that each still has exactly the shape of a real answer).
 */
import type { RouteExample } from "../http/route";

export const rateExamples = {
  adminSetRate: {
    request: {
      rate: "0.92",
    },
    data: {
      baseCurrency: "USD",
      targetCurrency: "EUR",
      rate: 0.92,
      updatedAt: 1795345079465,
    },
  },
  adminListRates: {
    data: {
      rates: [
        {
          baseCurrency: "EUR",
          targetCurrency: "USD",
          rate: 1.08,
          updatedAt: 1767225600000,
        },
        {
          baseCurrency: "USD",
          targetCurrency: "EUR",
          rate: 0.92,
          updatedAt: 1795345079465,
        },
        {
          baseCurrency: "USD",
          targetCurrency: "GBP",
          rate: 0.79,
          updatedAt: 1767225600000,
        },
        {
          baseCurrency: "USD",
          targetCurrency: "JPY",
          rate: 150,
          updatedAt: 1767225600000,
        },
      ],
    },
  },
} satisfies Record<string, RouteExample>;
