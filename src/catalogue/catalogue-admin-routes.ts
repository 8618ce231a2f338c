/** Operator API: SKUs (upsert, disable, enable, list) and per-client deals. */
import type { IRequest } from "itty-router";
import { DEFAULT_PAGE_SIZE, pageOf } from "../kernel/paging";
import {
  dealFromRow,
  dealsOf,
  productFromRow,
  productsAfter,
  requireProduct,
  productWithCodeCounts,
  upsertProductStatement,
  type DealRow,
  type StoredProductRow,
} from "./catalogue-store";
import type { CodeCountRow } from "../inventory/code-store";
import { canonicalQuotes, changedStockTerms } from "./catalogue-rules";
import { adminDealView, adminProductView } from "./catalogue-views";
import { fail } from "../kernel/failures";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { requireClient } from "../clients/client-store";
import { auditStatement } from "../audit/audit-store";
import { ClientParams } from "../clients/client-admin-schemas";
import { adminCaller } from "../http/admin-auth";
import { PageQuery, parseBody, parseParams, parseQuery } from "../http/params";
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
 * PUT /admin/products/:sku: creates or replaces the SKU. Orders already created keep what they froze. The
 * check of the stock terms is a read before the write; the write itself is refused by the database when
 * codes arrived in between (a trigger), and that refusal is answered as the same 409.
 */
export async function upsertProduct(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const { sku } = parseParams(SkuParams, request);
  const body = await parseBody(UpsertProductRequest, request, context.env);
  const checked = canonicalQuotes(body);
  if (!checked.ok) fail("invalid_request_body", { issues: checked.issues });
  const { quotes, min, max } = checked;
  const db = context.env.DB;
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
      auditStatement(db, actor, existed ? "product.update" : "product.create", `product:${sku}`, body),
    ]);
  } catch (error) {
    await refuseStockTermsChange(db, sku, body);
    throw error;
  }
  return ok(existed ? "Product updated" : "Product created", viewOf((await productWithCodeCounts(db, sku))!));
}

async function setActive(request: IRequest, context: RequestContext, active: boolean): Promise<Response> {
  const actor = adminCaller(context);
  const { sku } = parseParams(SkuParams, request);
  const db = context.env.DB;
  await setProductActive(db, actor, sku, active);
  return ok(active ? "Product enabled" : "Product disabled", viewOf((await productWithCodeCounts(db, sku))!));
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
  const query = parseQuery(PageQuery, request);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const page = pageOf(await productsAfter(context.env.DB, query.after ?? "", limit), limit, ({ row }) => row.sku);
  return ok("Products", { products: page.items.map(viewOf), next: page.next });
}

/** GET /admin/products/:sku. */
export async function getAdminProduct(request: IRequest, context: RequestContext): Promise<Response> {
  const { sku } = parseParams(SkuParams, request);
  const found = await productWithCodeCounts(context.env.DB, sku);
  if (found === undefined) fail("sku_not_found", { sku });
  return ok("Product", viewOf(found));
}

// Deals ------------------------------------------------------------------------------------------------------

function adminDealViewOf(row: DealRow) {
  return adminDealView(row.client_id, row.sku, dealFromRow(row), row.updated_at);
}

/** PUT /admin/clients/:clientId/deals/:sku: the client's fee and discount on the SKU (replaces any). */
export async function upsertDeal(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const { clientId, sku } = parseParams(DealParams, request);
  const body = await parseBody(UpsertDealRequest, request, context.env);
  return ok("Deal saved", adminDealViewOf(await deals.upsertDeal(context.env, actor, clientId, sku, body)));
}

/** DELETE /admin/clients/:clientId/deals/:sku: back to no fee and no discount. */
export async function deleteDeal(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const { clientId, sku } = parseParams(DealParams, request);
  return ok("Deal deleted", adminDealViewOf(await deals.deleteDeal(context.env, actor, clientId, sku)));
}

/** GET /admin/clients/:clientId/deals. */
export async function listDeals(request: IRequest, context: RequestContext): Promise<Response> {
  const { clientId } = parseParams(ClientParams, request);
  await requireClient(context.env.DB, clientId);
  return ok("Deals", { deals: (await dealsOf(context.env.DB, clientId)).map(adminDealViewOf) });
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
    description:
      "Every deal of the client, one per SKU, including deals switched to `dealState: none`. A SKU without a deal has no fee and no discount.",
    auth: "admin",
    role: "viewer",
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
  {
    method: "DELETE",
    path: "/admin/clients/:clientId/deals/:sku",
    handler: deleteDeal,
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
  {
    method: "GET",
    path: "/admin/products",
    handler: listAdminProducts,
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
    role: "viewer",
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
      "The whole SKU, not a patch. Quotes and bounds must be positive with at most the currency's minor units; they are stored canonically (10.50 as 10.5), which is how stock is matched to quotes. Orders already created keep what they froze. While the SKU has codes on sale or reserved, its currency, product type and supplier cannot change (409 sku_has_unsold_codes with the counts); its name, quotes, country, region, settings and `active` can.",
    auth: "admin",
    role: "admin",
    params: SkuParams,
    body: UpsertProductRequest,
    data: AdminProductView,
    messages: ["Product created", "Product updated"],
    errors: ["sku_has_unsold_codes"],
  },
  {
    method: "POST",
    path: "/admin/products/:sku/disable",
    handler: disableProduct,
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
    role: "operator",
    params: SkuParams,
    data: AdminProductView,
    messages: ["Product enabled"],
    errors: ["sku_not_found"],
  },
];
