/** Operator API: SKUs (upsert, disable, enable, list) and per-client deals. */
import type { IRequest } from "itty-router";
import type { z } from "zod";
import { dealFromRow, productFromRow, type DealRow, type ProductRow } from "./catalogue-store";
import { dealView, productFields } from "./catalogue-views";
import type { CatalogueProduct } from "./schemas";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { Money, fitsMinorUnits } from "../pricing/money";
import { requireClient } from "../clients/client-routes";
import { adminActor, auditStatement, parseBody, parseParams, parseQuery } from "../http/params";
import { AdminProductList, AdminProductView } from "./product-schemas";
import { AdminDealView, ClientParams, DealList, DealParams, PageQuery, SkuParams, UpsertDealRequest, UpsertProductRequest } from "../clients/schemas";
import { catalogueExamples } from "./catalogue-examples";

const PRODUCT_COLUMNS = `sku, name, product_type, currency, country, region, quotes, min_quote, max_quote, supplier, supplier_config, active, updated_at`;

type StoredProductRow = ProductRow & { updated_at: number };

interface CodeCountRow {
  sku: string;
  status: "available" | "reserved" | "sold";
  n: number;
}

function adminProductView(row: StoredProductRow, counts: CodeCountRow[]) {
  const product = productFromRow(row);
  const byStatus = { available: 0, reserved: 0, sold: 0 };
  for (const count of counts) byStatus[count.status] += count.n;
  return {
    ...productFields(product),
    supplier: product.supplier,
    supplierConfig: product.supplierConfig,
    active: product.active,
    updatedAt: row.updated_at,
    codes: product.supplier === "inventory" ? byStatus : null,
  };
}

/** The stored SKU, or 404 sku_not_found. */
export async function requireProduct(db: D1Database, sku: string): Promise<CatalogueProduct & { updatedAt: number }> {
  const row = await db.prepare(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE sku = ?1`).bind(sku).first<StoredProductRow>();
  if (row === null) fail("sku_not_found", { sku });
  return { ...productFromRow(row), updatedAt: row.updated_at };
}

async function productViews(db: D1Database, where: string, binds: unknown[], limit: number) {
  const [products, counts] = await db.batch([
    db.prepare(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE ${where} ORDER BY sku LIMIT ${limit}`).bind(...binds),
    db.prepare(
      `SELECT sku, status, COUNT(*) AS n FROM codes WHERE sku IN (SELECT sku FROM products WHERE ${where} ORDER BY sku LIMIT ${limit}) GROUP BY sku, status`,
    ).bind(...binds),
  ]);
  const countRows = counts!.results as unknown as CodeCountRow[];
  return (products!.results as unknown as StoredProductRow[]).map((row) =>
    adminProductView(
      row,
      countRows.filter((count) => count.sku === row.sku),
    ),
  );
}

/**
 * The checks zod cannot make alone: amounts within the currency's minor units, distinct quotes, min ≤ max.
 * Returns the canonical decimal strings to store (`new Money(v).toFixed()`, as stock is matched on them).
 */
function canonicalQuotes(body: z.infer<typeof UpsertProductRequest>): { quotes: string[] | null; min: string | null; max: string | null } {
  const issues: { path: string; message: string }[] = [];
  const canonical = (value: string | number, path: string): string => {
    const amount = new Money(String(value));
    if (amount.lessThanOrEqualTo(0)) issues.push({ path, message: "must be positive" });
    else if (!fitsMinorUnits(amount, body.currency)) issues.push({ path, message: `has more decimals than ${body.currency} allows` });
    return amount.toFixed();
  };
  let result: { quotes: string[] | null; min: string | null; max: string | null };
  if (body.productType === "fixed") {
    const quotes = body.quotes.map((quote, index) => canonical(quote, `quotes.${index}`));
    quotes.forEach((quote, index) => {
      if (quotes.indexOf(quote) !== index) issues.push({ path: `quotes.${index}`, message: `repeats the quote ${quote}` });
    });
    result = { quotes, min: null, max: null };
  } else {
    const min = canonical(body.minQuote, "minQuote");
    const max = canonical(body.maxQuote, "maxQuote");
    if (issues.length === 0 && new Money(min).greaterThan(max)) issues.push({ path: "maxQuote", message: "must not be below minQuote" });
    result = { quotes: null, min, max };
  }
  if (JSON.stringify(body.supplierConfig ?? {}).length > 4096) issues.push({ path: "supplierConfig", message: "is larger than 4096 bytes as JSON" });
  if (issues.length > 0) fail("invalid_request_body", { issues });
  return result;
}

/** PUT /admin/products/:sku: creates or replaces the SKU. Orders already created keep what they froze. */
export async function upsertProduct(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = await adminActor(request, context);
  const { sku } = parseParams(SkuParams, request);
  const body = await parseBody(UpsertProductRequest, request, context.env);
  const { quotes, min, max } = canonicalQuotes(body);
  const db = context.env.DB;
  const existed = (await db.prepare(`SELECT 1 FROM products WHERE sku = ?1`).bind(sku).first()) !== null;
  const active = body.active ?? true;
  await db.batch([
    db
      .prepare(
        `INSERT INTO products (${PRODUCT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (sku) DO UPDATE SET name = excluded.name, product_type = excluded.product_type, currency = excluded.currency,
           country = excluded.country, region = excluded.region, quotes = excluded.quotes, min_quote = excluded.min_quote,
           max_quote = excluded.max_quote, supplier = excluded.supplier, supplier_config = excluded.supplier_config,
           active = excluded.active, updated_at = excluded.updated_at`,
      )
      .bind(
        sku,
        body.name,
        body.productType,
        body.currency,
        body.country,
        body.region,
        quotes === null ? null : JSON.stringify(quotes),
        min,
        max,
        body.supplier,
        JSON.stringify(body.supplierConfig ?? {}),
        active ? 1 : 0,
        Date.now(),
      ),
    auditStatement(db, actor, existed ? "product.update" : "product.create", `product:${sku}`, body),
  ]);
  const [view] = await productViews(db, "sku = ?1", [sku], 1);
  return ok(existed ? "Product updated" : "Product created", view);
}

async function setActive(request: IRequest, context: RequestContext, active: boolean): Promise<Response> {
  const actor = await adminActor(request, context);
  const { sku } = parseParams(SkuParams, request);
  const db = context.env.DB;
  const product = await requireProduct(db, sku);
  if (product.active !== active) {
    await db.batch([
      db.prepare(`UPDATE products SET active = ?2, updated_at = ?3 WHERE sku = ?1`).bind(sku, active ? 1 : 0, Date.now()),
      auditStatement(db, actor, active ? "product.enable" : "product.disable", `product:${sku}`, {}),
    ]);
  }
  const [view] = await productViews(db, "sku = ?1", [sku], 1);
  return ok(active ? "Product enabled" : "Product disabled", view);
}

/** POST /admin/products/:sku/disable: new orders get 404 for the SKU; orders already created are kept. */
export function disableProduct(request: IRequest, context: RequestContext): Promise<Response> {
  return setActive(request, context, false);
}

/** POST /admin/products/:sku/enable. */
export function enableProduct(request: IRequest, context: RequestContext): Promise<Response> {
  return setActive(request, context, true);
}

/** GET /admin/products?after=&limit=: every SKU, disabled ones too, with code counts. */
export async function listAdminProducts(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const query = parseQuery(PageQuery, request);
  const limit = query.limit ?? 100;
  const views = await productViews(context.env.DB, "sku > ?1", [query.after ?? ""], limit + 1);
  const products = views.slice(0, limit);
  return ok("Products", { products, next: views.length > limit ? products[products.length - 1]!.sku : null });
}

/** GET /admin/products/:sku. */
export async function getAdminProduct(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { sku } = parseParams(SkuParams, request);
  await requireProduct(context.env.DB, sku);
  const [view] = await productViews(context.env.DB, "sku = ?1", [sku], 1);
  return ok("Product", view);
}

// Deals ------------------------------------------------------------------------------------------------------

function adminDealView(row: DealRow) {
  return { clientId: row.client_id, sku: row.sku, ...dealView(dealFromRow(row)), updatedAt: row.updated_at };
}

const DEAL_COLUMNS = `client_id, sku, deal_state, fee_amount, fee_mode, discount_amount, discount_mode, updated_at`;

/** PUT /admin/clients/:clientId/deals/:sku: the client's fee and discount on the SKU (replaces any). */
export async function upsertDeal(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = await adminActor(request, context);
  const { clientId, sku } = parseParams(DealParams, request);
  const body = await parseBody(UpsertDealRequest, request, context.env);
  const db = context.env.DB;
  await requireClient(db, clientId);
  const product = await requireProduct(db, sku);
  const issues: { path: string; message: string }[] = [];
  const adjustment = (name: "fee" | "discount") => {
    const given = body[name] ?? { amount: "0", adjustmentMode: "fixed" as const };
    const amount = new Money(String(given.amount));
    if (given.adjustmentMode === "percentage" && amount.greaterThan(100)) issues.push({ path: `${name}.amount`, message: "a percentage is at most 100" });
    if (given.adjustmentMode === "fixed" && !fitsMinorUnits(amount, product.currency)) {
      issues.push({ path: `${name}.amount`, message: `a fixed amount is in ${product.currency} and has at most its minor units` });
    }
    if (given.adjustmentMode === "percentage" && amount.decimalPlaces() > 4) issues.push({ path: `${name}.amount`, message: "a percentage has at most 4 decimals" });
    return { amount: amount.toFixed(), mode: given.adjustmentMode };
  };
  const fee = adjustment("fee");
  const discount = adjustment("discount");
  if (issues.length > 0) fail("invalid_request_body", { issues });
  const dealState = body.dealState ?? "active";
  const results = await db.batch([
    db
      .prepare(
        `INSERT INTO deals (${DEAL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (client_id, sku) DO UPDATE SET deal_state = excluded.deal_state, fee_amount = excluded.fee_amount,
           fee_mode = excluded.fee_mode, discount_amount = excluded.discount_amount, discount_mode = excluded.discount_mode,
           updated_at = excluded.updated_at
         RETURNING ${DEAL_COLUMNS}`,
      )
      .bind(clientId, sku, dealState, fee.amount, fee.mode, discount.amount, discount.mode, Date.now()),
    auditStatement(db, actor, "deal.upsert", `client:${clientId}`, { sku, dealState, fee, discount }),
  ]);
  return ok("Deal saved", adminDealView((results[0]!.results as unknown as DealRow[])[0]!));
}

/** DELETE /admin/clients/:clientId/deals/:sku: back to no fee and no discount. */
export async function deleteDeal(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = await adminActor(request, context);
  const { clientId, sku } = parseParams(DealParams, request);
  const db = context.env.DB;
  const row = await db.prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1 AND sku = ?2`).bind(clientId, sku).first<DealRow>();
  if (row === null) fail("deal_not_found", { clientId, sku });
  await db.batch([
    db.prepare(`DELETE FROM deals WHERE client_id = ?1 AND sku = ?2`).bind(clientId, sku),
    auditStatement(db, actor, "deal.delete", `client:${clientId}`, { sku }),
  ]);
  return ok("Deal deleted", adminDealView(row));
}

/** GET /admin/clients/:clientId/deals. */
export async function listDeals(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { clientId } = parseParams(ClientParams, request);
  await requireClient(context.env.DB, clientId);
  const { results } = await context.env.DB.prepare(`SELECT ${DEAL_COLUMNS} FROM deals WHERE client_id = ?1 ORDER BY sku`).bind(clientId).all<DealRow>();
  return ok("Deals", { deals: results.map(adminDealView) });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const catalogueRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/clients/:clientId/deals",
    handler: listDeals,
    operationId: "adminListDeals",
    example: catalogueExamples.adminListDeals,
    tag: "Admin: catalogue",
    summary: "A client's deals",
    description: "Every deal of the client, one per SKU, including deals switched to `dealState: none`. A SKU without a deal has no fee and no discount.",
    auth: "admin",
    params: ClientParams,
    data: DealList,
    messages: ["Deals"],
    errors: ["client_not_found"],
  },
  {
    method: "PUT",
    path: "/admin/clients/:clientId/deals/:sku",
    handler: upsertDeal,
    operationId: "adminUpsertDeal",
    example: catalogueExamples.adminUpsertDeal,
    tag: "Admin: catalogue",
    summary: "Set a client's fee and discount on a SKU",
    description: "A percentage is of the line's face value (at most 100); a fixed amount is per unit in the product's currency. Orders already created keep their deal.",
    auth: "admin",
    params: DealParams,
    body: UpsertDealRequest,
    data: AdminDealView,
    messages: ["Deal saved"],
    errors: ["client_not_found", "sku_not_found"],
  },
  {
    method: "DELETE",
    path: "/admin/clients/:clientId/deals/:sku",
    handler: deleteDeal,
    operationId: "adminDeleteDeal",
    example: catalogueExamples.adminDeleteDeal,
    tag: "Admin: catalogue",
    summary: "Remove a client's deal on a SKU",
    description: "Deletes the deal: new orders of the client for this SKU have no fee and no discount. Answers the deal as it was. Orders already created keep the prices they were created with.",
    auth: "admin",
    params: DealParams,
    data: AdminDealView,
    messages: ["Deal deleted"],
    errors: ["deal_not_found"],
  },
  {
    method: "GET",
    path: "/admin/products",
    handler: listAdminProducts,
    operationId: "adminListProducts",
    example: catalogueExamples.adminListProducts,
    tag: "Admin: catalogue",
    summary: "Every SKU, disabled ones too, with code counts",
    description: "Every SKU ordered by SKU, active and disabled, with its supplier, settings and, for inventory SKUs, code counts. Page with `after` (the `next` of the previous page) and `limit`.",
    auth: "admin",
    query: PageQuery,
    data: AdminProductList,
    messages: ["Products"],
    errors: [],
  },
  {
    method: "GET",
    path: "/admin/products/:sku",
    handler: getAdminProduct,
    operationId: "adminGetProduct",
    example: catalogueExamples.adminGetProduct,
    tag: "Admin: catalogue",
    summary: "One SKU",
    description: "A SKU as stored, active or disabled, with code counts for an inventory SKU.",
    auth: "admin",
    params: SkuParams,
    data: AdminProductView,
    messages: ["Product"],
    errors: ["sku_not_found"],
  },
  {
    method: "PUT",
    path: "/admin/products/:sku",
    handler: upsertProduct,
    operationId: "adminUpsertProduct",
    example: catalogueExamples.adminUpsertProduct,
    tag: "Admin: catalogue",
    summary: "Create or replace a SKU",
    description:
      "The whole SKU, not a patch. Quotes and bounds must be positive with at most the currency's minor units; they are stored canonically (10.50 as 10.5), which is how stock is matched to quotes. Orders already created keep what they froze.",
    auth: "admin",
    params: SkuParams,
    body: UpsertProductRequest,
    data: AdminProductView,
    messages: ["Product created", "Product updated"],
    errors: [],
  },
  {
    method: "POST",
    path: "/admin/products/:sku/disable",
    handler: disableProduct,
    operationId: "adminDisableProduct",
    example: catalogueExamples.adminDisableProduct,
    tag: "Admin: catalogue",
    summary: "Stop selling a SKU (new orders get 404; existing orders are kept)",
    description: "Takes the SKU out of GET /products; a new order naming it is 404 product_not_found. Orders already created are fulfilled as usual. Disabling a disabled SKU changes nothing.",
    auth: "admin",
    params: SkuParams,
    data: AdminProductView,
    messages: ["Product disabled"],
    errors: ["sku_not_found"],
  },
  {
    method: "POST",
    path: "/admin/products/:sku/enable",
    handler: enableProduct,
    operationId: "adminEnableProduct",
    example: catalogueExamples.adminEnableProduct,
    tag: "Admin: catalogue",
    summary: "Sell a disabled SKU again",
    description: "Puts a disabled SKU back on sale with its stored settings. Enabling an active SKU changes nothing.",
    auth: "admin",
    params: SkuParams,
    data: AdminProductView,
    messages: ["Product enabled"],
    errors: ["sku_not_found"],
  },
];
