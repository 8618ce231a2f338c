/** Operator API: redeem codes of inventory SKUs (bulk upload as JSON or CSV, stock per value). */
import { issuesOf, readText } from "../http/body";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { canonicalCodes, changedCodeTerms, codesFromCsv, duplicatesOf, uploadRefusal, type CodeProduct } from "./code-rules";
import { insertCodesStatement, stockOf, storedPins } from "./code-store";
import { auditStatement } from "../audit/audit-log";
import { SkuParams } from "../kernel/primitives";
import { adminCaller } from "../http/admin-auth";
import { parseParams } from "../http/params";
import { CodeStock, UploadCodesData, UploadCodesRequest } from "./schemas";
import { inventoryExamples } from "./inventory-examples";

/** An upload may be larger than other bodies: up to 10,000 codes in at most 1 MiB. */
export const CODES_UPLOAD_MAX_BYTES = 1_048_576;

/** The stored SKU, or 404 sku_not_found: the catalogue's lookup, handed in by the composition root (src/app.ts). */
export type RequireProduct = (db: D1Database, sku: string) => Promise<CodeProduct>;

/**
 * POST /admin/products/:sku/codes, as application/json ({"codes": [{value, pin, link}]}) or text/csv (header
 * value,pin,link). All or nothing: any invalid value is a 400 and any pin repeated in the upload or already
 * stored for the SKU a 409 listing every duplicate; otherwise every code is added, available at once. The
 * write adds nothing if the SKU's currency, type or supplier changed after the check (409 sku_changed).
 */
const uploadCodes = (requireProduct: RequireProduct): Handler => async (request, context) => {
  const actor = adminCaller(context);
  const { sku } = parseParams(SkuParams, request);
  const mediaType = (request.headers.get("content-type") ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json" && mediaType !== "text/csv") {
    fail("unsupported_media_type", { accepted: ["application/json", "text/csv"], given: mediaType });
  }
  const text = await readText(request, CODES_UPLOAD_MAX_BYTES);
  let raw: unknown;
  if (mediaType === "text/csv") {
    const fromCsv = codesFromCsv(text);
    if (!fromCsv.ok) fail("invalid_request_body", fromCsv.details);
    raw = { codes: fromCsv.codes };
  } else {
    try {
      raw = JSON.parse(text) as unknown;
    } catch (error) {
      fail("malformed_json", { reason: (error as Error).message });
    }
  }
  const parsed = UploadCodesRequest.safeParse(raw);
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  const db = context.env.DB;
  const product = await requireProduct(db, sku);
  const refused = uploadRefusal(product);
  if (refused !== null) fail("invalid_request_body", refused.details);
  const checked = canonicalCodes(product, parsed.data.codes);
  if (!checked.ok) fail("invalid_request_body", checked.details);
  const { codes } = checked;
  let duplicates = duplicatesOf(codes, await storedPins(db, sku, codes));
  if (duplicates.length > 0) fail("duplicate_codes", { duplicates });
  try {
    await db.batch([
      insertCodesStatement(db, sku, codes, Date.now(), product),
      auditStatement(db, actor, "inventory.upload", `product:${sku}`, {
        added: codes.length,
        values: [...new Set(codes.map((code) => code.value))],
        format: mediaType,
      }),
    ]);
  } catch (error) {
    // The SKU changed its currency, type or supplier since the codes were checked: nothing was added.
    const changed = changedCodeTerms(product, await requireProduct(db, sku));
    if (changed.length > 0) fail("sku_changed", { sku, changed });
    // Another upload stored one of these pins in the meantime: report it like any other duplicate.
    duplicates = duplicatesOf(codes, await storedPins(db, sku, codes));
    if (duplicates.length > 0) fail("duplicate_codes", { duplicates });
    throw error;
  }
  return ok("Codes added", { sku, added: codes.length, stock: await stockOf(db, sku) });
};

/** GET /admin/products/:sku/codes: code counts per value and status (pins are never listed). */
const getCodeStock = (requireProduct: RequireProduct): Handler => async (request, context) => {
  const { sku } = parseParams(SkuParams, request);
  await requireProduct(context.env.DB, sku);
  return ok("Code stock", { sku, byValue: await stockOf(context.env.DB, sku) });
};

/** This file's routes, each with its description in GET /openapi.json; SKUs are looked up with `requireProduct`. */
export const inventoryRoutes = (requireProduct: RequireProduct): Route[] => [
  {
    method: "GET",
    path: "/admin/products/:sku/codes",
    handler: getCodeStock(requireProduct),
    operationId: "adminGetCodeStock",
    example: inventoryExamples.adminGetCodeStock,
    tag: "Admin: inventory",
    summary: "Code counts of a SKU per value and status",
    description: "How many codes of an inventory SKU are available, reserved by orders not yet fulfilled, and sold, per face value. Pins are never listed.",
    auth: "admin",
    role: "viewer",
    params: SkuParams,
    data: CodeStock,
    messages: ["Code stock"],
    errors: ["sku_not_found"],
  },
  {
    method: "POST",
    path: "/admin/products/:sku/codes",
    handler: uploadCodes(requireProduct),
    operationId: "adminUploadCodes",
    example: inventoryExamples.adminUploadCodes,
    tag: "Admin: inventory",
    summary: "Add redeem codes to an inventory SKU (JSON or CSV)",
    description:
      "All or nothing, up to 10,000 codes in 1 MiB. As `text/csv`: a header row naming the columns value, pin and link (any order), then one code per row; fields may be double-quoted. Values must be quotes of the SKU. Any pin repeated in the upload or already stored for the SKU is 409 duplicate_codes with `details.duplicates` listing each ({pin, reason: repeated_in_upload | already_stored, indexes}). If the SKU's currency, type or supplier changed while the upload was checked, nothing is added: 409 sku_changed.",
    auth: "admin",
    role: "operator",
    params: SkuParams,
    body: UploadCodesRequest,
    csv: true,
    data: UploadCodesData,
    messages: ["Codes added"],
    errors: ["sku_not_found", "duplicate_codes", "sku_changed", "unsupported_media_type"],
  },
];
