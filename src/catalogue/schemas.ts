import { z } from "zod";

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

export const AdjustmentMode = z.enum(["percentage", "fixed"]);
export type AdjustmentMode = z.infer<typeof AdjustmentMode>;

export interface Adjustment {
  amount: string;
  adjustmentMode: AdjustmentMode;
}

/** A client's negotiated terms for one SKU. No row means no fee and no discount. */
export interface Deal {
  dealState: "active" | "none";
  fee: Adjustment;
  discount: Adjustment;
}

export const NO_DEAL: Deal = {
  dealState: "none",
  fee: { amount: "0", adjustmentMode: "fixed" },
  discount: { amount: "0", adjustmentMode: "fixed" },
};
