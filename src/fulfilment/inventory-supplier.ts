import { sellReserved } from "../inventory/reservation-store";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/**
 * Operator-loaded codes: exactly the line's quantity of the codes this order reserved at create is sold to
 * it (src/inventory/reservation-store.ts, one atomic batch); whatever else the order holds of the SKU goes back
 * on sale. A retry finds the codes sold and gets the same ones; a line the order holds too few codes for fails.
 */
export function inventorySupplier(db: D1Database): Supplier {
  return {
    async issue({ orderId, line }: IssueRequest): Promise<IssueOutcome> {
      const codes = await sellReserved(db, orderId, line.sku, line.quantity, Date.now());
      if (codes.length !== line.quantity) {
        return { kind: "failed", reason: `${codes.length} of ${line.quantity} reserved codes left for this order` };
      }
      return { kind: "issued", codes };
    },
  };
}
