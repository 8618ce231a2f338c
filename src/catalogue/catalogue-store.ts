import type { ExchangeRate } from "../pricing/exchange";
import type { CatalogueProduct, Deal, ProductType, SupplierKind, AdjustmentMode } from "./schemas";

export interface ProductRow {
  sku: string;
  name: string;
  product_type: string;
  currency: string;
  country: string;
  region: string;
  quotes: string | null;
  min_quote: string | null;
  max_quote: string | null;
  supplier: string;
  supplier_config: string;
  active: number;
}

export interface DealRow {
  client_id: string;
  sku: string;
  deal_state: string;
  fee_amount: string;
  fee_mode: string;
  discount_amount: string;
  discount_mode: string;
  updated_at: number;
}

export function dealFromRow(row: Pick<DealRow, "deal_state" | "fee_amount" | "fee_mode" | "discount_amount" | "discount_mode">): Deal {
  return {
    dealState: row.deal_state === "active" ? "active" : "none",
    fee: { amount: row.fee_amount, adjustmentMode: row.fee_mode as AdjustmentMode },
    discount: { amount: row.discount_amount, adjustmentMode: row.discount_mode as AdjustmentMode },
  };
}

export function productFromRow(row: ProductRow): CatalogueProduct {
  return {
    sku: row.sku,
    name: row.name,
    productType: row.product_type as ProductType,
    currency: row.currency,
    country: row.country,
    region: row.region,
    quotes: row.quotes === null ? null : (JSON.parse(row.quotes) as string[]),
    minQuote: row.min_quote,
    maxQuote: row.max_quote,
    supplier: row.supplier as SupplierKind,
    supplierConfig: JSON.parse(row.supplier_config) as Record<string, unknown>,
    active: row.active === 1,
  };
}

/**
 * What the create checks need from D1, read in one batch (one round trip). Stock is not in it: it is
 * decided by reserving codes, atomically, when the order is stored.
 */
export interface OrderContext {
  products: Map<string, CatalogueProduct>;
  walletCurrencies: Set<string>;
  /** Keyed by `${base}>${target}`. */
  rates: Map<string, ExchangeRate>;
  deals: Map<string, Deal>;
}

export function rateKey(base: string, target: string): string {
  return `${base}>${target}`;
}

export async function loadOrderContext(db: D1Database, clientId: string, skus: string[], wallet: string): Promise<OrderContext> {
  const skuJson = JSON.stringify(skus);
  const [products, wallets, rates, deals] = await db.batch([
    db.prepare(
      `SELECT sku, name, product_type, currency, country, region, quotes, min_quote, max_quote, supplier, supplier_config, active
         FROM products WHERE sku IN (SELECT value FROM json_each(?1))`,
    ).bind(skuJson),
    db.prepare(`SELECT currency FROM wallets WHERE client_id = ?1`).bind(clientId),
    db.prepare(
      `SELECT base_currency, target_currency, rate, updated_at FROM exchange_rates
        WHERE base_currency = ?1 AND target_currency IN (SELECT currency FROM products WHERE sku IN (SELECT value FROM json_each(?2)))`,
    ).bind(wallet, skuJson),
    db.prepare(
      `SELECT sku, deal_state, fee_amount, fee_mode, discount_amount, discount_mode FROM deals
        WHERE client_id = ?1 AND sku IN (SELECT value FROM json_each(?2))`,
    ).bind(clientId, skuJson),
  ]);
  const context: OrderContext = {
    products: new Map(),
    walletCurrencies: new Set(),
    rates: new Map(),
    deals: new Map(),
  };
  for (const row of products!.results as unknown as ProductRow[]) context.products.set(row.sku, productFromRow(row));
  for (const row of wallets!.results as { currency: string }[]) context.walletCurrencies.add(row.currency);
  for (const row of rates!.results as { base_currency: string; target_currency: string; rate: string; updated_at: number }[]) {
    context.rates.set(rateKey(row.base_currency, row.target_currency), {
      baseCurrency: row.base_currency,
      targetCurrency: row.target_currency,
      rate: row.rate,
      modifiedAt: row.updated_at,
    });
  }
  for (const row of deals!.results as unknown as DealRow[]) context.deals.set(row.sku, dealFromRow(row));
  return context;
}
