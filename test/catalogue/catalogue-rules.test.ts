import { describe, expect, it } from "vitest";
import { canonicalDealTerms, canonicalQuotes, changedStockTerms } from "../../src/catalogue/catalogue-rules";
import { UpsertDealRequest, UpsertProductRequest } from "../../src/catalogue/catalogue-admin-schemas";

const fixed = (quotes: (string | number)[], extra: Record<string, unknown> = {}) =>
  UpsertProductRequest.parse({
    productType: "fixed",
    name: "Card",
    currency: "USD",
    country: "US",
    region: "NA",
    supplier: "inventory",
    quotes,
    ...extra,
  });
const range = (minQuote: string | number, maxQuote: string | number, currency = "USD") =>
  UpsertProductRequest.parse({
    productType: "range",
    name: "Card",
    currency,
    country: "US",
    region: "NA",
    supplier: "sandbox",
    minQuote,
    maxQuote,
  });

describe("canonicalQuotes", () => {
  it("stores quotes as canonical decimals (10.50 as 10.5), from strings or numbers", () => {
    expect(canonicalQuotes(fixed(["10.50", 25, "100"]))).toEqual({
      ok: true,
      quotes: ["10.5", "25", "100"],
      min: null,
      max: null,
    });
    expect(canonicalQuotes(range("5.00", 500))).toEqual({ ok: true, quotes: null, min: "5", max: "500" });
  });

  it("refuses a quote repeated after canonicalisation, naming its index", () => {
    expect(canonicalQuotes(fixed(["10", "10.00"]))).toEqual({
      ok: false,
      issues: [{ path: "quotes.1", message: "repeats the quote 10" }],
    });
  });

  it("refuses more decimals than the currency has, zero, and a range whose max is below its min", () => {
    expect(canonicalQuotes(fixed(["10.005"]))).toEqual({
      ok: false,
      issues: [{ path: "quotes.0", message: "has more decimals than USD allows" }],
    });
    expect(canonicalQuotes(range("1.5", "100", "JPY"))).toEqual({
      ok: false,
      issues: [{ path: "minQuote", message: "has more decimals than JPY allows" }],
    });
    expect(canonicalQuotes(fixed(["0"]))).toEqual({
      ok: false,
      issues: [{ path: "quotes.0", message: "must be positive" }],
    });
    expect(canonicalQuotes(range("50", "10"))).toEqual({
      ok: false,
      issues: [{ path: "maxQuote", message: "must not be below minQuote" }],
    });
  });

  it("refuses a supplierConfig larger than 4096 bytes as JSON", () => {
    const checked = canonicalQuotes(fixed(["10"], { supplierConfig: { note: "x".repeat(4100) } }));
    expect(checked).toEqual({
      ok: false,
      issues: [{ path: "supplierConfig", message: "is larger than 4096 bytes as JSON" }],
    });
  });
});

describe("canonicalDealTerms", () => {
  it("an absent fee or discount is a fixed zero; amounts come back canonical", () => {
    expect(
      canonicalDealTerms(UpsertDealRequest.parse({ fee: { amount: "2.50", adjustmentMode: "fixed" } }), "USD"),
    ).toEqual({
      ok: true,
      fee: { amount: "2.5", mode: "fixed" },
      discount: { amount: "0", mode: "fixed" },
    });
  });

  it("a percentage is at most 100 with at most 4 decimals", () => {
    expect(
      canonicalDealTerms(UpsertDealRequest.parse({ discount: { amount: "100", adjustmentMode: "percentage" } }), "USD")
        .ok,
    ).toBe(true);
    expect(
      canonicalDealTerms(
        UpsertDealRequest.parse({ discount: { amount: "100.01", adjustmentMode: "percentage" } }),
        "USD",
      ),
    ).toEqual({
      ok: false,
      issues: [{ path: "discount.amount", message: "a percentage is at most 100" }],
    });
    expect(
      canonicalDealTerms(UpsertDealRequest.parse({ fee: { amount: "1.23456", adjustmentMode: "percentage" } }), "USD"),
    ).toEqual({
      ok: false,
      issues: [{ path: "fee.amount", message: "a percentage has at most 4 decimals" }],
    });
  });

  it("a fixed amount has at most the product currency's minor units", () => {
    expect(
      canonicalDealTerms(UpsertDealRequest.parse({ fee: { amount: "1.5", adjustmentMode: "fixed" } }), "JPY"),
    ).toEqual({
      ok: false,
      issues: [{ path: "fee.amount", message: "a fixed amount is in JPY and has at most its minor units" }],
    });
    expect(
      canonicalDealTerms(UpsertDealRequest.parse({ fee: { amount: "150", adjustmentMode: "fixed" } }), "JPY").ok,
    ).toBe(true);
  });
});

describe("changedStockTerms", () => {
  const stored = { currency: "USD", productType: "fixed", supplier: "inventory" };
  it("names the terms a replacement changes, in a fixed order, and none when it keeps them", () => {
    expect(changedStockTerms(stored, { ...stored })).toEqual([]);
    expect(changedStockTerms(stored, { ...stored, currency: "JPY" })).toEqual(["currency"]);
    expect(changedStockTerms(stored, { supplier: "sandbox", productType: "range", currency: "USD" })).toEqual([
      "productType",
      "supplier",
    ]);
    expect(changedStockTerms(stored, { currency: "EUR", productType: "range", supplier: "upstream" })).toEqual([
      "currency",
      "productType",
      "supplier",
    ]);
  });
});
