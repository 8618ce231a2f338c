/**
 * SQL on the codes table for operator uploads and stock counts, and the statements other domains batch to
 * count codes (the catalogue's views of stock). An order's hold on codes is src/inventory/reservation-store.ts.
 */
import { toAmountNumber } from "../pricing/money";
import type { CanonicalCode, CodeTerms } from "./code-rules";

export type CodeStatus = "available" | "reserved" | "sold";

export interface CodeCountRow {
  sku: string;
  status: CodeStatus;
  n: number;
}

/** The pins among `codes` already stored for the SKU. */
export async function storedPins(db: D1Database, sku: string, codes: CanonicalCode[]): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT pin FROM codes WHERE sku = ?1 AND pin IN (SELECT value FROM json_each(?2))`)
    .bind(sku, JSON.stringify([...new Set(codes.map((code) => code.pin))]))
    .all<{ pin: string }>();
  return results.map(({ pin }) => pin);
}

/**
 * Adds the codes, available at once, in upload order; fails as a whole on a pin already stored, and when the
 * SKU is no longer an inventory SKU of the currency and type the codes were checked against (`terms`): a
 * code is worth its value in its SKU's currency, so codes checked as EUR must never land in a SKU relabelled
 * JPY in the meantime. The SKU column is then NULL, which its NOT NULL constraint refuses.
 */
export function insertCodesStatement(
  db: D1Database,
  sku: string,
  codes: CanonicalCode[],
  now: number,
  terms: CodeTerms,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO codes (sku, value, pin, link, created_at)
       SELECT (SELECT p.sku FROM products p WHERE p.sku = ?1 AND p.currency = ?4 AND p.product_type = ?5 AND p.supplier = 'inventory'),
              json_extract(j.value, '$.value'), json_extract(j.value, '$.pin'), json_extract(j.value, '$.link'), ?3
         FROM json_each(?2) AS j ORDER BY j.key`,
    )
    .bind(sku, JSON.stringify(codes), now, terms.currency, terms.productType);
}

/** Code counts of a SKU per value and status, by value. */
export async function stockOf(db: D1Database, sku: string) {
  const { results } = await db
    .prepare(`SELECT value, status, COUNT(*) AS n FROM codes WHERE sku = ?1 GROUP BY value, status`)
    .bind(sku)
    .all<{ value: string; status: CodeStatus; n: number }>();
  const byValue = new Map<string, { value: number; available: number; reserved: number; sold: number }>();
  for (const row of results) {
    const entry = byValue.get(row.value) ?? { value: toAmountNumber(row.value), available: 0, reserved: 0, sold: 0 };
    entry[row.status] += row.n;
    byValue.set(row.value, entry);
  }
  return [...byValue.values()].sort((a, b) => a.value - b.value);
}

/**
 * Code counts per SKU and status (rows: CodeCountRow) of the SKUs that `skus` selects: a one-column SELECT
 * of SKUs by the caller, bound to `binds` (?1…). A statement for the caller's batch.
 */
export function codeCountsStatement(db: D1Database, skus: string, binds: unknown[] = []): D1PreparedStatement {
  return db
    .prepare(`SELECT sku, status, COUNT(*) AS n FROM codes WHERE sku IN (${skus}) GROUP BY sku, status`)
    .bind(...binds);
}

/**
 * Available codes per SKU and value (rows: {sku, value, available}) of the SKUs that `skus` selects, as in
 * codeCountsStatement. A statement for the caller's batch.
 */
export function availableCodesStatement(db: D1Database, skus: string, binds: unknown[] = []): D1PreparedStatement {
  return db
    .prepare(
      `SELECT sku, value, COUNT(*) AS available FROM codes WHERE status = 'available' AND sku IN (${skus}) GROUP BY sku, value`,
    )
    .bind(...binds);
}

/** A sold code as the reconciliation reads it: its row id names it (its pin is the client's secret). */
export interface SoldCode {
  id: number;
  sku: string;
  pin: string;
  orderId: string;
  soldAt: number | null;
}

interface SoldCodeRow {
  id: number;
  sku: string;
  pin: string;
  order_id: string;
  sold_at: number | null;
}

const soldCode = (row: SoldCodeRow): SoldCode => ({
  id: row.id,
  sku: row.sku,
  pin: row.pin,
  orderId: row.order_id,
  soldAt: row.sold_at,
});

/** The codes sold to `orderIds`, by the order index of codes. */
export async function codesSoldTo(db: D1Database, orderIds: readonly string[]): Promise<SoldCode[]> {
  const found: SoldCode[] = [];
  const unique = [...new Set(orderIds)];
  // D1 binds at most 100 parameters per statement.
  for (let start = 0; start < unique.length; start += 90) {
    const chunk = unique.slice(start, start + 90);
    const marks = chunk.map((_, at) => `?${at + 1}`).join(", ");
    const { results } = await db
      .prepare(
        `SELECT id, sku, pin, order_id, sold_at FROM codes WHERE order_id IN (${marks}) AND status = 'sold' ORDER BY id`,
      )
      .bind(...chunk)
      .all<SoldCodeRow>();
    found.push(...results.map(soldCode));
  }
  return found;
}

/**
 * The codes sold between `from` and `to` (unix ms, inclusive). No index serves `sold_at`: this reads the
 * whole table, which an hourly run can afford (D1 bills a read a thousandth of a write), where an index
 * would add a billed write to every sale.
 */
export async function codesSoldBetween(db: D1Database, from: number, to: number): Promise<SoldCode[]> {
  const { results } = await db
    .prepare(
      `SELECT id, sku, pin, order_id, sold_at FROM codes WHERE status = 'sold' AND sold_at >= ?1 AND sold_at <= ?2 ORDER BY id`,
    )
    .bind(from, to)
    .all<SoldCodeRow>();
  return results.map(soldCode);
}
