/** Operator API: redeem codes of inventory SKUs (bulk upload as JSON or CSV, stock per value). */
import { readText } from "../http/body";
import { fail } from "../kernel/failures";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { uploadCodes, type RequireProduct } from "./code-actions";
import { stockOf } from "./code-store";
import { SkuParams } from "../kernel/primitives";
import { adminCaller } from "../http/admin-auth";
import { parseParams } from "../http/params";
import { CodeStock, UploadCodesData, UploadCodesRequest } from "./inventory-admin-schemas";
import { inventoryExamples } from "./inventory-examples";

/** An upload may be larger than other bodies: up to 10,000 codes in at most 1 MiB. */
export const CODES_UPLOAD_MAX_BYTES = 1_048_576;

/**
 * POST /admin/products/:sku/codes, as application/json ({"codes": [{value, pin, link}]}) or text/csv (header
 * value,pin,link): src/inventory/code-actions.ts checks and writes it, all or nothing.
 */
const uploadCodesRoute =
  (requireProduct: RequireProduct): Handler =>
  async (request, context) => {
    const actor = adminCaller(context);
    const { sku } = parseParams(SkuParams, request);
    const mediaType = (request.headers.get("content-type") ?? "application/json").split(";")[0]!.trim().toLowerCase();
    if (mediaType !== "application/json" && mediaType !== "text/csv") {
      fail("unsupported_media_type", { accepted: ["application/json", "text/csv"], given: mediaType });
    }
    const text = await readText(request, CODES_UPLOAD_MAX_BYTES);
    return ok("Codes added", await uploadCodes(context.env.DB, actor, requireProduct, sku, text, mediaType));
  };

/** GET /admin/products/:sku/codes: code counts per value and status (pins are never listed). */
const getCodeStock =
  (requireProduct: RequireProduct): Handler =>
  async (request, context) => {
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
    description:
      "How many codes of an inventory SKU are available, reserved by orders not yet fulfilled, and sold, per face value. Pins are never listed.",
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
    handler: uploadCodesRoute(requireProduct),
    operationId: "adminUploadCodes",
    example: inventoryExamples.adminUploadCodes,
    tag: "Admin: inventory",
    summary: "Add redeem codes to an inventory SKU (JSON or CSV)",
    description:
      "All or nothing, up to 10,000 codes in 1 MiB. As `text/csv`: a header row naming the columns value, pin " +
      "and link (any order), then one code per row; fields may be double-quoted. Values must be quotes of the SKU.",
    auth: "admin",
    role: "operator",
    params: SkuParams,
    body: UploadCodesRequest,
    csv: true,
    data: UploadCodesData,
    messages: ["Codes added"],
    errors: ["sku_not_found", "duplicate_codes", "sku_changed", "unsupported_media_type"],
    checks: [
      { when: "The body's media type: JSON or CSV", codes: ["unsupported_media_type"] },
      { when: "The body: its shape, or a CSV row", codes: ["malformed_json", "invalid_request_body"] },
      { when: "The SKU exists", codes: ["sku_not_found"] },
      { when: "Each value is a quote of the SKU", codes: ["invalid_request_body"] },
      {
        when: "Each pin is new: not repeated in the upload, not stored for the SKU (`details.duplicates` lists each)",
        codes: ["duplicate_codes"],
      },
      {
        when: "The SKU's currency, type and supplier did not change while the upload was checked",
        codes: ["sku_changed"],
      },
    ],
  },
];
