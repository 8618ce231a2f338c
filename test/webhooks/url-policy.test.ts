import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/webhooks/url-policy";

const allowed: string[] = [
  "https://example.com/hooks/orders",
  "https://hooks.example.com:8443/a?b=c#d",
  "https://EXAMPLE.com./x",
  "https://1.1.1.1/hook",
  "https://8.8.8.8",
  "https://172.32.0.1/", // just outside 172.16.0.0/12
  "https://100.128.0.1/", // just outside 100.64.0.0/10
  "https://[2606:4700:4700::1111]/hook",
  "https://[2001:4860:4860::8888]/",
  "https://xn--bcher-kva.example/", // IDN
  "https://localhost.example.com/", // a real domain that merely starts with "localhost"
];

/** [url, part of the reason]: refused with or without ALLOW_INSECURE_WEBHOOKS. */
const refused: [string, string][] = [
  // Not an absolute https URL
  ["", "not an absolute URL"],
  ["/relative/path", "not an absolute URL"],
  ["example.com/hook", "not an absolute URL"],
  ["http://example.com/hook", "https"],
  ["ftp://example.com/", "https"],
  ["javascript:alert(1)", "https"],
  ["data:text/plain,hi", "https"],
  ["ws://example.com/", "https"],
  ["https://999.1.1.1/", "not an absolute URL"],
  ["https://1.2.3.4.5/", "not an absolute URL"],
  ["https://[::1/", "not an absolute URL"],
  // Userinfo
  ["https://user:pass@example.com/", "credentials"],
  ["https://user@example.com/", "credentials"],
  ["https://:pass@example.com/", "credentials"],
  // Localhost names
  ["https://a.localhost/", "localhost"],
  ["https://api.dev.localhost./", "localhost"],
  // IPv4: loopback, private, CGNAT, link-local, unspecified, reserved
  ["https://10.0.0.1/", "private"],
  ["https://10.255.255.255/", "private"],
  ["https://172.16.0.1/", "private"],
  ["https://172.31.255.255/", "private"],
  ["https://192.168.1.1:8443/x", "private"],
  ["https://100.64.0.1/", "CGNAT"],
  ["https://100.127.255.254/", "CGNAT"],
  ["https://169.254.169.254/latest/meta-data", "link-local"],
  ["https://0.0.0.0/", "unspecified"],
  ["https://0/", "unspecified"],
  ["https://0.1.2.3/", "unspecified"],
  ["https://224.0.0.1/", "multicast"],
  ["https://239.255.255.250/", "multicast"],
  ["https://255.255.255.255/", "reserved"],
  ["https://240.0.0.1/", "reserved"],
  ["https://192.0.2.10/", "documentation"],
  ["https://198.51.100.7/", "documentation"],
  ["https://203.0.113.9/", "documentation"],
  ["https://198.18.0.1/", "benchmarking"],
  // Other spellings of a private IPv4 (the URL parser normalises them, the policy checks the result)
  ["https://012.0.0.1/", "private"], // octal 10.0.0.1
  ["https://0xa.0.0.1/", "private"],
  ["https://167772161/", "private"], // decimal 10.0.0.1
  ["https://0xc0a80001/", "private"], // hex 192.168.0.1
  ["https://192.168.1/", "private"], // short form 192.168.0.1
  ["https://0xA9.0xFE.0xA9.0xFE/", "link-local"],
  ["https://%31%30.0.0.1/", "private"],
  // IPv6
  ["https://[::]/", "unspecified"],
  ["https://[0:0:0:0:0:0:0:0]/", "unspecified"],
  ["https://[fe80::1]/", "link-local"],
  ["https://[febf:ffff::1]/", "link-local"],
  ["https://[fc00::1]/", "unique-local"],
  ["https://[fd12:3456:789a::1]/", "unique-local"],
  ["https://[ff02::1]/", "multicast"],
  ["https://[fec0::1]/", "site-local"],
  ["https://[2001:db8::1]/", "documentation"],
  ["https://[3fff::1]/", "documentation"],
  ["https://[2001::1]/", "reserved"], // Teredo
  ["https://[100::1]/", "reserved"], // discard-only
  ["https://[::ffff:10.0.0.1]/", "private"], // IPv4-mapped
  ["https://[::ffff:a00:1]/", "private"],
  ["https://[::ffff:169.254.169.254]/", "link-local"],
  ["https://[::ffff:8.8.8.8]/", "IPv4-mapped"], // mapped public: refused too, nothing needs it
  ["https://[::10.0.0.1]/", "IPv4-compatible"],
  ["https://[64:ff9b::a00:1]/", "private"], // NAT64 of 10.0.0.1
  ["https://[2002:c0a8:101::1]/", "private"], // 6to4 of 192.168.1.1
];

/** Loopback: refused, but allowed (with http too) under ALLOW_INSECURE_WEBHOOKS for local development. */
const loopback: [string, string][] = [
  ["https://localhost/", "localhost"],
  ["https://LOCALHOST:8787/hook", "localhost"],
  ["https://localhost./", "localhost"],
  ["http://localhost:9000/hook", "https"],
  ["https://127.0.0.1/", "loopback"],
  ["http://127.0.0.1:9000/hook", "https"],
  ["https://127.255.255.254/", "loopback"],
  ["https://2130706433/", "loopback"], // decimal
  ["https://0x7f000001/", "loopback"], // hex
  ["https://0x7f.1/", "loopback"], // hex, short
  ["https://0177.0.0.1/", "loopback"], // octal
  ["https://127.1/", "loopback"], // short
  ["https://%31%32%37.0.0.1/", "loopback"], // percent-encoded
  ["https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback"], // full-width digits
  ["https://[::1]/", "loopback"],
  ["http://[::1]:9000/", "https"],
  ["https://[0:0:0:0:0:0:0:1]/", "loopback"],
];

/** Loopback in forms that are refused even for local development. */
const loopbackAlwaysRefused: [string, string][] = [
  ["https://[::ffff:127.0.0.1]/", "loopback"],
  ["https://[::ffff:7f00:1]/", "loopback"],
  ["https://[64:ff9b::7f00:1]/", "loopback"],
  ["https://[2002:7f00:1::1]/", "loopback"],
  ["http://user@localhost:9000/", "credentials"],
  ["http://127.0.0.1.example.com/", "https"],
  ["http://10.0.0.1/", "https"],
  ["http://a.localhost/", "https"],
  ["https://localhost../", "empty label"],
  ["https://example..com/", "empty label"],
  ["http://localhost../", "empty label"],
];

describe("checkWebhookUrl", () => {
  it.each(allowed)("allows %s", (url) => {
    expect(checkWebhookUrl(url, false)).toBeNull();
    expect(checkWebhookUrl(url, true)).toBeNull();
  });

  it.each(refused)("refuses %s (%s)", (url, reason) => {
    expect(checkWebhookUrl(url, false)).toContain(reason);
    expect(checkWebhookUrl(url, true)).toContain(reason);
  });

  it.each(loopback)("refuses %s (%s) unless insecure webhooks are allowed", (url, reason) => {
    expect(checkWebhookUrl(url, false)).toContain(reason);
    expect(checkWebhookUrl(url, true)).toBeNull();
  });

  it.each(loopbackAlwaysRefused)("refuses %s (%s) even when insecure webhooks are allowed", (url, reason) => {
    expect(checkWebhookUrl(url, false)).toContain(reason);
    expect(checkWebhookUrl(url, true)).toContain(reason);
  });

  it("gives a short reason", () => {
    for (const [url] of [...refused, ...loopback]) expect((checkWebhookUrl(url, false) ?? "").length).toBeLessThan(40);
  });
});
