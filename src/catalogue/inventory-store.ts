/** Operator-loaded redeem codes in D1: reserved by an order at create, sold at fulfilment, freed at expiry. */
import { io } from "../kernel/faults";
import { INVENTORY_SEAMS } from "./inventory-seams";

export interface Reservation {
  sku: string;
  value: string;
  quantity: number;
}

export type ReservationResult = { ok: true } | { ok: false; sku: string; value: string; requested: number };

/**
 * Makes the order hold exactly `quantity` available codes per line, all or nothing, however often it is
 * called: a create retried after its first reply was lost (or with another body) first gives back what the
 * order already holds, in the same atomic batch that reserves again, so an order never holds twice its
 * lines and never keeps codes a former attempt reserved. Each UPDATE only touches rows when enough codes
 * are free (checked in the same statement), so two orders racing for the last codes can never share one;
 * if any line comes up short, everything this order holds is released again.
 */
export async function reserveCodes(db: D1Database, orderId: string, lines: Reservation[], until: number): Promise<ReservationResult> {
  if (lines.length === 0) return { ok: true };
  const results = await io(INVENTORY_SEAMS.reserve, () =>
    db.batch([
    db.prepare(`UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND status = 'reserved'`).bind(orderId),
    ...lines.map((line) =>
      db
        .prepare(
          `UPDATE codes SET status = 'reserved', order_id = ?1, reserved_until = ?2
            WHERE id IN (SELECT id FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available' ORDER BY id LIMIT ?5)
              AND (SELECT COUNT(*) FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available') >= ?5`,
        )
        .bind(orderId, until, line.sku, line.value, line.quantity),
      ),
    ]),
  );
  const short = lines.find((line, index) => results[index + 1]!.meta.changes !== line.quantity);
  if (short === undefined) return { ok: true };
  await releaseCodes(db, orderId);
  return { ok: false, sku: short.sku, value: short.value, requested: short.quantity };
}

/** Returns every code the order holds but has not been sold back to sale. Idempotent. */
export async function releaseCodes(db: D1Database, orderId: string): Promise<void> {
  await io(INVENTORY_SEAMS.release, () =>
    db
      .prepare(`UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND status = 'reserved'`)
      .bind(orderId)
      .run(),
  );
}
