import { describe, expect, it } from "vitest";
import { maskedCode } from "../../src/orders/redeem-rules";

describe("maskedCode", () => {
  it("shows nothing of a code shorter than 16 characters", () => {
    for (const code of ["1", "1234", "123456", "ABCD-EFGH", "0123456789ABCDE"]) expect(maskedCode(code)).toBe("••••");
  });

  it("shows only the last 4 characters of a longer code, never more than a quarter of it", () => {
    expect(maskedCode("0123456789ABCDEF")).toBe("•••• CDEF");
    expect(maskedCode("https://codes.example.com/r/abcdefgh")).toBe("•••• efgh");
    for (let length = 1; length <= 80; length += 1) {
      const code = "x".repeat(length - 1) + "Z";
      const shown = maskedCode(code).replace(/^••••( |$)/, "");
      expect(shown.length * 4, `length ${length}`).toBeLessThanOrEqual(length);
      expect(code.endsWith(shown)).toBe(true);
    }
  });

  it("counts characters, not UTF-16 units, and hides a code's length", () => {
    expect(maskedCode("🎁".repeat(15))).toBe("••••");
    expect(maskedCode("🎁".repeat(16))).toBe(`•••• ${"🎁".repeat(4)}`);
    expect(maskedCode("12")).toBe(maskedCode("123456789"));
  });
});
