/**
 * An order's hold on operator-loaded codes in D1: reserved at create, sold at fulfilment, returned to sale
 * at expiry, at the end of processing or by the sweep. The SQL that moves a code between `available`,
 * `reserved` and `sold`; uploads and stock counts are src/inventory/code-store.ts.
 */
import { io } from "../kernel/faults";
import { INVENTORY_SEAMS } from "./seams";

export interface Reservation {
  sku: string;
  value: string;
  quantity: number;
}

export type ReservationResult =
  { ok: true } | { ok: false; sku: string; value: string; requested: number; available: number };

/**
 * The one statement that returns an order's reserved codes to sale. `narrower` adds conditions to its
 * WHERE, with their parameters from ?2 on: one SKU, reservations older than a cutoff, or "unless complete".
 */
function releaseStatement(db: D1Database, orderId: string, narrower = "", ...binds: unknown[]): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE codes SET status = 'available', order_id = NULL, reserved_until = NULL WHERE order_id = ?1 AND status = 'reserved'${narrower}`,
    )
    .bind(orderId, ...binds);
}

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
export async function reserveCodes(
  db: D1Database,
  orderId: string,
  lines: Reservation[],
  until: number,
): Promise<ReservationResult> {
  const wanted = merged(lines);
  const statements: D1PreparedStatement[] = [releaseStatement(db, orderId)];
  for (const line of wanted) {
    statements.push(
      db
        .prepare(`SELECT COUNT(*) AS n FROM codes WHERE sku = ?1 AND value = ?2 AND status = 'available'`)
        .bind(line.sku, line.value),
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
      .map(
        () => `(SELECT COUNT(*) FROM codes WHERE order_id = ?1 AND status = 'reserved' AND sku = ? AND value = ?) = ?`,
      )
      .join(" AND ");
    statements.push(
      releaseStatement(
        db,
        orderId,
        ` AND NOT (${complete})`,
        ...wanted.flatMap((line) => [line.sku, line.value, line.quantity]),
      ),
    );
  }
  const results = await io(INVENTORY_SEAMS.reserve, () => db.batch<{ n: number }>(statements));
  for (const [index, line] of wanted.entries()) {
    const available = results[1 + index * 2]!.results[0]!.n;
    const reserved = results[2 + index * 2]!.meta.changes;
    if (reserved !== line.quantity)
      return { ok: false, sku: line.sku, value: line.value, requested: line.quantity, available };
  }
  return { ok: true };
}

/** Returns every code the order holds but has not been sold back to sale. Idempotent. */
export async function releaseCodes(db: D1Database, orderId: string): Promise<void> {
  await io(INVENTORY_SEAMS.release, () => releaseStatement(db, orderId).run());
}

/**
 * Sells exactly `quantity` of the codes the order reserved of the SKU, in one D1 batch (atomic): sell what
 * is still missing only if the order holds enough for the whole line, then return whatever it still holds
 * of this SKU to sale (a surplus, or a line that cannot be filled), then read the sold codes. A retry finds
 * them sold and sells nothing more; a sold code never returns to sale. Answers the codes sold to the order
 * of this SKU: fewer than `quantity` when the line cannot be filled.
 */
export async function sellReserved(
  db: D1Database,
  orderId: string,
  sku: string,
  quantity: number,
  now: number,
): Promise<{ pin: string; link: string }[]> {
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
        .bind(orderId, sku, now, quantity),
      releaseStatement(db, orderId, " AND sku = ?2", sku),
      db
        .prepare(
          `SELECT pin, link FROM codes WHERE order_id = ?1 AND sku = ?2 AND status = 'sold' ORDER BY id LIMIT ?3`,
        )
        .bind(orderId, sku, quantity),
    ]),
  );
  return read!.results;
}

/** An order holding stale reservations, and the oldest `reserved_until` among them: where the sweep is in its order. */
export interface StaleHolder {
  orderId: string;
  oldestUntil: number;
}

/**
 * The orders holding codes reserved until before `cutoff`, longest overdue first (ties by order id), at most
 * `limit`, starting after `after` (the last holder of the previous page) so that a caller pages through
 * all of them, past the ones it leaves alone.
 */
export async function staleHolders(
  db: D1Database,
  cutoff: number,
  limit: number,
  after?: StaleHolder,
): Promise<StaleHolder[]> {
  const { results } = await db
    .prepare(
      `SELECT order_id, MIN(reserved_until) AS oldest_until FROM codes WHERE status = 'reserved' AND reserved_until < ?1
        GROUP BY order_id HAVING ?3 IS NULL OR (MIN(reserved_until), order_id) > (?3, ?4)
        ORDER BY oldest_until, order_id LIMIT ?2`,
    )
    .bind(cutoff, limit, after?.oldestUntil ?? null, after?.orderId ?? null)
    .all<{ order_id: string; oldest_until: number }>();
  return results.map(({ order_id, oldest_until }) => ({ orderId: order_id, oldestUntil: oldest_until }));
}

/**
 * Returns the order's codes reserved until before `cutoff` to sale; answers how many. The cutoff is part of
 * the statement: a reservation renewed since it was found stale (a retried create) is not touched.
 */
export async function releaseStale(db: D1Database, orderId: string, cutoff: number): Promise<number> {
  const { meta } = await releaseStatement(db, orderId, " AND reserved_until < ?2", cutoff).run();
  return meta.changes;
}
