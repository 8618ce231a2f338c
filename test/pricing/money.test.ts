/** Pure money helpers (src/pricing/money.ts, exchange.ts): minor units, rounding, exact decimals. */
import { describe, expect, it } from "vitest";
import { chargeInWallet, type ExchangeRate } from "../../src/pricing/exchange";
import {
  MINOR_UNITS,
  Money,
  fitsMinorUnits,
  isKnownCurrency,
  minorUnits,
  roundToMinor,
  roundUpToMinor,
  sum,
  toAmountNumber,
} from "../../src/pricing/money";

const m = (value: string | number) => new Money(value);

describe("minor units (ISO 4217)", () => {
  it.each([
    ["USD", 2],
    ["EUR", 2],
    ["GBP", 2],
    ["JPY", 0],
    ["KRW", 0],
    ["KWD", 3],
    ["BHD", 3],
  ])("%s has %i decimals", (currency, units) => {
    expect(minorUnits(currency)).toBe(units);
  });

  it("an unknown currency is not accepted and has no minor unit", () => {
    for (const code of ["XXX", "usd", "", "__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(isKnownCurrency(code), code).toBe(false);
    }
    // (minorUnits is only reached after isKnownCurrency or for catalogue currencies; plain unknown codes throw)
    for (const code of ["XXX", "usd", ""]) expect(() => minorUnits(code), code).toThrow();
    expect(isKnownCurrency("USD")).toBe(true);
    expect(Object.keys(MINOR_UNITS)).toContain("JPY");
  });
});

describe("roundUpToMinor: a charge never falls short", () => {
  it.each([
    ["21.73913043478260869565", "USD", "21.74"],
    ["21.74", "USD", "21.74"],
    ["21.740000000000000000001", "USD", "21.75"],
    ["6.666666666666666666666", "USD", "6.67"],
    ["10", "USD", "10"],
    ["1492.537313432835820895", "JPY", "1493"],
    ["1492.000000000000000001", "JPY", "1493"],
    ["1492", "JPY", "1492"],
    ["3.076923076923076923", "KWD", "3.077"],
    ["0.001", "USD", "0.01"],
    ["0", "USD", "0"],
  ])("%s %s → %s", (amount, currency, expected) => {
    expect(roundUpToMinor(m(amount), currency).toFixed()).toBe(expected);
  });
});

describe("roundToMinor: half up, for fees and discounts on the invoice", () => {
  it.each([
    ["1.005", "USD", "1.01"],
    ["1.0049999", "USD", "1"],
    ["2.675", "USD", "2.68"],
    ["25.5", "JPY", "26"],
    ["25.49", "JPY", "25"],
    ["25.025", "JPY", "25"],
    ["0.0005", "KWD", "0.001"],
  ])("%s %s → %s", (amount, currency, expected) => {
    expect(roundToMinor(m(amount), currency).toFixed()).toBe(expected);
  });
});

describe("fitsMinorUnits", () => {
  it.each([
    ["10", "USD", true],
    ["10.5", "USD", true],
    ["10.50", "USD", true],
    ["10.99", "USD", true],
    ["10.001", "USD", false],
    ["1000", "JPY", true],
    ["1000.5", "JPY", false],
    ["1000.0", "JPY", true],
    ["1.234", "KWD", true],
    ["1.2345", "KWD", false],
    ["0.30000000000000004", "USD", false],
  ])("%s in %s: %s", (amount, currency, fits) => {
    expect(fitsMinorUnits(m(amount), currency)).toBe(fits);
  });
});

describe("exact decimals", () => {
  it("0.1 × 3 is 0.3, not 0.30000000000000004", () => {
    expect(m("0.1").times(3).toFixed()).toBe("0.3");
    expect(sum([m("0.1"), m("0.2")]).toFixed()).toBe("0.3");
  });

  it("division keeps enough digits for the rounding that follows", () => {
    // 1/3 × 3 must not come back as exactly 1 (which would hide the remainder) nor lose digits
    expect(m(1000).dividedBy("150").toFixed(30)).toBe("6.666666666666666666666666666667");
  });

  it("no exponent notation in strings of small or large amounts", () => {
    expect(m("1e-7").toString()).toBe("0.0000001");
    expect(m("1e21").toString()).toBe("1000000000000000000000");
  });

  it("toAmountNumber gives the JSON number of a rounded amount", () => {
    expect(toAmountNumber(m("21.74"))).toBe(21.74);
    expect(toAmountNumber(m("1493"))).toBe(1493);
    expect(toAmountNumber(m("-20"))).toBe(-20);
    expect(toAmountNumber(m("3.077"))).toBe(3.077);
  });

  it("sum of nothing is zero", () => {
    expect(sum([]).toFixed()).toBe("0");
  });
});

describe("chargeInWallet: amount / rate, rounded up to the wallet's minor unit", () => {
  const rate = (base: string, target: string, value: string): ExchangeRate => ({
    baseCurrency: base,
    targetCurrency: target,
    rate: value,
    modifiedAt: 0,
  });

  it.each([
    ["20", "USD", rate("USD", "EUR", "0.92"), "21.74"],
    ["1000", "USD", rate("USD", "JPY", "150"), "6.67"],
    ["1500", "USD", rate("USD", "JPY", "150"), "10"],
    ["20", "USD", rate("USD", "GBP", "0.79"), "25.32"],
    ["10", "EUR", rate("EUR", "USD", "1.08"), "9.26"],
    ["10", "JPY", rate("JPY", "USD", "0.0067"), "1493"],
    ["10", "KWD", rate("KWD", "USD", "3.25"), "3.077"],
  ])("%s in the product currency, wallet %s, rate %o → %s", (amount, walletCurrency, r, expected) => {
    expect(chargeInWallet(m(amount), walletCurrency, r).toFixed()).toBe(expected);
  });

  it("no rate (same currency): rounded up to the wallet's unit", () => {
    expect(chargeInWallet(m("12.34"), "USD", null).toFixed()).toBe("12.34");
    expect(chargeInWallet(m("12.341"), "USD", null).toFixed()).toBe("12.35");
  });

  it("a rate that does not start from the wallet currency is refused", () => {
    expect(() => chargeInWallet(m("10"), "USD", rate("EUR", "USD", "1.08"))).toThrow();
  });
});
