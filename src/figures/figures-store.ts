/**
 * Reads of the daily figures. The orders' figures are the books' published counters (D1 `books_days`,
 * schema/migrations/0030_books.sql: one row per client, day, wallet and part, each shard publishing its
 * exact counters within the hour of a change; docs/books.md); the codes' are `daily_stock`
 * (schema/migrations/0020_daily_figures.sql), kept by triggers on the codes. Nothing here writes either.
 * A range of days reads the directory's rows of those days (its day index), a client's days a range of
 * its key, a SKU's stock a range of daily_stock.
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

const BUCKETS = ["open", "successful", "partial", "failed", "rejected"] as const;

/**
 * Each day's orders per currency and state over a range of days, from the books' published figures: the
 * day's sales (charged less refunded) are carried on its `open` row, since the books count amounts per
 * day and wallet, not per state (the charts sum them per day).
 */
export async function ordersDays(db: D1Database, from: number, to: number): Promise<OrdersDayRow[]> {
  const { results } = await db
    .prepare(
      `SELECT day, currency, SUM(open) AS open, SUM(successful) AS successful, SUM(partial) AS partial,
         SUM(failed) AS failed, SUM(rejected) AS rejected, SUM(charged) AS charged, SUM(refunded) AS refunded
         FROM books_days INDEXED BY books_days_by_day WHERE day >= ?1 AND day <= ?2
        GROUP BY day, currency HAVING SUM(orders) != 0 ORDER BY day, currency`,
    )
    .bind(from, to)
    .all<Record<(typeof BUCKETS)[number] | "day" | "charged" | "refunded", number> & { currency: string }>();
  return results.flatMap((row) =>
    BUCKETS.map((state) => ({
      day: row.day,
      currency: row.currency,
      state,
      orders: row[state],
      charged: state === "open" ? row.charged : 0,
      refunded: state === "open" ? row.refunded : 0,
    })).filter((figure) => figure.orders !== 0 || figure.charged !== 0 || figure.refunded !== 0),
  );
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

/** The ended lines of a range of days, summed per SKU, supplier, currency and outcome from the books' figures. */
export async function linesOver(db: D1Database, from: number, to: number): Promise<LinesRow[]> {
  const { results } = await db
    .prepare(
      `SELECT currency, lines FROM books_days INDEXED BY books_days_by_day
        WHERE day >= ?1 AND day <= ?2 AND lines != '{}'`,
    )
    .bind(from, to)
    .all<{ currency: string; lines: string }>();
  const sums = new Map<string, LinesRow>();
  for (const row of results) {
    const lines = JSON.parse(row.lines) as Record<string, { lines: number; quantity: number; amount: number }>;
    for (const [key, figures] of Object.entries(lines)) {
      const [sku, supplier, outcome] = key.split("\u0000") as [string, string, LinesRow["outcome"]];
      const at = `${key}\u0000${row.currency}`;
      const sum = sums.get(at) ?? { sku, supplier, currency: row.currency, outcome, lines: 0, quantity: 0, amount: 0 };
      sums.set(at, sum);
      sum.lines += figures.lines;
      sum.quantity += figures.quantity;
      sum.amount += figures.amount;
    }
  }
  return [...sums.values()].filter((sum) => sum.lines !== 0);
}

/** One day of a client's orders in one currency; amounts in thousandths. */
export interface ClientDayRow {
  day: number;
  currency: string;
  orders: number;
  charged: number;
  refunded: number;
}

/** A client's days: a range of the books' directory key. */
export async function clientDays(db: D1Database, clientId: string, from: number, to: number): Promise<ClientDayRow[]> {
  const { results } = await db
    .prepare(
      `SELECT day, currency, SUM(orders) AS orders, SUM(charged) AS charged, SUM(refunded) AS refunded
         FROM books_days WHERE client_id = ?1 AND day >= ?2 AND day <= ?3
        GROUP BY day, currency HAVING SUM(orders) != 0 ORDER BY day, currency`,
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
      `SELECT client_id, currency, SUM(charged) - SUM(refunded) AS spent FROM books_days INDEXED BY books_days_by_day
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
