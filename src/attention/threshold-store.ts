/**
 * The thresholds of the Needs attention list: a low-stock threshold per inventory SKU and a low-balance
 * threshold per wallet (migration 0011). Their rules (pure) and the SQL on the two tables, which only this
 * module writes.
 */
import { fitsMinorUnits, Money } from "../pricing/money";

/** A low-balance threshold as stored (a canonical decimal string), or why it is refused (a 400's reason). */
export type ThresholdCheck = { ok: true; threshold: string } | { ok: false; reason: string };

/** A wallet's low-balance threshold: positive, with at most the currency's minor units. */
export function lowBalanceThreshold(given: string | number, currency: string): ThresholdCheck {
  const amount = new Money(String(given));
  if (!amount.isFinite() || !amount.greaterThan(0) || !fitsMinorUnits(amount, currency)) {
    return { ok: false, reason: `threshold must be positive with at most the minor units of ${currency}` };
  }
  return { ok: true, threshold: amount.toFixed() };
}

/** Whether a balance is below its threshold (both exact decimal strings). */
export function balanceBelow(balance: string, threshold: string): boolean {
  return new Money(balance).lessThan(new Money(threshold));
}

/** Whether a SKU's available codes are below its threshold. */
export function stockBelow(available: number, threshold: number): boolean {
  return available < threshold;
}

/** Sets (or, with null, removes) the SKU's low-stock threshold: a statement for the caller's batch. */
export function setStockThresholdStatement(
  db: D1Database,
  sku: string,
  threshold: number | null,
  now: number,
): D1PreparedStatement {
  if (threshold === null) return db.prepare(`DELETE FROM stock_thresholds WHERE sku = ?1`).bind(sku);
  return db
    .prepare(
      `INSERT INTO stock_thresholds (sku, threshold, updated_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (sku) DO UPDATE SET threshold = excluded.threshold, updated_at = excluded.updated_at`,
    )
    .bind(sku, threshold, now);
}

/** Sets (or, with null, removes) the wallet's low-balance threshold: a statement for the caller's batch. */
export function setWalletThresholdStatement(
  db: D1Database,
  clientId: string,
  currency: string,
  threshold: string | null,
  now: number,
): D1PreparedStatement {
  if (threshold === null)
    return db.prepare(`DELETE FROM wallet_thresholds WHERE client_id = ?1 AND currency = ?2`).bind(clientId, currency);
  return db
    .prepare(
      `INSERT INTO wallet_thresholds (client_id, currency, threshold, updated_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (client_id, currency) DO UPDATE SET threshold = excluded.threshold, updated_at = excluded.updated_at`,
    )
    .bind(clientId, currency, threshold, now);
}

/** The SQL that selects the SKUs with a low-stock threshold, for other domains' statements. */
export const SKUS_WITH_THRESHOLD = `SELECT sku FROM stock_thresholds`;

/** The SQL that selects the (client_id, currency) of wallets with a low-balance threshold. */
export const WALLETS_WITH_THRESHOLD = `SELECT client_id, currency FROM wallet_thresholds`;

/** Every low-stock threshold, by SKU (rows: {sku, threshold}): a statement for the caller's batch. */
export function stockThresholdsStatement(db: D1Database): D1PreparedStatement {
  return db.prepare(`SELECT sku, threshold FROM stock_thresholds ORDER BY sku`);
}

/** Every low-balance threshold (rows: {client_id, currency, threshold}): a statement for the caller's batch. */
export function walletThresholdsStatement(db: D1Database): D1PreparedStatement {
  return db.prepare(`SELECT client_id, currency, threshold FROM wallet_thresholds ORDER BY client_id, currency`);
}

/** The SKU's low-stock threshold, or null. */
export async function stockThresholdOf(db: D1Database, sku: string): Promise<number | null> {
  const row = await db
    .prepare(`SELECT threshold FROM stock_thresholds WHERE sku = ?1`)
    .bind(sku)
    .first<{ threshold: number }>();
  return row?.threshold ?? null;
}

/** The wallet's low-balance threshold, or null. */
export async function walletThresholdOf(db: D1Database, clientId: string, currency: string): Promise<string | null> {
  const row = await db
    .prepare(`SELECT threshold FROM wallet_thresholds WHERE client_id = ?1 AND currency = ?2`)
    .bind(clientId, currency)
    .first<{ threshold: string }>();
  return row?.threshold ?? null;
}
