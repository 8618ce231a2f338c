import * as z from "zod";
import { CurrencyCode } from "../pricing/amount-schemas";
import { AdjustmentMode, DealState, ProductType } from "./catalogue-schemas";

export const AdjustmentView = z.object({ amount: z.number(), adjustmentMode: AdjustmentMode });

/** A client's deal on a SKU as the client sees it. */
export const DealView = z.object({
  dealState: DealState,
  fee: AdjustmentView,
  discount: AdjustmentView,
});

export const QuoteStock = z.object({ quote: z.number(), count: z.number().int() });

/** Whether a SKU can be delivered: inventory SKUs count their unsold, unreserved codes; others are unlimited. */
export const Availability = z.discriminatedUnion("type", [
  z.object({ type: z.literal("unlimited") }),
  z.object({
    type: z.literal("stock"),
    count: z.number().int().describe("Codes available now, all quotes together."),
    byQuote: z.array(QuoteStock).describe("Codes available now per quote (face value)."),
  }),
]);

/** What the client and the operator views of a SKU share. A fixed SKU lists `quotes`; a range SKU gives `minQuote`..`maxQuote` (inclusive). */
export const ProductFields = z.object({
  sku: z.string(),
  name: z.string(),
  productType: ProductType,
  currency: CurrencyCode.describe("The product's currency: quotes are in it."),
  country: z.string(),
  region: z.string(),
  quotes: z.array(z.number()).nullable(),
  minQuote: z.number().nullable(),
  maxQuote: z.number().nullable(),
});

/** One SKU of GET /products. */
export const ClientProductView = ProductFields.extend({
  availability: Availability,
  deal: DealView.nullable().describe("The calling client's fee and discount on this SKU; null when it has none."),
});

export const ClientProductList = z.object({ products: z.array(ClientProductView) });
