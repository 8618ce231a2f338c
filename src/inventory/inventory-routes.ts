/** Operator API: redeem codes of inventory SKUs (bulk upload as JSON or CSV, stock per value). */
import type { IRequest } from "itty-router";
import type { CatalogueProduct } from "../catalogue/schemas";
import { issuesOf, readText } from "../http/body";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { checkQuote } from "../pricing/line-pricing";
import { Money, toAmountNumber } from "../pricing/money";
import { requireProduct } from "../catalogue/catalogue-admin-routes";
import { parseCsv } from "./csv";
import { adminActor, auditStatement, parseParams } from "../http/params";
import { CodeStock, SkuParams, UploadCodesData, UploadCodesRequest } from "../clients/schemas";
import { inventoryExamples } from "./inventory-examples";

/** An upload may be larger than other bodies: up to 10,000 codes in at most 1 MiB. */
export const CODES_UPLOAD_MAX_BYTES = 1_048_576;

interface CanonicalCode {
  value: string;
  pin: string;
  link: string;
}

const CSV_COLUMNS = ["value", "pin", "link"] as const;

/** CSV with a header row naming value, pin and link (any order, nothing else) into the JSON upload shape. */
function codesFromCsv(text: string): { codes: Record<string, string>[] } {
  const parsed = parseCsv(text);
  if (!parsed.ok) fail("invalid_request_body", { reason: `CSV line ${parsed.line}: ${parsed.message}` });
  const [header, ...rows] = parsed.rows;
  const columns = (header ?? []).map((name) => name.trim().toLowerCase());
  const missing = CSV_COLUMNS.filter((name) => !columns.includes(name));
  const unknown = columns.filter((name) => !(CSV_COLUMNS as readonly string[]).includes(name));
  if (header === undefined || missing.length > 0 || unknown.length > 0 || new Set(columns).size !== columns.length) {
    fail("invalid_request_body", { reason: "the first CSV row must name the columns value, pin and link, each once", missing, unknown });
  }
  const codes = rows.map((row, index) => {
    if (row.length !== columns.length) {
      fail("invalid_request_body", { reason: `CSV data row ${index + 1} has ${row.length} fields, the header ${columns.length}`, index });
    }
    return Object.fromEntries(columns.map((name, column) => [name, row[column]!]));
  });
  return { codes };
}

/** Values checked against the SKU (a fixed SKU's quotes, a range SKU's bounds) and canonicalised. */
function canonicalCodes(product: CatalogueProduct, codes: { value: string | number; pin: string; link: string }[]): CanonicalCode[] {
  const issues: { path: string; message: string }[] = [];
  const canonical = codes.map((code, index) => {
    const value = new Money(String(code.value));
    const verdict = checkQuote(product, product.productType, value);
    if (verdict !== "ok") {
      issues.push({
        path: `codes.${index}.value`,
        message:
          product.productType === "fixed"
            ? `${value.toFixed()} is not one of the quotes of ${product.sku} (${(product.quotes ?? []).join(", ")})`
            : `${value.toFixed()} is not within ${product.minQuote}..${product.maxQuote} ${product.currency} with its minor units`,
      });
    }
    return { value: value.toFixed(), pin: code.pin, link: code.link };
  });
  if (issues.length > 0) fail("invalid_request_body", { issues: issues.slice(0, 100), count: issues.length });
  return canonical;
}

type Duplicate = { pin: string; reason: "repeated_in_upload" | "already_stored"; indexes: number[] };

async function duplicatesOf(db: D1Database, sku: string, codes: CanonicalCode[]): Promise<Duplicate[]> {
  const positions = new Map<string, number[]>();
  codes.forEach((code, index) => positions.set(code.pin, [...(positions.get(code.pin) ?? []), index]));
  const duplicates: Duplicate[] = [];
  for (const [pin, indexes] of positions) if (indexes.length > 1) duplicates.push({ pin, reason: "repeated_in_upload", indexes });
  const { results } = await db
    .prepare(`SELECT pin FROM codes WHERE sku = ?1 AND pin IN (SELECT value FROM json_each(?2))`)
    .bind(sku, JSON.stringify([...positions.keys()]))
    .all<{ pin: string }>();
  for (const { pin } of results) duplicates.push({ pin, reason: "already_stored", indexes: positions.get(pin)! });
  return duplicates;
}

async function stockOf(db: D1Database, sku: string) {
  const { results } = await db
    .prepare(`SELECT value, status, COUNT(*) AS n FROM codes WHERE sku = ?1 GROUP BY value, status`)
    .bind(sku)
    .all<{ value: string; status: "available" | "reserved" | "sold"; n: number }>();
  const byValue = new Map<string, { value: number; available: number; reserved: number; sold: number }>();
  for (const row of results) {
    const entry = byValue.get(row.value) ?? { value: toAmountNumber(row.value), available: 0, reserved: 0, sold: 0 };
    entry[row.status] += row.n;
    byValue.set(row.value, entry);
  }
  return [...byValue.values()].sort((a, b) => a.value - b.value);
}

/**
 * POST /admin/products/:sku/codes, as application/json ({"codes": [{value, pin, link}]}) or text/csv (header
 * value,pin,link). All or nothing: any invalid value is a 400 and any pin repeated in the upload or already
 * stored for the SKU a 409 listing every duplicate; otherwise every code is added, available at once.
 */
export async function uploadCodes(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = await adminActor(request, context);
  const { sku } = parseParams(SkuParams, request);
  const mediaType = (request.headers.get("content-type") ?? "application/json").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json" && mediaType !== "text/csv") {
    fail("unsupported_media_type", { accepted: ["application/json", "text/csv"], given: mediaType });
  }
  const text = await readText(request, CODES_UPLOAD_MAX_BYTES);
  let raw: unknown;
  if (mediaType === "text/csv") {
    raw = codesFromCsv(text);
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
  if (product.supplier !== "inventory") {
    fail("invalid_request_body", { reason: `${sku} is supplied by ${product.supplier}, not from uploaded codes` });
  }
  const codes = canonicalCodes(product, parsed.data.codes);
  let duplicates = await duplicatesOf(db, sku, codes);
  if (duplicates.length > 0) fail("duplicate_codes", { duplicates });
  const now = Date.now();
  try {
    await db.batch([
      db
        .prepare(
          `INSERT INTO codes (sku, value, pin, link, created_at)
           SELECT ?1, json_extract(j.value, '$.value'), json_extract(j.value, '$.pin'), json_extract(j.value, '$.link'), ?3
             FROM json_each(?2) AS j ORDER BY j.key`,
        )
        .bind(sku, JSON.stringify(codes), now),
      auditStatement(db, actor, "inventory.upload", `product:${sku}`, {
        added: codes.length,
        values: [...new Set(codes.map((code) => code.value))],
        format: mediaType,
      }),
    ]);
  } catch (error) {
    // Another upload stored one of these pins in the meantime: report it like any other duplicate.
    duplicates = await duplicatesOf(db, sku, codes);
    if (duplicates.length > 0) fail("duplicate_codes", { duplicates });
    throw error;
  }
  return ok("Codes added", { sku, added: codes.length, stock: await stockOf(db, sku) });
}

/** GET /admin/products/:sku/codes: code counts per value and status (pins are never listed). */
export async function getCodeStock(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const { sku } = parseParams(SkuParams, request);
  await requireProduct(context.env.DB, sku);
  return ok("Code stock", { sku, byValue: await stockOf(context.env.DB, sku) });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const inventoryRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/products/:sku/codes",
    handler: getCodeStock,
    operationId: "adminGetCodeStock",
    example: inventoryExamples.adminGetCodeStock,
    tag: "Admin: inventory",
    summary: "Code counts of a SKU per value and status",
    description: "How many codes of an inventory SKU are available, reserved by orders not yet fulfilled, and sold, per face value. Pins are never listed.",
    auth: "admin",
    params: SkuParams,
    data: CodeStock,
    messages: ["Code stock"],
    errors: ["sku_not_found"],
  },
  {
    method: "POST",
    path: "/admin/products/:sku/codes",
    handler: uploadCodes,
    operationId: "adminUploadCodes",
    example: inventoryExamples.adminUploadCodes,
    tag: "Admin: inventory",
    summary: "Add redeem codes to an inventory SKU (JSON or CSV)",
    description:
      "All or nothing, up to 10,000 codes in 1 MiB. As `text/csv`: a header row naming the columns value, pin and link (any order), then one code per row; fields may be double-quoted. Values must be quotes of the SKU. Any pin repeated in the upload or already stored for the SKU is 409 duplicate_codes with `details.duplicates` listing each ({pin, reason: repeated_in_upload | already_stored, indexes}).",
    auth: "admin",
    params: SkuParams,
    body: UploadCodesRequest,
    csv: true,
    data: UploadCodesData,
    messages: ["Codes added"],
    errors: ["sku_not_found", "duplicate_codes", "unsupported_media_type"],
  },
];
