/** Operator-loaded redeem codes in D1: reserved by an order at create, sold at fulfilment, freed at expiry. */

export interface Reservation {
  sku: string;
  value: string;
  quantity: number;
}

/**
 * Reserves `quantity` available codes per line for the order, all or nothing. Each UPDATE only touches
 * rows when enough codes are free (checked in the same statement, which D1 runs atomically), so two
 * orders racing for the last codes can never share one; if any line comes up short, everything this
 * order holds is released again.
 */
export async function reserveCodes(db: D1Database, orderId: string, lines: Reservation[], until: number): Promise<boolean> {
  if (lines.length === 0) return true;
  const results = await db.batch(
    lines.map((line) =>
      db
        .prepare(
          `UPDATE codes SET status = 'reserved', order_id = ?1, reserved_until = ?2
            WHERE id IN (SELECT id FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available' ORDER BY id LIMIT ?5)
              AND (SELECT COUNT(*) FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available') >= ?5`,
        )
        .bind(orderId, until, line.sku, line.value, line.quantity),
    ),
  );
  const complete = results.every((result, index) => result.meta.changes === lines[index]!.quantity);
  if (!complete) await releaseCodes(db, orderId);
  return complete;
}

/** Returns every code the order holds but has not been sold back to sale. Idempotent. */
export async function releaseCodes(db: D1Database, orderId: string): Promise<void> {
  await db
    .prepare(`UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND status = 'reserved'`)
    .bind(orderId)
    .run();
}
