import { describe, expect, it } from "vitest";
import {
  accessOf,
  allowListProblem,
  FULL_ACCESS,
  scopesProblem,
  storedAccess,
} from "../../src/clients/key-access-rules";

describe("what an operator may give a key", () => {
  it("takes 1 to 32 distinct addresses and ranges, and says which entry is wrong and why", () => {
    expect(allowListProblem(["203.0.113.7", "198.51.100.0/24", "2001:DB8::/32"])).toBeNull();
    expect(allowListProblem([])).toEqual({ reason: "an allow-list has at least one entry: null for none" });
    expect(allowListProblem(Array.from({ length: 33 }, (_, index) => `10.0.0.${index}`))).toEqual({
      reason: "at most 32 entries",
    });
    expect(allowListProblem(["10.0.0.0/8", "10.0.0.1/8"])).toEqual({
      index: 1,
      reason: '"10.0.0.1/8": the address has bits set past the prefix length',
    });
    expect(allowListProblem([" 2001:db8::1 ", "2001:DB8::1"])).toEqual({
      index: 1,
      reason: '"2001:db8::1" is listed twice',
    });
  });

  it("takes at least one scope, each once", () => {
    expect(scopesProblem(["books:read"])).toBeNull();
    expect(scopesProblem([])).toBe("a key holds at least one scope (or all)");
    expect(scopesProblem(["books:read", "books:read"])).toBe("a scope is named twice");
  });

  it("stores access in fixed forms and reads it back as given", () => {
    expect(storedAccess(FULL_ACCESS)).toEqual({ scopes: "all", allowedIps: null });
    const stored = storedAccess({ scopes: ["books:read", "orders:read"], allowedIps: [" 2001:DB8::/32 "] });
    expect(stored).toEqual({ scopes: "orders:read books:read", allowedIps: '["2001:db8::/32"]' });
    expect(accessOf({ scopes: stored.scopes, allowed_ips: stored.allowedIps })).toEqual({
      scopes: ["orders:read", "books:read"],
      allowedIps: ["2001:db8::/32"],
    });
    expect(accessOf({ scopes: "all", allowed_ips: null })).toEqual(FULL_ACCESS);
  });
});
