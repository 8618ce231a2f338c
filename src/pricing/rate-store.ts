/**
 * SQL on the exchange_rates table for the operator API. (The order flow reads the rates it needs in
 * src/catalogue/catalogue-store.ts, in the one batch that loads a catalogue snapshot.)
 */

export interface RateRow {
  base_currency: string;
  target_currency: string;
  rate: string;
  updated_at: number;
}

/** Sets the rate from base to target; its results are the stored row. */
export function setRateStatement(db: D1Database, base: string, target: string, rate: string, now: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO exchange_rates (base_currency, target_currency, rate, updated_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (base_currency, target_currency) DO UPDATE SET rate = excluded.rate, updated_at = excluded.updated_at
       RETURNING base_currency, target_currency, rate, updated_at`,
    )
    .bind(base, target, rate, now);
}

/** Every rate, by base then target. */
export async function allRates(db: D1Database): Promise<RateRow[]> {
  const { results } = await db
    .prepare(`SELECT base_currency, target_currency, rate, updated_at FROM exchange_rates ORDER BY base_currency, target_currency`)
    .all<RateRow>();
  return results;
}
