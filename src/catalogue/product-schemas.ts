import { z } from "zod";
import { MINOR_UNITS } from "../pricing/money";
import { AdjustmentMode, ProductType, SupplierKind } from "./schemas";

/** An ISO 4217 currency code as answers carry it: three capital letters. */
export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code like USD");

/** A currency the service accepts: the ISO 4217 codes of MINOR_UNITS. */
export const Currency = z.enum(Object.keys(MINOR_UNITS).sort() as [string, ...string[]]);

/** SKUs an operator can create: they travel in paths, so letters, digits, `.`, `_` and `-` only. */
export const Sku = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1 to 64 letters, digits, '.', '_' or '-'");

/** A positive decimal given as a string (exact) or a JSON number; canonicalised with Money before use. */
export const PositiveDecimal = z.union([
  z.string().regex(/^\d{1,15}(\.\d{1,12})?$/, "a decimal like 10 or 12.5"),
  z.number().positive().max(1e15),
]);

/** A non-negative decimal (fees and discounts may be zero). */
export const NonNegativeDecimal = z.union([
  z.string().regex(/^\d{1,15}(\.\d{1,12})?$/, "a decimal like 0, 2 or 2.5"),
  z.number().nonnegative().max(1e15),
]);

export const AdjustmentView = z.object({ amount: z.number(), adjustmentMode: AdjustmentMode });

/** A client's deal on a SKU as the client sees it. */
export const DealView = z.object({
  dealState: z.enum(["active", "none"]),
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
const ProductFields = z.object({
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

/** A SKU as the operator sees it: everything stored, and code counts for inventory SKUs. */
export const AdminProductView = ProductFields.extend({
  supplier: SupplierKind,
  supplierConfig: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  updatedAt: z.number().int(),
  codes: z
    .object({ available: z.number().int(), reserved: z.number().int(), sold: z.number().int() })
    .nullable()
    .describe("Code counts by status for inventory SKUs; null for other suppliers."),
});

export const AdminProductList = z.object({ products: z.array(AdminProductView), next: z.string().nullable() });
