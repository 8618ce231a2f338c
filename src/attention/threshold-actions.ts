/**
 * Setting and removing thresholds, audited: what PUT /admin/products/:sku/low-stock-threshold and
 * PUT /admin/wallets/:clientId/:currency/low-balance-threshold run, and what the console's forms run, so
 * both write the same rows under the operator who acted. Each change and its audit row are one D1 batch.
 */
import { auditStatement } from "../audit/audit-store";
import { fail } from "../kernel/failures";
import { requireProduct } from "../catalogue/catalogue-store";
import { clientStatement } from "../clients/client-store";
import { stockOf } from "../inventory/code-store";
import { toAmountNumber } from "../pricing/money";
import { currentBalance } from "../wallets/wallet-moves";
import { findWallet } from "../wallets/wallet-registry-store";
import { lowBalanceThreshold, setStockThresholdStatement, setWalletThresholdStatement } from "./threshold-store";

/** Who a change's audit row names, as the audit log takes it. */
export type Actor = Parameters<typeof auditStatement>[1];

/**
 * The SKU's low-stock threshold (null removes it). 404 sku_not_found for an unknown SKU; 400 for a SKU
 * not supplied from uploaded codes, which has no stock to fall low.
 */
export async function setStockThreshold(db: D1Database, actor: Actor, sku: string, threshold: number | null) {
  const product = await requireProduct(db, sku);
  if (product.supplier !== "inventory") {
    fail("invalid_request_body", {
      reason: `${sku} is supplied by ${product.supplier}, not from uploaded codes: it has no stock to watch`,
    });
  }
  await db.batch([
    setStockThresholdStatement(db, sku, threshold, Date.now()),
    auditStatement(
      db,
      actor,
      threshold === null ? "product.low_stock_threshold.remove" : "product.low_stock_threshold.set",
      `product:${sku}`,
      { threshold },
    ),
  ]);
  const available = (await stockOf(db, sku)).reduce((sum, value) => sum + value.available, 0);
  return { sku, threshold, available };
}

/**
 * The wallet's low-balance threshold (null removes it): positive, with at most the currency's minor units
 * (400 otherwise). 404 client_not_found or wallet_unknown unless the wallet is registered.
 */
export async function setWalletThreshold(
  env: Pick<Env, "DB" | "WALLETS">,
  actor: Actor,
  clientId: string,
  currency: string,
  given: string | number | null,
) {
  let threshold: string | null = null;
  if (given !== null) {
    const checked = lowBalanceThreshold(given, currency);
    if (!checked.ok) fail("invalid_request_body", { reason: checked.reason });
    threshold = checked.threshold;
  }
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (found.wallet === null) fail("wallet_unknown", { clientId, currency });
  await env.DB.batch([
    setWalletThresholdStatement(env.DB, clientId, currency, threshold, Date.now()),
    auditStatement(
      env.DB,
      actor,
      threshold === null ? "wallet.low_balance_threshold.remove" : "wallet.low_balance_threshold.set",
      `wallet:${clientId}:${currency}`,
      { threshold },
    ),
  ]);
  const balance = await currentBalance(env, clientId, found.wallet);
  return {
    clientId,
    currency,
    threshold: threshold === null ? null : toAmountNumber(threshold),
    balance: toAmountNumber(balance),
  };
}
