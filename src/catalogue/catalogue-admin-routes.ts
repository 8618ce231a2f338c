/** Operator API: SKUs (upsert, disable, enable, list) and per-client deals. */
import { DEFAULT_PAGE_SIZE, pageOf } from "../kernel/paging";
import { serviceMode } from "../kernel/service-mode";
import {
  dealFromRow,
  dealsOf,
  productFromRow,
  productsAfter,
  productWithCodeCounts,
  upsertProductStatement,
  type DealRow,
  type StoredProductRow,
} from "./catalogue-store";
import type { CodeCountRow } from "../inventory/code-store";
import { canonicalQuotes, changedStockTerms } from "./catalogue-rules";
import { adminDealView, adminProductView } from "./catalogue-views";
import { fail } from "../kernel/failures";
import { route, type AdminCaller, type Route } from "../http/route";
import { requireClient } from "../clients/client-store";
import { auditStatement } from "../audit/audit-store";
import { ClientParams } from "../clients/client-admin-schemas";
import { PageQuery } from "../http/params";
import { SkuParams } from "../kernel/primitives";
import {
  AdminDealView,
  AdminProductList,
  AdminProductView,
  DealList,
  DealParams,
  UpsertDealRequest,
  UpsertProductRequest,
} from "./catalogue-admin-schemas";
import { catalogueExamples } from "./catalogue-examples";
import { setProductActive } from "./product-actions";
import * as deals from "./deal-actions";

function adminProductViewOf(row: StoredProductRow, counts: CodeCountRow[]) {
  return adminProductView(productFromRow(row), row.updated_at, counts);
}

function viewOf(found: { row: StoredProductRow; counts: CodeCountRow[] }) {
  return adminProductViewOf(found.row, found.counts);
}

/**
 * 409 sku_has_unsold_codes when replacing the stored SKU with `next` changes its currency, type or supplier
 * while it has codes on sale or reserved; answers whether the SKU exists. Codes sold are delivered and do
 * not count.
 */
async function refuseStockTermsChange(
  db: D1Database,
  sku: string,
  next: { currency: string; productType: string; supplier: string },
): Promise<boolean> {
  const found = await productWithCodeCounts(db, sku);
  if (found === undefined) return false;
  const changed = changedStockTerms(productFromRow(found.row), next);
  const unsold = found.counts.find((count) => count.status === "available")?.n ?? 0;
  const reserved = found.counts.find((count) => count.status === "reserved")?.n ?? 0;
  if (changed.length > 0 && unsold + reserved > 0) fail("sku_has_unsold_codes", { sku, changed, unsold, reserved });
  return true;
}

/**
 * Creates or replaces the SKU. Orders already created keep what they froze. The check of the stock terms
 * is a read before the write; the write itself is refused by the database when codes arrived in between (a
 * trigger), and that refusal is answered as the same 409.
 */
async function saveProduct(env: Env, caller: AdminCaller, sku: string, body: UpsertProductRequest) {
  const checked = canonicalQuotes(body);
  if (!checked.ok) fail("invalid_request_body", { issues: checked.issues });
  // Live never sells the sandbox supplier's codes (predictable hashes): such a SKU is refused here.
  if (body.supplier === "sandbox" && serviceMode(env) === "live")
    fail("invalid_request_body", {
      issues: [{ path: "supplier", message: "the sandbox supplier exists only in the sandbox" }],
    });
  const { quotes, min, max } = checked;
  const db = env.DB;
  const existed = await refuseStockTermsChange(db, sku, body);
  const active = body.active ?? true;
  const { productType, supplier } = body;
  try {
    await db.batch([
      upsertProductStatement(
        db,
        {
          ...body,
          sku,
          productType,
          supplier,
          quotes,
          minQuote: min,
          maxQuote: max,
          supplierConfig: body.supplierConfig ?? {},
          active,
        },
        Date.now(),
      ),
      auditStatement(db, caller, existed ? "product.update" : "product.create", `product:${sku}`, body),
    ]);
  } catch (error) {
    await refuseStockTermsChange(db, sku, body);
    throw error;
  }
  return { existed, product: viewOf((await productWithCodeCounts(db, sku))!) };
}

/** The SKU on sale again, or not: new orders get 404 for a disabled SKU; orders already created are kept. */
async function setActive(env: Env, caller: AdminCaller, sku: string, active: boolean) {
  await setProductActive(env.DB, caller, sku, active);
  return viewOf((await productWithCodeCounts(env.DB, sku))!);
}

// Deals ------------------------------------------------------------------------------------------------------

function adminDealViewOf(row: DealRow) {
  return adminDealView(row.client_id, row.sku, dealFromRow(row), row.updated_at);
}

/** This file's routes, each with its description in GET /openapi.json. */
export const catalogueRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/clients/:clientId/deals",
      operationId: "adminListDeals",
      example: catalogueExamples.adminListDeals,
      tag: "Admin: catalogue",
      summary: "A client's deals",
      description:
        "Every deal of the client, one per SKU, including deals switched to `dealState: none`. A SKU without a deal has no fee and no discount.",
      auth: "admin",
      role: "viewer",
      params: ClientParams,
      data: DealList,
      messages: ["Deals"],
      errors: ["client_not_found"],
    },
    async ({ params: { clientId }, env, ok }) => {
      await requireClient(env.DB, clientId);
      return ok("Deals", { deals: (await dealsOf(env.DB, clientId)).map(adminDealViewOf) });
    },
  ),
  route(
    {
      method: "PUT",
      path: "/admin/clients/:clientId/deals/:sku",
      operationId: "adminUpsertDeal",
      example: catalogueExamples.adminUpsertDeal,
      tag: "Admin: catalogue",
      summary: "Set a client's fee and discount on a SKU",
      description:
        "A percentage is of the line's face value (at most 100); a fixed amount is per unit in the product's currency. Orders already created keep their deal.",
      auth: "admin",
      role: "admin",
      params: DealParams,
      body: UpsertDealRequest,
      data: AdminDealView,
      messages: ["Deal saved"],
      errors: ["client_not_found", "sku_not_found"],
    },
    async ({ params: { clientId, sku }, body, caller, env, ok }) =>
      ok("Deal saved", adminDealViewOf(await deals.upsertDeal(env, caller, clientId, sku, body))),
  ),
  route(
    {
      method: "DELETE",
      path: "/admin/clients/:clientId/deals/:sku",
      operationId: "adminDeleteDeal",
      example: catalogueExamples.adminDeleteDeal,
      tag: "Admin: catalogue",
      summary: "Remove a client's deal on a SKU",
      description:
        "Deletes the deal: new orders of the client for this SKU have no fee and no discount. Answers the deal as it was. Orders already created keep the prices they were created with.",
      auth: "admin",
      role: "admin",
      params: DealParams,
      data: AdminDealView,
      messages: ["Deal deleted"],
      errors: ["deal_not_found"],
    },
    async ({ params: { clientId, sku }, caller, env, ok }) =>
      ok("Deal deleted", adminDealViewOf(await deals.deleteDeal(env, caller, clientId, sku))),
  ),
  route(
    {
      method: "GET",
      path: "/admin/products",
      operationId: "adminListProducts",
      example: catalogueExamples.adminListProducts,
      tag: "Admin: catalogue",
      summary: "Every SKU, disabled ones too, with code counts",
      description:
        "Every SKU ordered by SKU, active and disabled, with its supplier, settings and, for inventory SKUs, code counts. Page with `after` (the `next` of the previous page) and `limit`.",
      auth: "admin",
      role: "viewer",
      query: PageQuery,
      data: AdminProductList,
      messages: ["Products"],
      errors: [],
    },
    async ({ query, env, ok }) => {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const page = pageOf(await productsAfter(env.DB, query.after ?? "", limit), limit, ({ row }) => row.sku);
      return ok("Products", { products: page.items.map(viewOf), next: page.next });
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/products/:sku",
      operationId: "adminGetProduct",
      example: catalogueExamples.adminGetProduct,
      tag: "Admin: catalogue",
      summary: "One SKU",
      description: "A SKU as stored, active or disabled, with code counts for an inventory SKU.",
      auth: "admin",
      role: "viewer",
      params: SkuParams,
      data: AdminProductView,
      messages: ["Product"],
      errors: ["sku_not_found"],
    },
    async ({ params: { sku }, env, ok }) => {
      const found = await productWithCodeCounts(env.DB, sku);
      if (found === undefined) fail("sku_not_found", { sku });
      return ok("Product", viewOf(found));
    },
  ),
  route(
    {
      method: "PUT",
      path: "/admin/products/:sku",
      operationId: "adminUpsertProduct",
      example: catalogueExamples.adminUpsertProduct,
      tag: "Admin: catalogue",
      summary: "Create or replace a SKU",
      description:
        "The whole SKU, not a patch. Quotes and bounds must be positive with at most the currency's minor units; they are stored canonically (10.50 as 10.5), which is how stock is matched to quotes. Orders already created keep what they froze. While the SKU has codes on sale or reserved, its currency, product type and supplier cannot change (409 sku_has_unsold_codes with the counts); its name, quotes, country, region, settings and `active` can.",
      auth: "admin",
      role: "admin",
      params: SkuParams,
      body: UpsertProductRequest,
      data: AdminProductView,
      messages: ["Product created", "Product updated"],
      errors: ["sku_has_unsold_codes"],
    },
    async ({ params: { sku }, body, caller, env, ok }) => {
      const { existed, product } = await saveProduct(env, caller, sku, body);
      return ok(existed ? "Product updated" : "Product created", product);
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/products/:sku/disable",
      operationId: "adminDisableProduct",
      example: catalogueExamples.adminDisableProduct,
      tag: "Admin: catalogue",
      summary: "Stop selling a SKU (new orders get 404; existing orders are kept)",
      description:
        "Takes the SKU out of GET /products; a new order naming it is 404 product_not_found. Orders already created are fulfilled as usual. Disabling a disabled SKU changes nothing.",
      auth: "admin",
      role: "operator",
      params: SkuParams,
      data: AdminProductView,
      messages: ["Product disabled"],
      errors: ["sku_not_found"],
    },
    async ({ params: { sku }, caller, env, ok }) => ok("Product disabled", await setActive(env, caller, sku, false)),
  ),
  route(
    {
      method: "POST",
      path: "/admin/products/:sku/enable",
      operationId: "adminEnableProduct",
      example: catalogueExamples.adminEnableProduct,
      tag: "Admin: catalogue",
      summary: "Sell a disabled SKU again",
      description: "Puts a disabled SKU back on sale with its stored settings. Enabling an active SKU changes nothing.",
      auth: "admin",
      role: "operator",
      params: SkuParams,
      data: AdminProductView,
      messages: ["Product enabled"],
      errors: ["sku_not_found"],
    },
    async ({ params: { sku }, caller, env, ok }) => ok("Product enabled", await setActive(env, caller, sku, true)),
  ),
];
