import { describe, expect, it } from "vitest";
import {
  addressAllowed,
  allowListOf,
  parseAddress,
  parseRange,
  scopesOf,
  storedScopes,
  type IpRange,
} from "../../src/kernel/key-access";

const ranges = (...entries: string[]): IpRange[] =>
  entries.map((entry) => {
    const range = parseRange(entry);
    if (typeof range === "string") throw new Error(`${entry}: ${range}`);
    return range;
  });

describe("a key's scopes as stored", () => {
  it("`all` grants every scope; a list grants what it names; a name it does not know grants nothing", () => {
    expect(scopesOf("all")).toEqual({ all: true, scopes: ["orders:write", "orders:read", "books:read"] });
    expect(scopesOf("books:read")).toEqual({ all: false, scopes: ["books:read"] });
    expect(scopesOf("books:read orders:read")).toEqual({ all: false, scopes: ["orders:read", "books:read"] });
    expect(scopesOf("wallets:write ALL all:read")).toEqual({ all: false, scopes: [] });
    expect(scopesOf("")).toEqual({ all: false, scopes: [] });
  });

  it("stores null as `all` and a list in a fixed order, so the same scopes compare equal", () => {
    expect(storedScopes(null)).toBe("all");
    expect(storedScopes(["books:read", "orders:write"])).toBe("orders:write books:read");
  });
});

describe("the IP allow-list", () => {
  it("reads IPv4 and IPv6 addresses, and reads an IPv4-mapped IPv6 address as IPv4", () => {
    expect(parseAddress("203.0.113.7")).toEqual({ width: 32, bits: 0xcb007107n });
    expect(parseAddress("2001:db8::1")).toEqual({ width: 128, bits: 0x20010db8000000000000000000000001n });
    expect(parseAddress("::")).toEqual({ width: 128, bits: 0n });
    expect(parseAddress("::ffff:203.0.113.7")).toEqual({ width: 32, bits: 0xcb007107n });
    expect(parseAddress("64:ff9b::203.0.113.7")?.width).toBe(128);
    expect(parseAddress("1:2:3:4:5:6:203.0.113.7")).toEqual({ width: 128, bits: 0x100020003000400050006cb007107n });
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3.-4",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "g::1",
      "fe80::1%eth0",
      " 1.2.3.4",
      // A dotted IPv4 part ends an IPv6 address, or it is none: not 0102:0304:: (a typo for 1.2.3.4).
      "1.2.3.4::",
      "1.2.3.4::1",
      "1:1.2.3.4::",
    ])
      expect(parseAddress(bad), bad).toBeNull();
  });

  it("refuses an entry that is no address or range, a prefix out of bounds, or bits past the prefix", () => {
    expect(parseRange("10.0.0.0/8")).toEqual({ width: 32, bits: 0x0a000000n, prefix: 8 });
    expect(parseRange("2001:db8::/32")).toMatchObject({ width: 128, prefix: 32 });
    expect(parseRange("0.0.0.0/0")).toEqual({ width: 32, bits: 0n, prefix: 0 });
    expect(parseRange("10.0.0.1/8")).toBe("the address has bits set past the prefix length");
    expect(parseRange("10.0.0.0/33")).toBe("the prefix length must be 0 to 32");
    expect(parseRange("10.0.0.0/08")).toBe("the prefix length must be 0 to 32");
    expect(parseRange("2001:db8::/129")).toBe("the prefix length must be 0 to 128");
    expect(parseRange("10.0.0.0/")).toBe("the prefix length must be 0 to 32");
    expect(parseRange("10.0.0.0/8/8")).toBe("more than one /");
    expect(parseRange("example.com")).toBe("not an IPv4 or IPv6 address");
    expect(parseRange("::ffff:10.0.0.0/104")).toBe("an IPv4-mapped address: write it as IPv4");
  });

  it("allows an address in a listed range of its family, and nothing else", () => {
    const list = ranges("203.0.113.7", "198.51.100.0/24", "2001:db8::/32");
    for (const inside of [
      "203.0.113.7",
      "198.51.100.0",
      "198.51.100.255",
      "2001:db8::1",
      "2001:db8:ffff::",
      "::ffff:198.51.100.9",
    ])
      expect(addressAllowed(inside, list), inside).toBe(true);
    for (const outside of ["203.0.113.8", "198.51.101.0", "2001:db9::", "::cb00:7107", "not an address", ""])
      expect(addressAllowed(outside, list), outside).toBe(false);
    expect(addressAllowed("192.0.2.1", ranges("0.0.0.0/0"))).toBe(true);
    expect(addressAllowed("2001:db8::1", ranges("0.0.0.0/0"))).toBe(false);
    expect(addressAllowed("1.2.3.4", [])).toBe(false);
  });

  it("reads a stored list; null is no list, and a stored value it cannot read allows nothing", () => {
    expect(allowListOf(null)).toBeNull();
    expect(allowListOf('["10.0.0.0/8"]')).toEqual(ranges("10.0.0.0/8"));
    expect(allowListOf("not json")).toEqual([]);
    expect(allowListOf('{"a":1}')).toEqual([]);
    expect(allowListOf('["10.0.0.1/8", 7]')).toEqual([]);
  });
});
