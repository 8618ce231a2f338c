import { describe, expect, it } from "vitest";
import { adjustmentAmount, topUpAmount } from "../../src/wallets/wallet-rules";

describe("topUpAmount", () => {
  it("takes a positive amount within the currency's minor units, canonical (12.50 as 12.5)", () => {
    expect(topUpAmount("12.50", "USD")).toEqual({ ok: true, amount: "12.5" });
    expect(topUpAmount(100, "USD")).toEqual({ ok: true, amount: "100" });
    expect(topUpAmount("1000", "JPY")).toEqual({ ok: true, amount: "1000" });
  });

  it("refuses zero, a negative amount and more decimals than the currency has", () => {
    const reason = "amount must be positive with at most the minor units of USD";
    for (const given of ["0", "0.00", -5, "10.001"])
      expect(topUpAmount(given, "USD"), String(given)).toEqual({ ok: false, reason });
    expect(topUpAmount("10.5", "JPY")).toEqual({
      ok: false,
      reason: "amount must be positive with at most the minor units of JPY",
    });
  });
});

describe("adjustmentAmount", () => {
  it("takes a credit or a debit within the currency's minor units", () => {
    expect(adjustmentAmount("-3.10", "USD")).toEqual({ ok: true, amount: "-3.1" });
    expect(adjustmentAmount(7, "EUR")).toEqual({ ok: true, amount: "7" });
  });

  it("refuses zero and more decimals than the currency has", () => {
    const reason = "amount must be non-zero with at most the minor units of USD";
    for (const given of ["0", "-0", 0, "-0.001"])
      expect(adjustmentAmount(given, "USD"), String(given)).toEqual({ ok: false, reason });
  });
});
