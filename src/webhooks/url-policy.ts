/**
 * Which webhook URLs the service will deliver to (docs/webhooks.md, "Which URLs are accepted").
 *
 * Pure: the URL is parsed with the WHATWG parser (`new URL`), which already turns every IPv4 spelling
 * (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, percent-encoded or full-width
 * digits) into dotted quad, and every IPv6 literal into its canonical compressed form. The normalised
 * hostname is then checked against the special-purpose address ranges. Nothing is resolved or contacted:
 * a DNS name that resolves to a private address is not caught here (Workers' fetch cannot reach private
 * networks anyway).
 */

type Verdict = string | null;

/** IPv4 ranges that are not a public destination, with the reason given back. */
const IPV4_BLOCKED: ReadonlyArray<readonly [cidr: string, reason: string]> = [
  ["0.0.0.0/8", "unspecified address"],
  ["10.0.0.0/8", "private address"],
  ["100.64.0.0/10", "shared (CGNAT) address"],
  ["127.0.0.0/8", "loopback address"],
  ["169.254.0.0/16", "link-local address"],
  ["172.16.0.0/12", "private address"],
  ["192.0.0.0/24", "reserved address"],
  ["192.0.2.0/24", "documentation address"],
  ["192.88.99.0/24", "reserved address"],
  ["192.168.0.0/16", "private address"],
  ["198.18.0.0/15", "benchmarking address"],
  ["198.51.100.0/24", "documentation address"],
  ["203.0.113.0/24", "documentation address"],
  ["224.0.0.0/4", "multicast address"],
  ["240.0.0.0/4", "reserved address"], // includes 255.255.255.255 (broadcast)
];

const IPV4_RANGES = IPV4_BLOCKED.map(([cidr, reason]) => {
  const [base, bits] = cidr.split("/") as [string, string];
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { network: ((parseIpv4(base) ?? 0) & mask) >>> 0, mask, reason };
});

/** A dotted quad as a 32-bit number, or null when it is not one. */
function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const byte = Number(part);
    if (byte > 255) return null;
    value = value * 256 + byte;
  }
  return value >>> 0;
}

function ipv4Verdict(address: number): Verdict {
  for (const range of IPV4_RANGES) {
    if ((address & range.mask) >>> 0 === range.network) return range.reason;
  }
  return null;
}

/** An IPv6 literal (without brackets) as eight 16-bit groups, or null when it is not one. */
function parseIpv6(text: string): number[] | null {
  let rest = text;
  const tail: number[] = [];
  // An embedded dotted quad at the end (the WHATWG serializer never writes one, but be strict anyway).
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]!);
    if (v4 === null) return null;
    tail.push(v4 >>> 16, v4 & 0xffff);
    rest = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (half: string): number[] | null => {
    if (half === "") return [];
    const groups: number[] = [];
    for (const group of half.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const after = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || after === null) return null;
  const known = head.length + after.length + tail.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    return [...head, ...new Array<number>(8 - known).fill(0), ...after, ...tail];
  }
  return known === 8 ? [...head, ...tail] : null;
}

function ipv6Verdict(g: number[]): Verdict {
  const embeddedV4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified address";
  if (zeroUpTo(7) && g[7] === 1) return "loopback address";
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated): judge the IPv4 inside.
  if (zeroUpTo(5) && g[5] === 0xffff) return ipv4Verdict(embeddedV4(g[6]!, g[7]!)) ?? "IPv4-mapped address";
  if (zeroUpTo(6)) return "IPv4-compatible address";
  // 64:ff9b::/96 (NAT64): the IPv4 inside decides.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return ipv4Verdict(embeddedV4(g[6]!, g[7]!));
  }
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return "link-local address";
  if ((first & 0xffc0) === 0xfec0) return "site-local address";
  if ((first & 0xfe00) === 0xfc00) return "unique-local address";
  if ((first & 0xff00) === 0xff00) return "multicast address";
  // Only global unicast (2000::/3) is a destination; inside it, a few special ranges.
  if ((first & 0xe000) !== 0x2000) return "reserved address";
  if (first === 0x2001 && g[1] === 0x0db8) return "documentation address";
  if (first === 0x3fff && (g[1]! & 0xf000) === 0) return "documentation address"; // 3fff::/20
  if (first === 0x2001 && g[1]! < 0x0200) return "reserved address"; // 2001::/23, incl. Teredo
  if (first === 0x2002) return ipv4Verdict(embeddedV4(g[1]!, g[2]!)) ?? null; // 6to4
  return null;
}

/** The hostname is a loopback name or literal (what ALLOW_INSECURE_WEBHOOKS opens for local development). */
function isLocalDevHost(hostname: string): boolean {
  if (hostname === "localhost") return true;
  if (hostname === "[::1]") return true;
  const v4 = parseIpv4(hostname);
  return v4 !== null && v4 >>> 24 === 127;
}

/**
 * Null when `raw` may be used as a webhookUrl, else a short reason (shown as
 * `webhookUrl is not allowed: <reason>`). With `allowInsecure` (the var ALLOW_INSECURE_WEBHOOKS), http and
 * https to localhost, 127.0.0.0/8 and [::1] are allowed too, for local development; nothing else changes.
 */
export function checkWebhookUrl(raw: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "scheme must be https";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  // A trailing dot names the same host ("localhost." is localhost); an empty label anywhere else
  // ("localhost..", "a..b") is no host name at all.
  if (/^\.|\.\./.test(url.hostname)) return "host name has an empty label";
  const hostname = url.hostname.toLowerCase().replace(/\.$/, "");
  if (hostname === "") return "missing host";

  if (allowInsecure && isLocalDevHost(hostname)) return null;
  if (url.protocol !== "https:") return "scheme must be https";

  if (hostname === "localhost" || hostname.endsWith(".localhost")) return "localhost is not allowed";
  if (hostname.startsWith("[")) {
    const groups = parseIpv6(hostname.slice(1, -1));
    if (groups === null) return "invalid IPv6 address";
    return ipv6Verdict(groups);
  }
  const v4 = parseIpv4(hostname);
  if (v4 !== null) return ipv4Verdict(v4);
  // The WHATWG parser rejects a host whose last label is numeric but not a valid IPv4; be safe anyway.
  if (/^[0-9.]+$/.test(hostname) || /^0x/i.test(hostname.split(".").pop() ?? "")) return "invalid IP address";
  return null;
}
