/** The sandbox's pure rules (src/sandbox/sandbox-rules.ts, src/orders/order-plan.ts's Sandbox-Outcome part). */
import { describe, expect, it } from "vitest";
import { SANDBOX_TOP_UP_MAX, sandboxTopUpAmount, topUpIdempotencyKey } from "../../src/sandbox/sandbox-rules";
import { readSandboxOutcome, scriptLines } from "../../src/orders/order-plan";
import type { OrderLine } from "../../src/orders/order-record";

describe("sandbox top-up rules", () => {
  it("takes the header or the body's key, the same in both, and refuses none, two that differ or a header out of bounds", () => {
    expect(topUpIdempotencyKey("k", undefined)).toEqual({ ok: true, key: "k" });
    expect(topUpIdempotencyKey(null, "k")).toEqual({ ok: true, key: "k" });
    expect(topUpIdempotencyKey("k", "k")).toEqual({ ok: true, key: "k" });
    for (const [header, body] of [
      [null, undefined],
      ["a", "b"],
      ["", undefined],
      ["x".repeat(129), undefined],
      ["with space", undefined],
      ["ключ", undefined],
    ] as const) {
      expect(topUpIdempotencyKey(header, body).ok, `${header} / ${body}`).toBe(false);
    }
  });

  it("caps a top-up at SANDBOX_TOP_UP_MAX in any currency, with the operator's rules below it", () => {
    expect(sandboxTopUpAmount(SANDBOX_TOP_UP_MAX, "JPY")).toEqual({ ok: true, amount: "1000000" });
    expect(sandboxTopUpAmount("1000000.01", "USD").ok).toBe(false);
    expect(sandboxTopUpAmount("0.5", "JPY").ok).toBe(false);
    expect(sandboxTopUpAmount("0.01", "USD")).toEqual({ ok: true, amount: "0.01" });
  });
});

describe("Sandbox-Outcome rules", () => {
  it("knows exactly the four lowercase values", () => {
    for (const value of ["successful", "partial", "failed", "slow"]) expect(readSandboxOutcome(value)).toBe(value);
    for (const value of ["Failed", " slow", "ok", ""])
      expect(readSandboxOutcome(value)).toMatchObject({ ok: false, code: "invalid_sandbox_outcome" });
  });

  it("scripts every line: partial fails only the last, slow waits on each, and the line is otherwise untouched", () => {
    const lines = ["A", "B", "C"].map((sku) => ({ sku, status: "pending" }) as OrderLine);
    const scripts = (outcome: Parameters<typeof scriptLines>[1]) =>
      scriptLines(lines, outcome).map((line) => line.sandboxOutcome);
    expect(scripts("successful")).toEqual(["issue", "issue", "issue"]);
    expect(scripts("failed")).toEqual(["fail", "fail", "fail"]);
    expect(scripts("partial")).toEqual(["issue", "issue", "fail"]);
    expect(scripts("slow")).toEqual(["slow", "slow", "slow"]);
    expect(scriptLines(lines, "partial").map(({ sku, status }) => [sku, status])).toEqual([
      ["A", "pending"],
      ["B", "pending"],
      ["C", "pending"],
    ]);
    expect(lines.every((line) => line.sandboxOutcome === undefined)).toBe(true);
  });
});
