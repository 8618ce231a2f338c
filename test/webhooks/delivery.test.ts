import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { backoffSeconds, maxAttemptsFrom, signatureOf, signedHeaders } from "../../src/webhooks/delivery";
import { newWebhookSecret, webhookSigningKey } from "../../src/clients/client-secrets";

const BODY = JSON.stringify({
  id: "evt_1",
  type: "order.confirmed",
  createdAt: 1,
  data: { orderId: "o", state: "confirmed", reference: "r" },
});

describe("Standard Webhooks signature", () => {
  it("matches the Standard Webhooks reference vector", async () => {
    // The example of the Standard Webhooks specification's reference libraries.
    const key = webhookSigningKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!;
    expect(await signatureOf(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("is what the standardwebhooks library computes for the same id, time and body", async () => {
    const secret = newWebhookSecret();
    const headers = await signedHeaders([webhookSigningKey(secret)!], "evt_1", 1_700_000_000, BODY);
    expect(headers).toEqual({
      "webhook-id": "evt_1",
      "webhook-timestamp": "1700000000",
      "webhook-signature": new Webhook(secret).sign("evt_1", new Date(1_700_000_000_000), BODY),
    });
  });

  it("joins one signature per key with a space, the current key's first", async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = await signedHeaders(
      [webhookSigningKey(current)!, webhookSigningKey(previous)!],
      "evt_2",
      1_700_000_000,
      BODY,
    );
    const date = new Date(1_700_000_000_000);
    expect(headers["webhook-signature"]).toBe(
      `${new Webhook(current).sign("evt_2", date, BODY)} ${new Webhook(previous).sign("evt_2", date, BODY)}`,
    );
  });

  it("changes with the key, the id, the time and every byte of the body", async () => {
    const key = webhookSigningKey(newWebhookSecret())!;
    const base = await signatureOf(key, "evt_1", 100, '{"a":1}');
    expect(await signatureOf(webhookSigningKey(newWebhookSecret())!, "evt_1", 100, '{"a":1}')).not.toBe(base);
    expect(await signatureOf(key, "evt_2", 100, '{"a":1}')).not.toBe(base);
    expect(await signatureOf(key, "evt_1", 101, '{"a":1}')).not.toBe(base);
    expect(await signatureOf(key, "evt_1", 100, '{"a": 1}')).not.toBe(base);
  });
});

describe("webhook secrets", () => {
  it("are whsec_ and base64 of 32 random bytes, the key being those bytes", () => {
    const secrets = new Set(Array.from({ length: 20 }, () => newWebhookSecret()));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(webhookSigningKey(secret)).toEqual(Uint8Array.from(atob(secret.slice(6)), (char) => char.charCodeAt(0)));
      expect(webhookSigningKey(secret)!.length).toBe(32);
    }
  });

  it("read an old whsec_<hex> secret as base64, as the Standard Webhooks libraries do: a 48-byte key", async () => {
    const legacy = `whsec_${"0123456789abcdef".repeat(4)}`;
    expect(webhookSigningKey(legacy)!.length).toBe(48);
    const headers = await signedHeaders([webhookSigningKey(legacy)!], "evt_3", 1_700_000_000, BODY);
    expect(headers["webhook-signature"]).toBe(new Webhook(legacy).sign("evt_3", new Date(1_700_000_000_000), BODY));
  });

  it("refuse what is not whsec_<base64>", () => {
    for (const bad of ["", "whsec_", "whsec_demo!", "whsec_abc", "sk_live_abcd", "whsec_abcd=", "demo"])
      expect(webhookSigningKey(bad), bad).toBeNull();
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
