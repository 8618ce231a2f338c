/** Pure line pricing (src/pricing/line-pricing.ts): quote checks, deals, line totals. */
import { describe, expect, it } from "vitest";
import { catalogueProduct } from "../catalogue-fixtures";
import type { Deal } from "../../src/catalogue/catalogue-schemas";
import { NO_DEAL } from "../../src/pricing/deal";
import { adjustmentAmount, checkQuote, priceLine } from "../../src/pricing/line-pricing";
import { Money } from "../../src/pricing/money";
import type { ExchangeRate } from "../../src/pricing/exchange";

const m = (value: string | number) => new Money(value);

const product = catalogueProduct;

const fixedEur = product({
  productType: "fixed",
  currency: "EUR",
  quotes: ["10", "25", "50"],
  minQuote: null,
  maxQuote: null,
});
const rangeUsd = product({});
const rangeJpy = product({ currency: "JPY", minQuote: "1000", maxQuote: "50000" });

describe("checkQuote", () => {
  it.each([
    [fixedEur, "fixed", "10", "ok"],
    [fixedEur, "fixed", "50", "ok"],
    [fixedEur, "fixed", "10.00", "ok"],
    [fixedEur, "fixed", "11", "quote_mismatch"],
    [fixedEur, "fixed", "10.5", "quote_mismatch"],
    [fixedEur, "fixed", "10.001", "quote_mismatch"],
    [fixedEur, "range", "10", "quote_mismatch"],
    [fixedEur, "FIXED", "10", "quote_mismatch"],
    [rangeUsd, "range", "5", "ok"],
    [rangeUsd, "range", "500", "ok"],
    [rangeUsd, "range", "123.45", "ok"],
    [rangeUsd, "range", "4.99", "quote_out_of_range"],
    [rangeUsd, "range", "500.01", "quote_out_of_range"],
    [rangeUsd, "range", "0", "quote_out_of_range"],
    [rangeUsd, "range", "-5", "quote_out_of_range"],
    [rangeUsd, "range", "10.001", "quote_mismatch"],
    [rangeUsd, "fixed", "10", "quote_mismatch"],
    [rangeJpy, "range", "1000", "ok"],
    [rangeJpy, "range", "1000.5", "quote_mismatch"],
    [rangeJpy, "range", "999", "quote_out_of_range"],
  ] as const)("%#: %s / %s / %s → %s", (p, type, quote, verdict) => {
    expect(checkQuote(p, type, m(quote))).toBe(verdict);
  });

  it("a product whose catalogue row lacks its quotes or bounds never matches", () => {
    expect(checkQuote(product({ productType: "fixed", quotes: null }), "fixed", m("10"))).toBe("quote_mismatch");
    expect(checkQuote(product({ minQuote: null }), "range", m("10"))).toBe("quote_mismatch");
  });
});

describe("adjustmentAmount", () => {
  it("percentage of the face value, rounded half up in the product currency", () => {
    expect(adjustmentAmount({ amount: "2", adjustmentMode: "percentage" }, m("200"), 2, "USD").toFixed()).toBe("4");
    expect(adjustmentAmount({ amount: "10", adjustmentMode: "percentage" }, m("10.05"), 1, "USD").toFixed()).toBe(
      "1.01",
    );
    expect(adjustmentAmount({ amount: "2.5", adjustmentMode: "percentage" }, m("1001"), 1, "JPY").toFixed()).toBe("25");
    expect(adjustmentAmount({ amount: "3", adjustmentMode: "percentage" }, m("1050"), 1, "JPY").toFixed()).toBe("32"); // 31.5 → 32
  });

  it("fixed is per unit", () => {
    expect(adjustmentAmount({ amount: "1.5", adjustmentMode: "fixed" }, m("200"), 2, "USD").toFixed()).toBe("3");
    expect(adjustmentAmount({ amount: "1", adjustmentMode: "fixed" }, m("50"), 2, "EUR").toFixed()).toBe("2");
  });

  it("zero is zero", () => {
    expect(adjustmentAmount({ amount: "0", adjustmentMode: "percentage" }, m("200"), 2, "USD").isZero()).toBe(true);
    expect(adjustmentAmount({ amount: "0", adjustmentMode: "fixed" }, m("200"), 2, "USD").isZero()).toBe(true);
  });
});

describe("priceLine", () => {
  const usdEur: ExchangeRate = { baseCurrency: "USD", targetCurrency: "EUR", rate: "0.92", modifiedAt: 0 };
  const deal = (fee: [string, "percentage" | "fixed"], discount: [string, "percentage" | "fixed"]): Deal => ({
    dealState: "active",
    fee: { amount: fee[0], adjustmentMode: fee[1] },
    discount: { amount: discount[0], adjustmentMode: discount[1] },
  });
  const strings = (price: ReturnType<typeof priceLine>) =>
    Object.fromEntries(Object.entries(price).map(([k, v]) => [k, v.toFixed()]));

  it("no deal, same currency", () => {
    expect(
      strings(
        priceLine({
          quote: m("12.34"),
          quantity: 3,
          productCurrency: "USD",
          deal: NO_DEAL,
          walletCurrency: "USD",
          rate: null,
        }),
      ),
    ).toEqual({
      faceValue: "37.02",
      fee: "0",
      discount: "0",
      lineTotal: "37.02",
      charge: "37.02",
    });
  });

  it("no deal, cross currency: 2 × 10 EUR → 21.74 USD", () => {
    expect(
      strings(
        priceLine({
          quote: m("10"),
          quantity: 2,
          productCurrency: "EUR",
          deal: NO_DEAL,
          walletCurrency: "USD",
          rate: usdEur,
        }),
      ),
    ).toEqual({
      faceValue: "20",
      fee: "0",
      discount: "0",
      lineTotal: "20",
      charge: "21.74",
    });
  });

  it("fee and discount: 2 × 100 + 2% − 1.5/unit = 201", () => {
    expect(
      strings(
        priceLine({
          quote: m("100"),
          quantity: 2,
          productCurrency: "USD",
          deal: deal(["2", "percentage"], ["1.5", "fixed"]),
          walletCurrency: "USD",
          rate: null,
        }),
      ),
    ).toEqual({
      faceValue: "200",
      fee: "4",
      discount: "3",
      lineTotal: "201",
      charge: "201",
    });
  });

  it("the deal applies before the exchange: 52 EUR → 56.53 USD", () => {
    expect(
      priceLine({
        quote: m("25"),
        quantity: 2,
        productCurrency: "EUR",
        deal: deal(["1", "fixed"], ["0", "fixed"]),
        walletCurrency: "USD",
        rate: usdEur,
      }).charge.toFixed(),
    ).toBe("56.53");
  });

  it("a discount is capped at face value + fee: the line never goes negative", () => {
    const price = priceLine({
      quote: m("10"),
      quantity: 2,
      productCurrency: "USD",
      deal: deal(["1", "fixed"], ["100", "percentage"]),
      walletCurrency: "USD",
      rate: null,
    });
    expect(price.discount.toFixed()).toBe("20"); // 100% of 20 face value
    expect(price.lineTotal.toFixed()).toBe("2");
    const capped = priceLine({
      quote: m("10"),
      quantity: 2,
      productCurrency: "USD",
      deal: deal(["0", "fixed"], ["50", "fixed"]),
      walletCurrency: "USD",
      rate: null,
    });
    expect(capped.discount.toFixed()).toBe("20");
    expect(capped.lineTotal.toFixed()).toBe("0");
    expect(capped.charge.toFixed()).toBe("0");
  });
});
