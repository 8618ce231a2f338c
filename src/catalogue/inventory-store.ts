/** Operator-loaded redeem codes in D1: reserved by an order at create, sold at fulfilment, freed at expiry. */
import { io } from "../kernel/faults";
import { INVENTORY_SEAMS } from "./inventory-seams";

export interface Reservation {
  sku: string;
  value: string;
  quantity: number;
}

export type ReservationResult = { ok: true } | { ok: false; sku: string; value: string; requested: number; available: number };

const RELEASE_SQL = `UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND status = 'reserved'`;

/** Lines of one SKU and value counted together: the order holds their sum. */
function merged(lines: Reservation[]): Reservation[] {
  const byLine = new Map<string, Reservation>();
  for (const line of lines) {
    const key = JSON.stringify([line.sku, line.value]);
    const seen = byLine.get(key);
    byLine.set(key, seen ? { ...seen, quantity: seen.quantity + line.quantity } : { ...line });
  }
  return [...byLine.values()];
}

/**
 * Makes the order hold exactly its lines' quantities, all or nothing, however many times it is called and
 * with whatever lines: one D1 batch (atomic) first returns what the order already holds, then per line
 * counts what is free (its own codes included) and reserves that many if enough are, and last returns
 * everything again unless every line got all it asked for. So a retried create never holds twice, a retry
 * with another body never strands the first body's codes, and two orders racing for the last codes can
 * never share one (each UPDATE checks the count in the same statement).
 */
export async function reserveCodes(db: D1Database, orderId: string, lines: Reservation[], until: number): Promise<ReservationResult> {
  const wanted = merged(lines);
  const statements: D1PreparedStatement[] = [db.prepare(RELEASE_SQL).bind(orderId)];
  for (const line of wanted) {
    statements.push(
      db.prepare(`SELECT COUNT(*) AS n FROM codes WHERE sku = ?1 AND value = ?2 AND status = 'available'`).bind(line.sku, line.value),
      db
        .prepare(
          `UPDATE codes SET status = 'reserved', order_id = ?1, reserved_until = ?2
            WHERE id IN (SELECT id FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available' ORDER BY id LIMIT ?5)
              AND (SELECT COUNT(*) FROM codes WHERE sku = ?3 AND value = ?4 AND status = 'available') >= ?5`,
        )
        .bind(orderId, until, line.sku, line.value, line.quantity),
    );
  }
  if (wanted.length > 0) {
    // Every line complete, or nothing held: checked inside the same batch, so no crash can leave half.
    const complete = wanted
      .map(() => `(SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND status = 'reserved' AND sku = ? AND value = ?) = ?`)
      .join(" AND ");
    statements.push(
      db.prepare(`${RELEASE_SQL} AND NOT (${complete})`).bind(orderId, ...wanted.flatMap((line) => [line.sku, line.value, line.quantity])),
    );
  }
  const results = await io(INVENTORY_SEAMS.reserve, () => db.batch<{ n: number }>(statements));
  for (const [index, line] of wanted.entries()) {
    const available = results[1 + index * 2]!.results[0]!.n;
    const reserved = results[2 + index * 2]!.meta.changes;
    if (reserved !== line.quantity) return { ok: false, sku: line.sku, value: line.value, requested: line.quantity, available };
  }
  return { ok: true };
}

/** Returns every code the order holds but has not been sold back to sale. Idempotent. */
export async function releaseCodes(db: D1Database, orderId: string): Promise<void> {
  await io(INVENTORY_SEAMS.release, () => db.prepare(RELEASE_SQL).bind(orderId).run());
}
