import { fail } from "../kernel/failures";
import { rowsToFetch } from "../kernel/paging";
import type { ExchangeRate } from "../pricing/exchange";
import { rateFromRow, ratesFromStatement, type RateRow } from "../pricing/rate-store";
import { registeredWallets, walletCurrenciesStatement, type Region } from "../wallets/wallet-registry-store";
import { availableCodesStatement, codeCountsStatement, type CodeCountRow } from "../inventory/code-store";
import type { CatalogueProduct, Deal, ProductType, SupplierKind, AdjustmentMode } from "./catalogue-schemas";

/** The columns of a product row as the order flow and the client catalogue read it. */
export const PRODUCT_COLUMNS = `sku, name, product_type, currency, country, region, quotes, min_quote, max_quote, supplier, supplier_config, active`;

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

const DEAL_COLUMNS = `client_id, sku, deal_state, fee_amount, fee_mode, discount_amount, discount_mode, updated_at`;

export function dealFromRow(
  row: Pick<DealRow, "deal_state" | "fee_amount" | "fee_mode" | "discount_amount" | "discount_mode">,
): Deal {
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
 * The catalogue as one order sees it: its SKUs, the client's wallet currencies, the rates from the order's
 * wallet and the client's deals, read in one batch (one round trip) and priced by src/orders/order-plan.ts.
 * Stock is not in it: it is decided by reserving codes, atomically, when the order is stored.
 */
export interface CatalogueSnapshot {
  products: Map<string, CatalogueProduct>;
  walletCurrencies: Set<string>;
  /** The region each wallet's object is opened with (wallets.region), by currency; absent: no hint. */
  walletRegions: Map<string, Region>;
  /** Which object of each wallet is current (wallets.generation), by currency; absent: its first (0). */
  walletGenerations: Map<string, number>;
  /** Keyed by `${base}>${target}`. */
  rates: Map<string, ExchangeRate>;
  deals: Map<string, Deal>;
}

export function rateKey(base: string, target: string): string {
  return `${base}>${target}`;
}

export async function loadCatalogueSnapshot(
  db: D1Database | D1DatabaseSession,
  clientId: string,
  skus: string[],
  wallet: string,
): Promise<CatalogueSnapshot> {
  const skuJson = JSON.stringify(skus);
  const [products, wallets, rates, deals] = await db.batch([
    db.prepare(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE sku IN (SELECT value FROM json_each(?1))`).bind(skuJson),
    walletCurrenciesStatement(db, clientId),
    ratesFromStatement(db, wallet, `SELECT currency FROM products WHERE sku IN (SELECT value FROM json_each(?2))`, [
      skuJson,
    ]),
    db
      .prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1 AND sku IN (SELECT value FROM json_each(?2))`)
      .bind(clientId, skuJson),
  ]);
  const snapshot: CatalogueSnapshot = {
    products: new Map(),
    walletCurrencies: new Set(),
    walletRegions: new Map(),
    walletGenerations: new Map(),
    rates: new Map(),
    deals: new Map(),
  };
  for (const row of products!.results as unknown as ProductRow[]) snapshot.products.set(row.sku, productFromRow(row));
  for (const { currency, region, generation } of registeredWallets(wallets!.results)) {
    snapshot.walletCurrencies.add(currency);
    if (region !== null) snapshot.walletRegions.set(currency, region);
    if (generation !== 0) snapshot.walletGenerations.set(currency, generation);
  }
  for (const row of rates!.results as unknown as RateRow[])
    snapshot.rates.set(rateKey(row.base_currency, row.target_currency), rateFromRow(row));
  for (const row of deals!.results as unknown as DealRow[]) snapshot.deals.set(row.sku, dealFromRow(row));
  return snapshot;
}

// The operator's catalogue -----------------------------------------------------------------------------------

/** A product row with the time it was last changed, as the operator API shows it. */
export type StoredProductRow = ProductRow & { updated_at: number };

const STORED_PRODUCT_COLUMNS = `${PRODUCT_COLUMNS}, updated_at`;

export function findStoredProduct(db: D1Database, sku: string): Promise<StoredProductRow | null> {
  return db
    .prepare(`SELECT ${STORED_PRODUCT_COLUMNS} FROM products WHERE sku = ?1`)
    .bind(sku)
    .first<StoredProductRow>();
}

/** Products matching `where` by SKU, at most `limit`, with their code counts by status, in one batch. */
async function productsWithCodeCounts(db: D1Database, where: string, binds: unknown[], limit: number) {
  const [products, counts] = await db.batch([
    db
      .prepare(`SELECT ${STORED_PRODUCT_COLUMNS} FROM products WHERE ${where} ORDER BY sku LIMIT ${limit}`)
      .bind(...binds),
    codeCountsStatement(db, `SELECT sku FROM products WHERE ${where} ORDER BY sku LIMIT ${limit}`, binds),
  ]);
  const countRows = counts!.results as unknown as CodeCountRow[];
  return (products!.results as unknown as StoredProductRow[]).map((row) => ({
    row,
    counts: countRows.filter((count) => count.sku === row.sku),
  }));
}

/** Products by SKU after `after`, disabled ones too, with code counts; one more than `limit` (src/kernel/paging.ts). */
export function productsAfter(db: D1Database, after: string, limit: number) {
  return productsWithCodeCounts(db, "sku > ?1", [after], rowsToFetch(limit));
}

/** The product with its code counts, or undefined. */
export async function productWithCodeCounts(db: D1Database, sku: string) {
  const [found] = await productsWithCodeCounts(db, "sku = ?1", [sku], 1);
  return found;
}

/**
 * The SKUs that `skus` selects (a one-column SELECT of SKUs, bound to `binds`) as {sku, name, supplier,
 * active, quotes} rows: a statement for the caller's batch (the Needs attention list names its SKUs with it).
 */
export function productSummariesStatement(db: D1Database, skus: string, binds: unknown[] = []): D1PreparedStatement {
  return db
    .prepare(`SELECT sku, name, supplier, active, quotes FROM products WHERE sku IN (${skus}) ORDER BY sku`)
    .bind(...binds);
}

/** The stored SKU, or 404 sku_not_found. */
export async function requireProduct(db: D1Database, sku: string): Promise<CatalogueProduct & { updatedAt: number }> {
  const row = await findStoredProduct(db, sku);
  if (row === null) fail("sku_not_found", { sku });
  return { ...productFromRow(row), updatedAt: row.updated_at };
}

/** The whole SKU, inserted or replacing the stored one; quotes and bounds already canonical. */
export function upsertProductStatement(
  db: D1Database,
  product: Omit<CatalogueProduct, "productType" | "supplier"> & { productType: string; supplier: string },
  now: number,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO products (${STORED_PRODUCT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
       ON CONFLICT (sku) DO UPDATE SET name = excluded.name, product_type = excluded.product_type, currency = excluded.currency,
         country = excluded.country, region = excluded.region, quotes = excluded.quotes, min_quote = excluded.min_quote,
         max_quote = excluded.max_quote, supplier = excluded.supplier, supplier_config = excluded.supplier_config,
         active = excluded.active, updated_at = excluded.updated_at`,
    )
    .bind(
      product.sku,
      product.name,
      product.productType,
      product.currency,
      product.country,
      product.region,
      product.quotes === null ? null : JSON.stringify(product.quotes),
      product.minQuote,
      product.maxQuote,
      product.supplier,
      JSON.stringify(product.supplierConfig),
      product.active ? 1 : 0,
      now,
    );
}

/** Starts or stops the SKU's sale; changes no row when it is already so (for auditStatementIfChanged). */
export function setActiveStatement(db: D1Database, sku: string, active: boolean, now: number): D1PreparedStatement {
  return db
    .prepare(`UPDATE products SET active = ?2, updated_at = ?3 WHERE sku = ?1 AND active != ?2`)
    .bind(sku, active ? 1 : 0, now);
}

// Deals ------------------------------------------------------------------------------------------------------

type StoredTerm = { amount: string; mode: AdjustmentMode };

/** Sets the client's deal on the SKU (replacing any); its results are the stored row. */
export function upsertDealStatement(
  db: D1Database,
  deal: { clientId: string; sku: string; dealState: "active" | "none"; fee: StoredTerm; discount: StoredTerm },
  now: number,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO deals (${DEAL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
       ON CONFLICT (client_id, sku) DO UPDATE SET deal_state = excluded.deal_state, fee_amount = excluded.fee_amount,
         fee_mode = excluded.fee_mode, discount_amount = excluded.discount_amount, discount_mode = excluded.discount_mode,
         updated_at = excluded.updated_at
       RETURNING ${DEAL_COLUMNS}`,
    )
    .bind(
      deal.clientId,
      deal.sku,
      deal.dealState,
      deal.fee.amount,
      deal.fee.mode,
      deal.discount.amount,
      deal.discount.mode,
      now,
    );
}

export function findDeal(db: D1Database, clientId: string, sku: string): Promise<DealRow | null> {
  return db
    .prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1 AND sku = ?2`)
    .bind(clientId, sku)
    .first<DealRow>();
}

export function deleteDealStatement(db: D1Database, clientId: string, sku: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM deals WHERE client_id = ?1 AND sku = ?2`).bind(clientId, sku);
}

/** The client's deals, by SKU. */
export async function dealsOf(db: D1Database, clientId: string): Promise<DealRow[]> {
  const { results } = await db
    .prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1 ORDER BY sku`)
    .bind(clientId)
    .all<DealRow>();
  return results;
}

// The client catalogue ----------------------------------------------------------------------------------------

/**
 * What GET /products shows a client, in one batch (one round trip): the active SKUs, the available codes of
 * inventory SKUs per value, and the client's deals.
 */
export async function clientCatalogue(db: D1Database, clientId: string) {
  const [products, stock, deals] = await db.batch([
    db.prepare(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE active = 1 ORDER BY sku`),
    availableCodesStatement(db, `SELECT sku FROM products WHERE active = 1 AND supplier = 'inventory'`),
    db.prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1`).bind(clientId),
  ]);
  return {
    products: products!.results as unknown as ProductRow[],
    stock: stock!.results as { sku: string; value: string; available: number }[],
    deals: deals!.results as unknown as DealRow[],
  };
}
