import { beforeAll, describe, expect, it } from "vitest";
import { minorUnits } from "../../src/pricing/money";
import { call, seedDemo } from "../helpers";

describe("Authorization scheme", () => {
  beforeAll(seedDemo);

  it("accepts the Bearer scheme in any case, as RFC 9110 says it is case-insensitive", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const response = await call("GET", "/order/get?orderId=ord_unknown", {
        key: null,
        headers: { authorization: `${scheme} sk_test_demo` },
      });
      expect(response.status, scheme).toBe(404);
    }
  });

  it("keeps the key itself case-sensitive", async () => {
    const response = await call("GET", "/order/get?orderId=ord_unknown", { key: "SK_TEST_DEMO" });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      message: "Authentication credentials are missing or invalid",
      code: "unauthenticated",
    });
  });
});

describe("minor units", () => {
  it("refuses names that are not currencies, even ones every object has", () => {
    expect(() => minorUnits("__proto__")).toThrow("unknown currency");
    expect(() => minorUnits("toString")).toThrow("unknown currency");
    expect(minorUnits("KWD")).toBe(3);
  });
});
