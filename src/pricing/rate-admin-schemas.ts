/**
 * Requests and responses of the operator API for exchange rates. Requests are strict objects: an unknown field is
 * a 400, so that a typo ("quote" for "quotes") is refused instead of silently ignored.
 */
import * as z from "zod";
import { Currency, CurrencyCode, PositiveDecimal } from "./amount-schemas";

export const RateParams = z.object({
  base: Currency.meta({ examples: ["USD"] }),
  target: Currency.meta({ examples: ["EUR"] }),
});

export const SetRateRequest = z.strictObject({
  rate: PositiveDecimal.describe("1 unit of base (the wallet's currency) buys `rate` units of target (the product's)."),
});

export const AdminRateView = z.object({
  baseCurrency: CurrencyCode,
  targetCurrency: CurrencyCode,
  rate: z.number(),
  updatedAt: z.number().int(),
});

export const RateList = z.object({ rates: z.array(AdminRateView) });
