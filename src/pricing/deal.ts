/**
 * A client's fee and discount on a SKU: what line pricing applies on top of the face value. The values are
 * plain lists, not zod enums: line pricing runs on every create and this module is evaluated when the
 * Worker starts, which loads no zod (scripts/check-startup.mjs); the enums are built from these lists in
 * src/catalogue/catalogue-schemas.ts, for the document and the operator's routes.
 */

/** Whether a deal applies: a stored deal can be switched off ("none") and keep its terms. */
export const DEAL_STATES = ["active", "none"] as const;
export type DealState = (typeof DEAL_STATES)[number];

export const ADJUSTMENT_MODES = ["percentage", "fixed"] as const;
export type AdjustmentMode = (typeof ADJUSTMENT_MODES)[number];

export interface Adjustment {
  amount: string;
  adjustmentMode: AdjustmentMode;
}

/** A client's negotiated terms for one SKU. No row means no fee and no discount. */
export interface Deal {
  dealState: DealState;
  fee: Adjustment;
  discount: Adjustment;
}

export const NO_DEAL: Deal = {
  dealState: "none",
  fee: { amount: "0", adjustmentMode: "fixed" },
  discount: { amount: "0", adjustmentMode: "fixed" },
};
