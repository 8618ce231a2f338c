/**
 * The operator's rules for uploading redeem codes, as pure functions: the CSV form of an upload, the SKUs
 * that take codes, values checked against the SKU and made canonical, and the duplicates that refuse an upload. No I/O: the pins
 * already stored come from src/inventory/code-store.ts.
 */
import type { QuotedProduct } from "../pricing/line-pricing";
import { checkQuote } from "../pricing/line-pricing";
import { Money } from "../pricing/money";
import { parseCsv } from "./csv";

/** What the rules need to know of a SKU: which values it sells and who supplies it. */
export interface CodeProduct extends QuotedProduct {
  sku: string;
  supplier: string;
}

/** A code as stored: its value a canonical decimal string (10.50 as "10.5"), matched to the SKU's quotes. */
export interface CanonicalCode {
  value: string;
  pin: string;
  link: string;
}

/** What gives a SKU's codes their worth, besides their value: the SKU's currency, type and supplier. */
export type CodeTerms = Pick<CodeProduct, "currency" | "productType" | "supplier">;

/** The terms that differ between the SKU the codes were checked against and the SKU as it is now. */
export function changedCodeTerms(checked: CodeTerms, now: CodeTerms): ("currency" | "productType" | "supplier")[] {
  return (["currency", "productType", "supplier"] as const).filter((term) => checked[term] !== now[term]);
}

export type Duplicate = { pin: string; reason: "repeated_in_upload" | "already_stored"; indexes: number[] };

/** Why an upload is refused as a 400: the `details` of invalid_request_body. */
export type Refusal = { ok: false; details: Record<string, unknown> };

const CSV_COLUMNS = ["value", "pin", "link"] as const;

/** CSV with a header row naming value, pin and link (any order, nothing else) into the JSON upload's codes. */
export function codesFromCsv(text: string): { ok: true; codes: Record<string, string>[] } | Refusal {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { ok: false, details: { reason: `CSV line ${parsed.line}: ${parsed.message}` } };
  const [header, ...rows] = parsed.rows;
  const columns = (header ?? []).map((name) => name.trim().toLowerCase());
  const missing = CSV_COLUMNS.filter((name) => !columns.includes(name));
  const unknown = columns.filter((name) => !(CSV_COLUMNS as readonly string[]).includes(name));
  if (header === undefined || missing.length > 0 || unknown.length > 0 || new Set(columns).size !== columns.length) {
    return {
      ok: false,
      details: { reason: "the first CSV row must name the columns value, pin and link, each once", missing, unknown },
    };
  }
  const codes: Record<string, string>[] = [];
  for (const [index, row] of rows.entries()) {
    if (row.length !== columns.length) {
      return {
        ok: false,
        details: { reason: `CSV data row ${index + 1} has ${row.length} fields, the header ${columns.length}`, index },
      };
    }
    codes.push(Object.fromEntries(columns.map((name, column) => [name, row[column]!])));
  }
  return { ok: true, codes };
}

/** Codes are uploaded only to a SKU supplied from them (supplier `inventory`); any other is refused. */
export function uploadRefusal(product: Pick<CodeProduct, "sku" | "supplier">): Refusal | null {
  if (product.supplier === "inventory") return null;
  return {
    ok: false,
    details: { reason: `${product.sku} is supplied by ${product.supplier}, not from uploaded codes` },
  };
}

/** Values checked against the SKU (a fixed SKU's quotes, a range SKU's bounds) and made canonical. */
export function canonicalCodes(
  product: QuotedProduct & { sku: string },
  codes: { value: string | number; pin: string; link: string }[],
): { ok: true; codes: CanonicalCode[] } | Refusal {
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
  if (issues.length > 0) return { ok: false, details: { issues: issues.slice(0, 100), count: issues.length } };
  return { ok: true, codes: canonical };
}

/** Every pin repeated within the upload, then every pin of it already stored, with its upload positions. */
export function duplicatesOf(codes: CanonicalCode[], alreadyStored: Iterable<string>): Duplicate[] {
  const positions = new Map<string, number[]>();
  codes.forEach((code, index) => positions.set(code.pin, [...(positions.get(code.pin) ?? []), index]));
  const duplicates: Duplicate[] = [];
  for (const [pin, indexes] of positions)
    if (indexes.length > 1) duplicates.push({ pin, reason: "repeated_in_upload", indexes });
  for (const pin of new Set(alreadyStored)) {
    const indexes = positions.get(pin);
    if (indexes !== undefined) duplicates.push({ pin, reason: "already_stored", indexes });
  }
  return duplicates;
}

/** What a refused upload says about its rows: the problems of each row (by 0-based index) and the rest. */
export interface RowReport {
  rows: Map<number, string[]>;
  general: string[];
}

/**
 * The rows a refusal of an upload names (its error code and details as uploadCodes throws them): the
 * `codes.<index>` paths of validation issues, the row of a CSV row with the wrong number of fields, and the
 * positions of duplicate pins. Whatever names no row (a bad header, a SKU that takes no codes) is general.
 */
export function refusedRows(code: string, details: Record<string, unknown> | undefined): RowReport {
  const report: RowReport = { rows: new Map(), general: [] };
  const note = (index: number, problem: string) => report.rows.set(index, [...(report.rows.get(index) ?? []), problem]);
  if (code === "duplicate_codes" && Array.isArray(details?.duplicates)) {
    for (const duplicate of details.duplicates as Duplicate[]) {
      for (const index of duplicate.indexes) {
        note(
          index,
          duplicate.reason === "already_stored"
            ? `pin ${duplicate.pin} is already stored for this SKU`
            : `pin ${duplicate.pin} is repeated in the upload (rows ${duplicate.indexes.map((other) => other + 1).join(", ")})`,
        );
      }
    }
    return report;
  }
  if (Array.isArray(details?.issues)) {
    for (const issue of details.issues as { path: string; message: string }[]) {
      const match = /^codes\.(\d+)(?:\.(\w+))?/.exec(issue.path);
      if (match === null) report.general.push(`${issue.path}: ${issue.message}`);
      else note(Number(match[1]), match[2] === undefined ? issue.message : `${match[2]}: ${issue.message}`);
    }
    if (typeof details?.count === "number" && details.count > details.issues.length) {
      report.general.push(`${details.count - details.issues.length} more problems not listed`);
    }
    return report;
  }
  if (typeof details?.index === "number" && typeof details.reason === "string") {
    note(details.index, details.reason);
    return report;
  }
  report.general.push(typeof details?.reason === "string" ? details.reason : code);
  return report;
}
