import { describe, expect, it } from "vitest";
import { canonicalRate, pairProblem } from "../../src/pricing/rate-rules";

describe("pairProblem", () => {
  it("refuses a rate from a currency to itself", () => {
    expect(pairProblem("USD", "USD")).toBe("base and target currencies must differ");
    expect(pairProblem("USD", "EUR")).toBeNull();
  });
});

describe("canonicalRate", () => {
  it("stores a positive rate with at most 12 decimals as a canonical decimal", () => {
    expect(canonicalRate("0.920")).toEqual({ ok: true, rate: "0.92" });
    expect(canonicalRate(150)).toEqual({ ok: true, rate: "150" });
    expect(canonicalRate("0.000000000001")).toEqual({ ok: true, rate: "0.000000000001" });
    expect(canonicalRate("1000000000000")).toEqual({ ok: true, rate: "1000000000000" });
  });

  it("refuses zero, more than 12 decimals and more than 10^12", () => {
    const refused = { ok: false, issues: [{ path: "rate", message: "a positive rate with at most 12 decimals" }] };
    for (const given of ["0", "0.0000000000001", "1000000000000.5", 1e13])
      expect(canonicalRate(given), String(given)).toEqual(refused);
  });
});
