import { INVENTORY_SEAMS } from "../catalogue/inventory-seams";
import { io } from "../kernel/faults";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/**
 * Operator-loaded codes: the codes this order reserved at create are marked sold to it. Marking is
 * idempotent (a retry finds them sold already), and a sold code never returns to sale.
 */
export function inventorySupplier(db: D1Database): Supplier {
  return {
    async issue({ orderId, line }: IssueRequest): Promise<IssueOutcome> {
      const [, sold] = await io(INVENTORY_SEAMS.sell, () =>
        db.batch<{ pin: string; link: string }>([
        // Exactly the line's quantity or nothing: a sold code never returns to sale, so selling too many, or
        // some of a line that then fails, would burn codes. Codes sold to this line by an earlier run count.
        db
          .prepare(
            `UPDATE codes SET status = 'sold', sold_at = ?3
              WHERE id IN (SELECT id FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'reserved' ORDER BY id
                            LIMIT MAX(0, ?4 - (SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'sold')))
                AND (SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND sku = ?2 AND status IN ('reserved', 'sold')) >= ?4`,
          )
          .bind(orderId, line.sku, Date.now(), line.quantity),
        db.prepare(`SELECT pin, link FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'sold' ORDER BY id`).bind(orderId, line.sku),
        ]),
      );
      const codes = sold!.results;
      if (codes.length !== line.quantity) {
        return { kind: "failed", reason: `${codes.length} of ${line.quantity} reserved codes left for this order` };
      }
      return { kind: "issued", codes };
    },
  };
}
