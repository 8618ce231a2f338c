/**
 * What a client's API key may do, and from where: its scopes and its IP allow-list (docs/api.md, Keys and
 * scopes). Kept in the kernel because the http layer checks both on every client request and may not import
 * a domain; the clients' domain validates and stores them. Pure and free of zod: it runs at start-up.
 *
 * A key holds `all` scopes (every key issued before scopes existed, and a key issued without naming any:
 * it keeps every scope added later too) or a list of them. Its allow-list is null (any address) or a list
 * of IPv4/IPv6 addresses and CIDR ranges that the request's CF-Connecting-IP must fall in.
 */

/** What a client route needs of its key: create and confirm; read orders; read the books. */
export type Scope = "orders:write" | "orders:read" | "books:read";

export const SCOPES: readonly Scope[] = ["orders:write", "orders:read", "books:read"];

/** How api_keys.scopes says a key holds every scope, present and future. */
export const ALL_SCOPES = "all";

/** The most entries a key's allow-list may have. */
export const MAX_ALLOWED_IPS = 32;

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (SCOPES as readonly string[]).includes(value);
}

/** A key's scopes as stored: `all`, or the scopes separated by spaces (in SCOPES' order). */
export function storedScopes(scopes: readonly Scope[] | null): string {
  if (scopes === null) return ALL_SCOPES;
  return SCOPES.filter((scope) => scopes.includes(scope)).join(" ");
}

/**
 * The scopes a stored value grants: every scope for `all`, else the known names it lists. A name it does not
 * know grants nothing (fail closed: a value written by a later version never widens a key here).
 */
export function scopesOf(stored: string): { all: boolean; scopes: readonly Scope[] } {
  if (stored === ALL_SCOPES) return { all: true, scopes: SCOPES };
  const named = stored.split(" ");
  return { all: false, scopes: SCOPES.filter((scope) => named.includes(scope)) };
}

// IP allow-list ----------------------------------------------------------------------------------------------

/** An address or a CIDR range: the network's bits, its family's width (32 or 128) and its prefix length. */
export interface IpRange {
  width: 32 | 128;
  bits: bigint;
  prefix: number;
}

function ipv4Bits(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let bits = 0n;
  for (const part of parts) {
    // Decimal octets without leading zeros: "010" would be octal to some readers.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    bits = (bits << 8n) | BigInt(part);
  }
  return bits;
}

/** The groups of part of an IPv6 address; a dotted IPv4 tail only where it `ends` the address (RFC 4291). */
function hextets(text: string, ends: boolean): bigint[] | null {
  if (text === "") return [];
  const groups = text.split(":");
  const out: bigint[] = [];
  for (const [index, group] of groups.entries()) {
    if (ends && index === groups.length - 1 && group.includes(".")) {
      const v4 = ipv4Bits(group);
      if (v4 === null) return null;
      out.push(v4 >> 16n, v4 & 0xffffn);
    } else if (/^[0-9a-f]{1,4}$/i.test(group)) out.push(BigInt(`0x${group}`));
    else return null;
  }
  return out;
}

function ipv6Bits(text: string): bigint | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  // "1.2.3.4::" is no address: read as 0102:0304:: it would let a typo stand for another network.
  const head = hextets(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? hextets(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<bigint>(missing).fill(0n), ...tail];
  return groups.reduce((bits, group) => (bits << 16n) | group, 0n);
}

/** An address as bits and width, or null; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is read as IPv4. */
export function parseAddress(text: string): { width: 32 | 128; bits: bigint } | null {
  if (text.length > 64) return null;
  if (!text.includes(":")) {
    const bits = ipv4Bits(text);
    return bits === null ? null : { width: 32, bits };
  }
  const bits = ipv6Bits(text);
  if (bits === null) return null;
  if (bits >> 32n === 0xffffn) return { width: 32, bits: bits & 0xffffffffn };
  return { width: 128, bits };
}

/**
 * An allow-list entry as a range, or why it is not one: an address (a range of one) or `address/prefix`
 * whose address has no bits set past the prefix (10.0.0.1/8 is refused, so that a typo cannot widen it).
 */
export function parseRange(text: string): IpRange | string {
  const [address, prefixText, ...rest] = text.split("/");
  if (rest.length > 0) return "more than one /";
  const parsed = parseAddress(address!);
  if (parsed === null) return "not an IPv4 or IPv6 address";
  // A mapped address names an IPv4 one, but its prefix would count IPv6 bits: written as IPv4, please.
  const width = address!.includes(":") ? 128 : 32;
  if (parsed.width !== width) return "an IPv4-mapped address: write it as IPv4";
  if (prefixText === undefined) return { width, bits: parsed.bits, prefix: width };
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || Number(prefixText) > width)
    return `the prefix length must be 0 to ${width}`;
  const prefix = Number(prefixText);
  const host = (1n << BigInt(width - prefix)) - 1n;
  if ((parsed.bits & host) !== 0n) return "the address has bits set past the prefix length";
  return { width, bits: parsed.bits, prefix };
}

/** Whether the address (CF-Connecting-IP) falls in one of the ranges; an address that does not parse, in none. */
export function addressAllowed(address: string, ranges: readonly IpRange[]): boolean {
  const parsed = parseAddress(address.trim());
  if (parsed === null) return false;
  return ranges.some((range) => {
    if (range.width !== parsed.width) return false;
    const shift = BigInt(range.width - range.prefix);
    return parsed.bits >> shift === range.bits >> shift;
  });
}

/**
 * A key's stored allow-list (a JSON array of entries, or null for none) as ranges. An entry that does not
 * parse (never stored: the clients' domain validates them) allows nothing, so the key fails closed.
 */
export function allowListOf(stored: string | null): readonly IpRange[] | null {
  if (stored === null) return null;
  let entries: unknown;
  try {
    entries = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => {
    const range = typeof entry === "string" ? parseRange(entry) : "not text";
    return typeof range === "string" ? [] : [range];
  });
}
