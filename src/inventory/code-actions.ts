/**
 * An upload of redeem codes, whichever way it came (POST /admin/products/:sku/codes, or the console's
 * stock page): read as JSON or CSV, checked, written all or nothing with its audit row in one D1 batch.
 * A refusal is thrown as the API's error (fail), whose details name the rows at fault (refusedRows).
 */
import { issuesOf } from "../http/body";
import { fail } from "../kernel/failures";
import { auditStatement } from "../audit/audit-store";
import {
  canonicalCodes,
  changedCodeTerms,
  codesFromCsv,
  duplicatesOf,
  uploadRefusal,
  type CodeProduct,
} from "./code-rules";
import { insertCodesStatement, stockOf, storedPins } from "./code-store";
import { UploadCodesRequest } from "./inventory-admin-schemas";

/** The stored SKU, or 404 sku_not_found: the catalogue's lookup, handed in by its caller. */
export type RequireProduct = (db: D1Database, sku: string) => Promise<CodeProduct>;

/** Who the upload's audit row names, as the audit log takes it. */
export type UploadActor = Parameters<typeof auditStatement>[1];

export type UploadFormat = "application/json" | "text/csv";

/**
 * An upload's `text` (JSON {"codes": [...]} or CSV with a header naming value, pin and link) as what
 * UploadCodesRequest checks: a CSV that cannot be read is a 400 naming its rows, JSON that cannot be read
 * is 400 malformed_json.
 */
export function uploadedCodes(text: string, format: UploadFormat): unknown {
  if (format === "text/csv") {
    const fromCsv = codesFromCsv(text);
    if (!fromCsv.ok) fail("invalid_request_body", fromCsv.details);
    return { codes: fromCsv.codes };
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    fail("malformed_json", { reason: (error as Error).message });
  }
}

/** Adds the codes of `text` to the SKU, as addCodes does, once read and checked by their schema. */
export async function uploadCodes(db: D1Database, { text, ...upload }: Omit<CodesToAdd, "codes"> & { text: string }) {
  const parsed = UploadCodesRequest.safeParse(uploadedCodes(text, upload.format));
  if (!parsed.success) fail("invalid_request_body", issuesOf(parsed.error));
  return addCodes(db, { ...upload, codes: parsed.data.codes });
}

/** An upload read and checked by its schema: its codes as sent, for the SKU, by the actor, in `format`. */
export interface CodesToAdd {
  actor: UploadActor;
  requireProduct: RequireProduct;
  sku: string;
  codes: UploadCodesRequest["codes"];
  format: UploadFormat;
}

/**
 * Adds the codes to the SKU. All or nothing: any invalid row is a 400 and any pin repeated in the upload
 * or already stored a 409 listing every duplicate; the write adds nothing if the SKU's currency, type or
 * supplier changed after the check (409 sku_changed).
 */
export async function addCodes(db: D1Database, { actor, requireProduct, sku, codes: sent, format }: CodesToAdd) {
  const product = await requireProduct(db, sku);
  const refused = uploadRefusal(product);
  if (refused !== null) fail("invalid_request_body", refused.details);
  const checked = canonicalCodes(product, sent);
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
        format,
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
  return { sku, added: codes.length, stock: await stockOf(db, sku) };
}
