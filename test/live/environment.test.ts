/**
 * The Worker in live mode (the vitest project "live", SERVICE_MODE=live): keys the operator issues are
 * sk_live_, a sandbox key is 403 wrong_environment whether or not this D1 holds it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addClient, call, seedDemo, topUp } from "../helpers";
import { expectLivemode } from "../livemode-check";
import { admin } from "../admin-helpers";
import { expectError } from "../order-helpers";

const SANDBOX_KEY_HERE =
  "This API key belongs to another environment: sk_test_… keys are for the sandbox; the live environment takes sk_live_… keys";

describe("API keys in live mode", () => {
  it("issues sk_live_ keys, which work here", async () => {
    const created = await admin("POST", "/admin/clients", { id: "live-client", name: "Live" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.apiKey).toMatch(/^sk_live_[0-9a-f]{64}$/);
    expect((await call("GET", "/wallets", { key: created.body.data.apiKey })).status).toBe(200);
    const issued = await admin("POST", "/admin/clients/live-client/keys", {});
    expect(issued.body.data.apiKey).toMatch(/^sk_live_[0-9a-f]{64}$/);
  });

  it("answers a sandbox key 403 wrong_environment naming the sandbox, even one this D1 holds", async () => {
    await seedDemo();
    const stored = await addClient("sandbox-keyed", { USD: "10" });
    expect(stored.startsWith("sk_test_")).toBe(true);
    for (const key of ["sk_test_demo", stored, "sk_test_never_issued"]) {
      const answer = await call("POST", "/order/create", {
        key,
        body: { productList: [], wallet: "USD", reference: "r" },
      });
      expectError(answer, 403, SANDBOX_KEY_HERE, "wrong_environment");
      expect(answer.body.details).toEqual({ keyEnvironment: "sandbox", environment: "live" });
    }
  });

  it("still answers an unknown key of no prefix, or of its own prefix, 403 unauthenticated", async () => {
    for (const key of ["legacy-key-0001", "sk_live_unknown"])
      expectError(
        await call("GET", "/wallets", { key }),
        403,
        "Authentication credentials are missing or invalid",
        "unauthenticated",
      );
  });
});

describe("livemode in live", () => {
  it("is true on the create and retrieve answers and on the order's events", async () => {
    await seedDemo();
    const created = await admin("POST", "/admin/clients", { id: "live-orders", name: "Live orders" });
    await env.DB.prepare(`INSERT INTO wallets (client_id, currency, created_at) VALUES ('live-orders', 'USD', ?1)`)
      .bind(Date.now())
      .run();
    await topUp("live-orders", "USD", "1000");
    await expectLivemode(created.body.data.apiKey, true);
  });
});
