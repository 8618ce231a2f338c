/**
 * Real deliveries, made by the queue handler the Worker exports, verified as an integrator would: with the
 * `standardwebhooks` library and the secret the operator API handed out. Covers a secret rotation (both
 * secrets verify for 24 h, then only the new one), a tampered body, a stale timestamp, a secret of the old
 * `whsec_<hex>` form, and a secret no library can use.
 */
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { queue } from "../../src/webhooks/queue-handler";
import { admin } from "../admin-helpers";
import { FakeReceiver, verifies, webhookHeaders, type Delivery } from "./receiver";
import { addWebhookClient, FakeQueue, runBatch, webhookMessage } from "./support";

const DAY_MS = 24 * 60 * 60 * 1000;
let receiver: FakeReceiver | undefined;
let dlq: FakeQueue;

beforeEach(() => {
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  dlq = new FakeQueue();
});

afterEach(() => {
  receiver?.restore();
  receiver = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** One delivery of a fresh event for the client through the Worker's queue handler; returns what the receiver got. */
async function deliverOnce(
  clientId: string,
  secret: string,
): Promise<{ delivery: Delivery; acked: boolean; eventId: string }> {
  receiver?.restore();
  receiver = new FakeReceiver({ secret });
  const message = webhookMessage(clientId);
  const testEnv = { ...env, ALLOW_INSECURE_WEBHOOKS: "true", WEBHOOKS_DLQ: dlq.asQueue() } as Env;
  const result = await runBatch("order-webhooks", [{ id: "m", body: message }], (batch, ctx) =>
    queue(batch, testEnv, ctx),
  );
  expect(receiver.deliveries).toHaveLength(1);
  return { delivery: receiver.deliveries[0]!, acked: result.explicitAcks.includes("m"), eventId: message.event.id };
}

async function createClient(id: string): Promise<string> {
  const created = await admin("POST", "/admin/clients", { id, name: id });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.webhookSecret as string;
}

async function rotate(id: string): Promise<string> {
  const rotated = await admin("POST", `/admin/clients/${id}/webhook-secret/rotate`);
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
  return rotated.body.data.webhookSecret as string;
}

/** Moves the client's last rotation into the past, as if that much time had gone by since. */
async function rotatedAgo(id: string, ms: number): Promise<void> {
  await env.DB.prepare(`UPDATE clients SET webhook_secret_rotated_at = ?2 WHERE id = ?1`)
    .bind(id, Date.now() - ms)
    .run();
}

describe("Standard Webhooks deliveries", () => {
  it("verify with the standardwebhooks library and the secret the operator API issued; the body is the event", async () => {
    const secret = await createClient("sw-plain");
    const { delivery, acked, eventId } = await deliverOnce("sw-plain", secret);
    expect(acked).toBe(true);
    expect(delivery.status).toBe(204);
    const event = new Webhook(secret).verify(delivery.body, webhookHeaders(delivery.headers)) as { id: string };
    expect(event.id).toBe(eventId);
    expect(delivery.headers.get("webhook-id")).toBe(eventId);
    expect(delivery.headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
    expect(delivery.headers.has("x-signature")).toBe(false);
  });

  it("carry the same webhook-id on every attempt, and each attempt's own timestamp", async () => {
    const secret = await createClient("sw-retry");
    receiver = new FakeReceiver({ secret, failFirst: 1 });
    const message = webhookMessage("sw-retry");
    const testEnv = { ...env, ALLOW_INSECURE_WEBHOOKS: "true", WEBHOOKS_DLQ: dlq.asQueue() } as Env;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() - 30_000);
    const first = await runBatch("order-webhooks", [{ id: "r", attempts: 1, body: message }], (batch, ctx) =>
      queue(batch, testEnv, ctx),
    );
    expect(first.retryMessages.map((retry) => retry.msgId)).toEqual(["r"]);
    vi.useRealTimers();
    const second = await runBatch("order-webhooks", [{ id: "r", attempts: 2, body: message }], (batch, ctx) =>
      queue(batch, testEnv, ctx),
    );
    expect(second.explicitAcks).toEqual(["r"]);
    const [failed, taken] = receiver.deliveries;
    expect(failed!.headers.get("webhook-id")).toBe(message.event.id);
    expect(taken!.headers.get("webhook-id")).toBe(message.event.id);
    expect(
      Number(taken!.headers.get("webhook-timestamp")) - Number(failed!.headers.get("webhook-timestamp")),
    ).toBeGreaterThanOrEqual(29);
    expect(taken!.signatureValid).toBe(true);
  });

  it("fail verification when one byte of the body changes, or the timestamp is changed", async () => {
    const secret = await createClient("sw-tamper");
    const { delivery } = await deliverOnce("sw-tamper", secret);
    expect(verifies(secret, delivery.body, delivery.headers)).toBe(true);
    const tampered = delivery.body.replace('"order.confirmed"', '"order.rejected"');
    expect(tampered).not.toBe(delivery.body);
    expect(() => new Webhook(secret).verify(tampered, webhookHeaders(delivery.headers))).toThrow(
      /No matching signature/,
    );
    const headers = webhookHeaders(delivery.headers);
    const moved = { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + 1) };
    expect(() => new Webhook(secret).verify(delivery.body, moved)).toThrow(/No matching signature/);
  });

  it("fail verification once the timestamp is older than the library's 5 minutes (a replayed capture)", async () => {
    const secret = await createClient("sw-stale");
    const { delivery } = await deliverOnce("sw-stale", secret);
    expect(verifies(secret, delivery.body, delivery.headers)).toBe(true);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6 * 60 * 1000);
    expect(() => new Webhook(secret).verify(delivery.body, webhookHeaders(delivery.headers))).toThrow(
      /timestamp too old/,
    );
  });
});

describe("a webhook secret rotation", () => {
  it("signs with both secrets for 24 h, then with the new one only", async () => {
    const previous = await createClient("sw-rotate");
    const current = await rotate("sw-rotate");
    expect(current).not.toBe(previous);
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    // Right after the rotation: two signatures, each secret verifies on its own.
    const fresh = await deliverOnce("sw-rotate", current);
    expect(fresh.delivery.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(current, fresh.delivery.body, fresh.delivery.headers)).toBe(true);
    expect(verifies(previous, fresh.delivery.body, fresh.delivery.headers)).toBe(true);
    // A receiver still holding the previous secret takes the delivery too.
    const onPrevious = await deliverOnce("sw-rotate", previous);
    expect(onPrevious.acked).toBe(true);
    expect(onPrevious.delivery.status).toBe(204);

    // A minute before the 24 h are up: still both.
    await rotatedAgo("sw-rotate", DAY_MS - 60_000);
    const late = await deliverOnce("sw-rotate", current);
    expect(late.delivery.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(previous, late.delivery.body, late.delivery.headers)).toBe(true);

    // After 24 h: the new secret only.
    await rotatedAgo("sw-rotate", DAY_MS + 1_000);
    const after = await deliverOnce("sw-rotate", current);
    expect(after.delivery.headers.get("webhook-signature")!.split(" ")).toHaveLength(1);
    expect(verifies(current, after.delivery.body, after.delivery.headers)).toBe(true);
    expect(verifies(previous, after.delivery.body, after.delivery.headers)).toBe(false);
    const stale = await deliverOnce("sw-rotate", previous);
    expect(stale.delivery.status).toBe(401);
    expect(stale.acked).toBe(false);
  });

  it("a second rotation within 24 h keeps only the secret it replaces beside the new one", async () => {
    const first = await createClient("sw-twice");
    const second = await rotate("sw-twice");
    const third = await rotate("sw-twice");
    const { delivery } = await deliverOnce("sw-twice", third);
    expect(delivery.headers.get("webhook-signature")!.split(" ")).toHaveLength(2);
    expect(verifies(third, delivery.body, delivery.headers)).toBe(true);
    expect(verifies(second, delivery.body, delivery.headers)).toBe(true);
    expect(verifies(first, delivery.body, delivery.headers)).toBe(false);
  });
});

describe("secrets issued before Standard Webhooks (whsec_<hex>)", () => {
  it("keep working: the secret the receiver holds verifies with the library, and again across its rotation", async () => {
    const legacy = `whsec_${[...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
    await addWebhookClient("sw-legacy", legacy);
    const before = await deliverOnce("sw-legacy", legacy);
    expect(before.acked).toBe(true);
    expect(verifies(legacy, before.delivery.body, before.delivery.headers)).toBe(true);

    const current = await rotate("sw-legacy");
    const after = await deliverOnce("sw-legacy", current);
    expect(verifies(current, after.delivery.body, after.delivery.headers)).toBe(true);
    expect(verifies(legacy, after.delivery.body, after.delivery.headers)).toBe(true);
  });

  it("a secret that is not whsec_<base64> is dead-lettered with the reason, not sent unverifiable", async () => {
    await addWebhookClient("sw-broken", "whsec_not base64!");
    receiver = new FakeReceiver({ secret: "whsec_unused" });
    const message = webhookMessage("sw-broken");
    const testEnv = { ...env, ALLOW_INSECURE_WEBHOOKS: "true", WEBHOOKS_DLQ: dlq.asQueue() } as Env;
    const result = await runBatch("order-webhooks", [{ id: "b", body: message }], (batch, ctx) =>
      queue(batch, testEnv, ctx),
    );
    expect(result.explicitAcks).toEqual(["b"]);
    expect(receiver.deliveries).toEqual([]);
    expect(dlq.sent).toEqual([
      {
        ...message,
        deadLetter: { attempts: 1, error: "webhook secret of client sw-broken is not whsec_<base64>; rotate it" },
      },
    ]);
  });
});

describe("the rotation route", () => {
  it("keeps the replaced secret and the time of the rotation for the overlap", async () => {
    const previous = await createClient("sw-row");
    const before = Date.now();
    const current = await rotate("sw-row");
    const row = await env.DB.prepare(
      `SELECT webhook_secret, previous_webhook_secret, webhook_secret_rotated_at FROM clients WHERE id = 'sw-row'`,
    ).first<{
      webhook_secret: string;
      previous_webhook_secret: string;
      webhook_secret_rotated_at: number;
    }>();
    expect(row!.webhook_secret).toBe(current);
    expect(row!.previous_webhook_secret).toBe(previous);
    expect(row!.webhook_secret_rotated_at).toBeGreaterThanOrEqual(before);
    expect(row!.webhook_secret_rotated_at).toBeLessThanOrEqual(Date.now());
  });
});
