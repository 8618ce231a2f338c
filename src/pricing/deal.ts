/** A client's fee and discount on a SKU: what line pricing applies on top of the face value. */
import * as z from "zod/mini";

/** Whether a deal applies: a stored deal can be switched off ("none") and keep its terms. */
export const DealState = z.enum(["active", "none"]);
export type DealState = z.infer<typeof DealState>;

export const AdjustmentMode = z.enum(["percentage", "fixed"]);
export type AdjustmentMode = z.infer<typeof AdjustmentMode>;

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
