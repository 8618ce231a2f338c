import { INVENTORY_SEAMS } from "../catalogue/inventory-seams";
import { io } from "../kernel/faults";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/**
 * Operator-loaded codes: exactly the line's quantity of the codes this order reserved at create is marked
 * sold to it, in one D1 batch (atomic): sell what is still missing only if the order holds enough for the
 * whole line, then return whatever it still holds of this SKU to sale (a surplus, or a line that cannot be
 * filled and is refunded), then read the sold codes. A retry finds them sold and sells nothing more; a sold
 * code never returns to sale.
 */
export function inventorySupplier(db: D1Database): Supplier {
  return {
    async issue({ orderId, line }: IssueRequest): Promise<IssueOutcome> {
      const held = `SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'reserved'`;
      const sold = `SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'sold'`;
      const [, , read] = await io(INVENTORY_SEAMS.sell, () =>
        db.batch<{ pin: string; link: string }>([
          db
            .prepare(
              `UPDATE codes SET status = 'sold', sold_at = ?3
                WHERE id IN (SELECT id FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'reserved' ORDER BY id LIMIT max(0, ?4 - (${sold})))
                  AND (${held}) + (${sold}) >= ?4`,
            )
            .bind(orderId, line.sku, Date.now(), line.quantity),
          db
            .prepare(`UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND sku = ?2 AND status = 'reserved'`)
            .bind(orderId, line.sku),
          db.prepare(`SELECT pin, link FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'sold' ORDER BY id LIMIT ?3`).bind(orderId, line.sku, line.quantity),
        ]),
      );
      const codes = read!.results;
      if (codes.length !== line.quantity) {
        return { kind: "failed", reason: `${codes.length} of ${line.quantity} reserved codes left for this order` };
      }
      return { kind: "issued", codes };
    },
  };
}
