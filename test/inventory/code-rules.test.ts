import { describe, expect, it } from "vitest";
import {
  canonicalCodes,
  codesFromCsv,
  duplicatesOf,
  uploadRefusal,
  changedCodeTerms,
  refusedRows,
} from "../../src/inventory/code-rules";

const fixedSku = {
  sku: "CARD-10",
  productType: "fixed" as const,
  currency: "USD",
  quotes: ["10", "25.5"],
  minQuote: null,
  maxQuote: null,
};
const rangeSku = {
  sku: "CARD-R",
  productType: "range" as const,
  currency: "JPY",
  quotes: null,
  minQuote: "500",
  maxQuote: "5000",
};
const code = (value: string | number, pin: string) => ({ value, pin, link: `https://example.test/${pin}` });

describe("codesFromCsv", () => {
  it("reads a header naming value, pin and link in any order, case and spaces aside", () => {
    expect(codesFromCsv(' Pin ,LINK,value\nA-1,https://x.test/a,10\n"B,2",https://x.test/b,25.50\n')).toEqual({
      ok: true,
      codes: [
        { pin: "A-1", link: "https://x.test/a", value: "10" },
        { pin: "B,2", link: "https://x.test/b", value: "25.50" },
      ],
    });
  });

  it("refuses a header that misses, repeats or adds a column, and a row of another width", () => {
    expect(codesFromCsv("value,pin\n10,A")).toMatchObject({ ok: false, details: { missing: ["link"], unknown: [] } });
    expect(codesFromCsv("value,pin,link,extra\n")).toMatchObject({
      ok: false,
      details: { missing: [], unknown: ["extra"] },
    });
    expect(codesFromCsv("value,pin,link,pin\n")).toMatchObject({
      ok: false,
      details: { reason: expect.stringContaining("each once") },
    });
    expect(codesFromCsv("value,pin,link\n10,A,https://x.test/a\n10,B\n")).toEqual({
      ok: false,
      details: { reason: "CSV data row 2 has 2 fields, the header 3", index: 1 },
    });
  });
});

describe("uploadRefusal", () => {
  it("takes codes for a SKU supplied from them and refuses any other supplier", () => {
    expect(uploadRefusal({ sku: "CARD-10", supplier: "inventory" })).toBeNull();
    expect(uploadRefusal({ sku: "CARD-S", supplier: "sandbox" })).toEqual({
      ok: false,
      details: { reason: "CARD-S is supplied by sandbox, not from uploaded codes" },
    });
    expect(uploadRefusal({ sku: "CARD-U", supplier: "upstream" })).toEqual({
      ok: false,
      details: { reason: "CARD-U is supplied by upstream, not from uploaded codes" },
    });
  });
});

describe("canonicalCodes", () => {
  it("makes values canonical (25.50 as 25.5) when they are quotes of the SKU", () => {
    expect(canonicalCodes(fixedSku, [code("25.50", "A"), code(10, "B")])).toEqual({
      ok: true,
      codes: [
        { value: "25.5", pin: "A", link: "https://example.test/A" },
        { value: "10", pin: "B", link: "https://example.test/B" },
      ],
    });
  });

  it("names every value that is not a quote of a fixed SKU, or not within a range SKU's bounds and minor units", () => {
    expect(canonicalCodes(fixedSku, [code("10", "A"), code("11", "B")])).toEqual({
      ok: false,
      details: {
        issues: [{ path: "codes.1.value", message: "11 is not one of the quotes of CARD-10 (10, 25.5)" }],
        count: 1,
      },
    });
    const range = canonicalCodes(rangeSku, [code("499", "A"), code("600.5", "B"), code("600", "C")]);
    expect(range).toEqual({
      ok: false,
      details: {
        issues: [
          { path: "codes.0.value", message: "499 is not within 500..5000 JPY with its minor units" },
          { path: "codes.1.value", message: "600.5 is not within 500..5000 JPY with its minor units" },
        ],
        count: 2,
      },
    });
  });
});

describe("duplicatesOf", () => {
  const codes = [code("10", "A"), code("10", "B"), code("10", "A"), code("10", "C")].map((c) => ({
    ...c,
    value: String(c.value),
  }));

  it("lists pins repeated in the upload with every position, then pins already stored", () => {
    expect(duplicatesOf(codes, ["C", "Z"])).toEqual([
      { pin: "A", reason: "repeated_in_upload", indexes: [0, 2] },
      { pin: "C", reason: "already_stored", indexes: [3] },
    ]);
  });

  it("finds nothing in an upload of distinct new pins", () => {
    expect(duplicatesOf(codes.slice(1, 2), ["A", "C"])).toEqual([]);
  });
});

describe("changedCodeTerms", () => {
  it("names what differs between the SKU the codes were checked against and the SKU now", () => {
    const checked = { currency: "EUR", productType: "fixed", supplier: "inventory" } as const;
    expect(changedCodeTerms(checked, { ...checked })).toEqual([]);
    expect(changedCodeTerms(checked, { ...checked, currency: "JPY" })).toEqual(["currency"]);
    expect(changedCodeTerms(checked, { currency: "EUR", productType: "range", supplier: "sandbox" })).toEqual([
      "productType",
      "supplier",
    ]);
  });
});

describe("refusedRows: the rows a refused upload names", () => {
  it("reads each row from validation paths, CSV row errors and duplicate positions", () => {
    const issues = refusedRows("invalid_request_body", {
      issues: [
        { path: "codes.2.value", message: "7 is not one of the quotes" },
        { path: "codes.2.link", message: "Invalid URL" },
        { path: "codes.0", message: "Required" },
        { path: "codes", message: "Too big" },
      ],
      count: 6,
    });
    expect([...issues.rows]).toEqual([
      [2, ["value: 7 is not one of the quotes", "link: Invalid URL"]],
      [0, ["Required"]],
    ]);
    expect(issues.general).toEqual(["codes: Too big", "2 more problems not listed"]);

    const duplicates = refusedRows("duplicate_codes", {
      duplicates: [
        { pin: "A", reason: "repeated_in_upload", indexes: [0, 3] },
        { pin: "B", reason: "already_stored", indexes: [1] },
      ],
    });
    expect([...duplicates.rows].sort(([a], [b]) => a - b)).toEqual([
      [0, ["pin A is repeated in the upload (rows 1, 4)"]],
      [1, ["pin B is already stored for this SKU"]],
      [3, ["pin A is repeated in the upload (rows 1, 4)"]],
    ]);

    const csvRow = refusedRows("invalid_request_body", {
      reason: "CSV data row 5 has 2 fields, the header 3",
      index: 4,
    });
    expect([...csvRow.rows]).toEqual([[4, ["CSV data row 5 has 2 fields, the header 3"]]]);

    const header = refusedRows("invalid_request_body", {
      reason: "the first CSV row must name the columns value, pin and link, each once",
    });
    expect(header.rows.size).toBe(0);
    expect(header.general).toEqual(["the first CSV row must name the columns value, pin and link, each once"]);
    expect(refusedRows("sku_changed", undefined).general).toEqual(["sku_changed"]);
  });
});
