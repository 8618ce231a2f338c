import * as z from "zod/mini";

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
export { AdjustmentMode, NO_DEAL, type Adjustment, type Deal } from "../pricing/deal";
