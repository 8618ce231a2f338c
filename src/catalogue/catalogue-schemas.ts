/**
 * The catalogue's enums as zod schemas, for the API document and the operator's routes, and the catalogue's
 * types. Only types are imported from here by what runs on a client's request, so this module (and zod) is
 * evaluated with the document or the operator's routes, not when the Worker starts.
 */
import * as z from "zod/mini";
import { ADJUSTMENT_MODES, DEAL_STATES } from "../pricing/deal";

export const ProductType = z.enum(["range", "fixed"]);
export type ProductType = z.infer<typeof ProductType>;
export const SupplierKind = z.enum(["inventory", "upstream", "sandbox"]);
export type SupplierKind = z.infer<typeof SupplierKind>;

/** A SKU as the order flow sees it: quotes and amounts as decimal strings, never floats. */
export interface CatalogueProduct {
  sku: string;
  name: string;
  productType: ProductType;
  currency: string;
  country: string;
  region: string;
  /** Allowed quotes of a fixed SKU. */
  quotes: string[] | null;
  /** Bounds of a range SKU, inclusive. */
  minQuote: string | null;
  maxQuote: string | null;
  supplier: SupplierKind;
  supplierConfig: Record<string, unknown>;
  active: boolean;
}

// A deal is a pricing term; its one definition is in src/pricing/deal.ts.
export type { Adjustment, Deal } from "../pricing/deal";
export const DealState = z.enum(DEAL_STATES);
export type DealState = z.infer<typeof DealState>;
export const AdjustmentMode = z.enum(ADJUSTMENT_MODES);
export type AdjustmentMode = z.infer<typeof AdjustmentMode>;
