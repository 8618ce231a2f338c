/** Operator API: redeem codes of inventory SKUs (bulk upload as JSON or CSV, stock per value). */
import { readText } from "../http/body";
import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { addCodes, uploadedCodes, type RequireProduct, type UploadFormat } from "./code-actions";
import { stockOf } from "./code-store";
import { SkuParams } from "../kernel/primitives";
import { CodeStock, UploadCodesData, UploadCodesRequest } from "./inventory-admin-schemas";
import { inventoryExamples } from "./inventory-examples";

/** An upload may be larger than other bodies: up to 10,000 codes in at most 1 MiB. */
export const CODES_UPLOAD_MAX_BYTES = 1_048_576;

/** The media type an upload is sent as (JSON when none is named), or 415 for any other. */
function uploadFormat(headers: Headers): UploadFormat {
  const mediaType = (headers.get("content-type") ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json" && mediaType !== "text/csv") {
    fail("unsupported_media_type", { accepted: ["application/json", "text/csv"], given: mediaType });
  }
  return mediaType;
}

/**
 * The body of POST /admin/products/:sku/codes, as application/json ({"codes": [{value, pin, link}]}) or
 * text/csv (header value,pin,link), for UploadCodesRequest to check: src/inventory/code-actions.ts then
 * checks the codes against the SKU and writes them, all or nothing.
 */
async function uploadBody(request: Request): Promise<unknown> {
  const format = uploadFormat(request.headers);
  return uploadedCodes(await readText(request, CODES_UPLOAD_MAX_BYTES), format);
}

/** This file's routes, each with its description in GET /openapi.json; SKUs are looked up with `requireProduct`. */
export const inventoryRoutes = (requireProduct: RequireProduct): Route[] => [
  route(
    {
      method: "GET",
      path: "/admin/products/:sku/codes",
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
    async ({ params: { sku }, env, ok }) => {
      await requireProduct(env.DB, sku);
      return ok("Code stock", { sku, byValue: await stockOf(env.DB, sku) });
    },
  ),
  route(
    {
      method: "POST",
      path: "/admin/products/:sku/codes",
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
      body: { schema: UploadCodesRequest, from: uploadBody },
      csv: true,
      data: UploadCodesData,
      messages: ["Codes added"],
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
    async ({ params: { sku }, body: { codes }, headers, caller, env, ok }) =>
      ok(
        "Codes added",
        await addCodes(env.DB, { actor: caller, requireProduct, sku, codes, format: uploadFormat(headers) }),
      ),
  ),
];
