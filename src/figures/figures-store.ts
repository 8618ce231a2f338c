/**
 * Reads of the daily figures (schema/migrations/0020_daily_figures.sql). Nothing here writes them: the
 * migration's triggers on the order index and the codes keep them. Every read is a key range of a few
 * rows per day: a range of days (daily_orders, daily_lines), a client's days (daily_clients) or a SKU's
 * days (daily_stock).
 */

/** One day, currency and state of the orders; amounts in thousandths. */
export interface OrdersDayRow {
  day: number;
  currency: string;
  /** successful, partial, failed, rejected, or open (created, confirmed or processing). */
  state: string;
  orders: number;
  charged: number;
  refunded: number;
}

export async function ordersDays(db: D1Database, from: number, to: number): Promise<OrdersDayRow[]> {
  const { results } = await db
    .prepare(
      `SELECT day, currency, state, orders, charged, refunded FROM daily_orders
        WHERE day >= ?1 AND day <= ?2 AND orders != 0 ORDER BY day, currency, state`,
    )
    .bind(from, to)
    .all<OrdersDayRow>();
  return results;
}

/** Ended lines of a SKU from one supplier in one currency, over a range of days; amounts in thousandths. */
export interface LinesRow {
  sku: string;
  supplier: string;
  currency: string;
  outcome: "delivered" | "failed";
  lines: number;
  quantity: number;
  amount: number;
}

export async function linesOver(db: D1Database, from: number, to: number): Promise<LinesRow[]> {
  const { results } = await db
    .prepare(
      `SELECT sku, supplier, currency, outcome, SUM(lines) AS lines, SUM(quantity) AS quantity, SUM(amount) AS amount
         FROM daily_lines WHERE day >= ?1 AND day <= ?2
        GROUP BY sku, supplier, currency, outcome HAVING SUM(lines) != 0`,
    )
    .bind(from, to)
    .all<LinesRow>();
  return results;
}

/** One day of a client's orders in one currency; amounts in thousandths. */
export interface ClientDayRow {
  day: number;
  currency: string;
  orders: number;
  charged: number;
  refunded: number;
}

export async function clientDays(db: D1Database, clientId: string, from: number, to: number): Promise<ClientDayRow[]> {
  const { results } = await db
    .prepare(
      `SELECT day, currency, orders, charged, refunded FROM daily_clients
        WHERE client_id = ?1 AND day >= ?2 AND day <= ?3 AND orders != 0 ORDER BY day, currency`,
    )
    .bind(clientId, from, to)
    .all<ClientDayRow>();
  return results;
}

/** What each client spent in each currency over a range of days (thousandths), most first. */
export async function spendByWallet(
  db: D1Database,
  from: number,
  to: number,
  limit: number,
): Promise<{ client_id: string; currency: string; spent: number }[]> {
  const { results } = await db
    .prepare(
      `SELECT client_id, currency, SUM(charged) - SUM(refunded) AS spent FROM daily_clients
        WHERE day >= ?1 AND day <= ?2 GROUP BY client_id, currency HAVING spent > 0 ORDER BY spent DESC LIMIT ?3`,
    )
    .bind(from, to, limit)
    .all<{ client_id: string; currency: string; spent: number }>();
  return results;
}

/** Codes of a SKU uploaded and sold per day and value, from `from` on. */
export interface StockDayRow {
  day: number;
  value: string;
  uploaded: number;
  sold: number;
}

export async function stockDays(db: D1Database, sku: string, from: number): Promise<StockDayRow[]> {
  const { results } = await db
    .prepare(`SELECT day, value, uploaded, sold FROM daily_stock WHERE sku = ?1 AND day >= ?2 ORDER BY day, value`)
    .bind(sku, from)
    .all<StockDayRow>();
  return results;
}
