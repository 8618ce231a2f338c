/**
 * Requests and responses of the operator's catalogue routes (catalogue-admin-routes.ts): apart from the
 * client's product-schemas.ts, so that they are built only when an operator route or GET /openapi.json
 * first needs them.
 */
import * as z from "zod";
import { Currency, NonNegativeDecimal, PositiveDecimal } from "../pricing/amount-schemas";
import { ClientIdPath, SkuPath } from "../kernel/primitives";
import { AdjustmentView, ProductFields } from "./product-schemas";
import { AdjustmentMode, DealState, SupplierKind } from "./catalogue-schemas";

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

// Operator requests: strict objects, so a typo ("quote" for "quotes") is a 400, not silently ignored. -----

const ProductInputFields = {
  name: z.string().min(1).max(200),
  currency: Currency,
  country: z.string().regex(/^[A-Z]{2}$/, "an ISO 3166-1 alpha-2 code like US"),
  region: z.string().min(1).max(100),
  supplier: SupplierKind,
  supplierConfig: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Supplier settings, e.g. {"fail": true} for a sandbox SKU.'),
  active: z.boolean().optional().describe("Default true: an upsert (re-)enables the SKU unless it says false."),
};

/** PUT /admin/products/:sku: the whole SKU (a full replacement, not a patch). */
export const UpsertProductRequest = z.discriminatedUnion("productType", [
  z.strictObject({
    productType: z.literal("fixed"),
    ...ProductInputFields,
    quotes: z.array(PositiveDecimal).min(1).max(100).describe("The allowed quotes (face values)."),
  }),
  z.strictObject({
    productType: z.literal("range"),
    ...ProductInputFields,
    minQuote: PositiveDecimal,
    maxQuote: PositiveDecimal,
  }),
]);
export type UpsertProductRequest = z.infer<typeof UpsertProductRequest>;

export const DealParams = z.object({ clientId: ClientIdPath, sku: SkuPath });

const AdjustmentInput = z.strictObject({ amount: NonNegativeDecimal, adjustmentMode: AdjustmentMode });

/**
 * PUT /admin/clients/:clientId/deals/:sku. A percentage is of the line's face value (0..100); a fixed
 * amount is per unit, in the product's currency. Absent fee or discount: zero.
 */
export const UpsertDealRequest = z.strictObject({
  dealState: z.optional(DealState).describe("Default active."),
  fee: AdjustmentInput.optional(),
  discount: AdjustmentInput.optional(),
});

export const AdminDealView = z.object({
  clientId: z.string(),
  sku: z.string(),
  dealState: DealState,
  fee: AdjustmentView,
  discount: AdjustmentView,
  updatedAt: z.number().int(),
});

export const DealList = z.object({ deals: z.array(AdminDealView) });
