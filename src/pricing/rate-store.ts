/**
 * SQL on the exchange_rates table: the operator API's, and the statement the order flow batches to read the
 * rates it needs (src/catalogue/catalogue-store.ts, in the one batch that loads a catalogue snapshot).
 */
import type { ExchangeRate } from "./exchange";

export interface RateRow {
  base_currency: string;
  target_currency: string;
  rate: string;
  updated_at: number;
}

const RATE_COLUMNS = `base_currency, target_currency, rate, updated_at`;

export function rateFromRow(row: RateRow): ExchangeRate {
  return {
    baseCurrency: row.base_currency,
    targetCurrency: row.target_currency,
    rate: row.rate,
    modifiedAt: row.updated_at,
  };
}

/** Sets the rate from base to target; its results are the stored row. */
export function setRateStatement(
  db: D1Database,
  base: string,
  target: string,
  rate: string,
  now: number,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO exchange_rates (${RATE_COLUMNS}) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (base_currency, target_currency) DO UPDATE SET rate = excluded.rate, updated_at = excluded.updated_at
       RETURNING ${RATE_COLUMNS}`,
    )
    .bind(base, target, rate, now);
}

/** Every rate, by base then target. */
export async function allRates(db: D1Database): Promise<RateRow[]> {
  const { results } = await db
    .prepare(`SELECT ${RATE_COLUMNS} FROM exchange_rates ORDER BY base_currency, target_currency`)
    .all<RateRow>();
  return results;
}

/**
 * The rates from `base` to the currencies that `targets` selects (rows: RateRow): `targets` is a one-column
 * SELECT by the caller whose parameters are `binds`, numbered from ?2 (?1 is the base). A statement for
 * the caller's batch.
 */
export function ratesFromStatement(
  db: D1Database | D1DatabaseSession,
  base: string,
  targets: string,
  binds: unknown[] = [],
): D1PreparedStatement {
  return db
    .prepare(`SELECT ${RATE_COLUMNS} FROM exchange_rates WHERE base_currency = ?1 AND target_currency IN (${targets})`)
    .bind(base, ...binds);
}
