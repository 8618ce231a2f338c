import { describe, expect, it } from "vitest";
import { backoffSeconds, maxAttemptsFrom, signatureHeader } from "../../src/webhooks/delivery";
import { expectedSignature, parseSignatureHeader } from "./receiver";

describe("signature", () => {
  it("is t=<unix s>,v1=<hex HMAC-SHA256(secret, '<t>.<raw body>')>", async () => {
    const body = JSON.stringify({ id: "evt_1", type: "order.confirmed", createdAt: 1, data: { orderId: "o", state: "confirmed", reference: "r" } });
    const header = await signatureHeader("whsec_demo", 1_700_000_000, body);
    const parsed = parseSignatureHeader(header);
    expect(parsed).not.toBeNull();
    expect(parsed!.t).toBe("1700000000");
    expect(parsed!.v1).toBe(await expectedSignature("whsec_demo", "1700000000", body));
  });

  it("matches a known HMAC-SHA256 vector", async () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?"; here data = "<t>.<body>".
    const header = await signatureHeader("Jefe", 0, "what do ya want for nothing?");
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("Jefe"), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    const mac = Uint8Array.from(parseSignatureHeader(header)!.v1.match(/../g)!.map((byte) => parseInt(byte, 16)));
    expect(await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode("0.what do ya want for nothing?"))).toBe(true);
  });

  it("changes with the secret, the time and every byte of the body", async () => {
    const base = await signatureHeader("s1", 100, '{"a":1}');
    expect(await signatureHeader("s2", 100, '{"a":1}')).not.toBe(base);
    expect((await signatureHeader("s1", 101, '{"a":1}')).split(",")[1]).not.toBe(base.split(",")[1]);
    expect(await signatureHeader("s1", 100, '{"a": 1}')).not.toBe(base);
  });
});

describe("backoff", () => {
  it("doubles from 10 s after each failed attempt, capped at an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(backoffSeconds)).toEqual([10, 20, 40, 80, 160, 320, 640]);
    expect(backoffSeconds(10)).toBe(3600);
    expect(backoffSeconds(1000)).toBe(3600);
    expect(backoffSeconds(0)).toBe(10);
  });

  it("reads WEBHOOK_MAX_ATTEMPTS, defaulting to 8", () => {
    expect(maxAttemptsFrom("8")).toBe(8);
    expect(maxAttemptsFrom("3")).toBe(3);
    expect(maxAttemptsFrom(undefined)).toBe(8);
    expect(maxAttemptsFrom("")).toBe(8);
    expect(maxAttemptsFrom("0")).toBe(8);
    expect(maxAttemptsFrom("2.5")).toBe(8);
  });
});
