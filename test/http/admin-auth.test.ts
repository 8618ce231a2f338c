import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/kernel/crypto";
import { allRoutes } from "../../src/app";
import { forgetCachedKeys } from "../../src/http/auth";
import { addClient, call, seedDemo } from "../helpers";
import { ADMIN_TOKEN, admin, snapshot } from "../admin-helpers";

const ROUTES = await allRoutes();

const SAMPLE_PARAMS: Record<string, string> = {
  clientId: "demo",
  currency: "USD",
  keyId: "key_0123456789abcdef",
  sku: "DEMO-EU-FIXED",
  base: "USD",
  target: "EUR",
  orderId: `ord_${"0".repeat(64)}`,
  id: "1",
};

const adminRoutes = ROUTES.filter(({ path }) => path.startsWith("/admin/")).map(({ method, path }) => ({
  method,
  path: path.replace(/:(\w+)/g, (_, name: string) => SAMPLE_PARAMS[name]!),
}));

describe("operator routes need the admin token", () => {
  it("covers every /admin route of the router", () => {
    expect(adminRoutes.length).toBeGreaterThanOrEqual(28);
  });

  it("403 without a token, with a wrong one, with the client API key, with a token one character off; nothing changes", async () => {
    await seedDemo();
    const before = await snapshot();
    const body = { amount: "10", idempotencyKey: "k", reason: "r", name: "x", rate: "1", codes: [] };
    for (const { method, path } of adminRoutes) {
      for (const token of [
        null,
        "wrong-admin-token-value",
        "sk_test_demo",
        `${ADMIN_TOKEN.slice(0, -1)}X`,
        `${ADMIN_TOKEN}x`,
        ADMIN_TOKEN.toUpperCase(),
      ]) {
        const response = await admin(method, path, method === "GET" || method === "DELETE" ? undefined : body, {
          token,
        });
        expect(response.status, `${method} ${path} with ${token}`).toBe(403);
        expect(response.body).toEqual({
          message: "Authentication credentials are missing or invalid",
          code: "unauthenticated",
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("client routes need an API key", async () => {
    for (const path of ["/products", "/wallets"]) {
      expect((await call("GET", path, { key: null })).status).toBe(403);
      expect((await call("GET", path, { key: "sk_live_unknown" })).status).toBe(403);
      expect((await call("GET", path, { key: ADMIN_TOKEN })).status).toBe(403);
    }
  });

  it("records the token's label, not the token, in the audit log", async () => {
    const response = await admin("PUT", "/admin/exchange-rates/USD/CHF", { rate: "0.9" });
    expect(response.status).toBe(200);
    const row = await env.DB.prepare(`SELECT actor, request_id FROM audit_log ORDER BY id DESC LIMIT 1`).first<{
      actor: string;
      request_id: string;
    }>();
    expect(row!.actor).toBe(`admin:${(await sha256Hex(ADMIN_TOKEN)).slice(0, 8)}`);
    expect(row!.request_id).toBe(response.headers.get("x-request-id"));
    const all = await env.DB.prepare(`SELECT * FROM audit_log`).all();
    expect(JSON.stringify(all.results)).not.toContain(ADMIN_TOKEN);
  });
});

describe("a revoked API key", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gets 403 at once in the isolate that revoked it (revoke route)", async () => {
    const created = await admin("POST", "/admin/clients", { id: "revoke-now", name: "Revoke now" });
    const { apiKey, key } = created.body.data;
    expect((await call("GET", "/wallets", { key: apiKey })).status).toBe(200);
    const revoked = await admin("POST", `/admin/clients/revoke-now/keys/${key.keyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.key.revokedAt).toEqual(expect.any(Number));
    const after = await call("GET", "/wallets", { key: apiKey });
    expect(after.status).toBe(403);
    expect(after.body.code).toBe("unauthenticated");
  });

  it("gets 403 once the rotation route revoked it; the new key works", async () => {
    const created = await admin("POST", "/admin/clients", { id: "rotate-now", name: "Rotate now" });
    const old = created.body.data.apiKey;
    expect((await call("GET", "/products", { key: old })).status).toBe(200);
    const rotated = await admin("POST", "/admin/clients/rotate-now/keys/rotate", { label: "second" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.revokedKeyIds).toEqual([created.body.data.key.keyId]);
    expect((await call("GET", "/products", { key: old })).status).toBe(403);
    expect((await call("GET", "/products", { key: rotated.body.data.apiKey })).status).toBe(200);
  });

  it("revoked elsewhere (another isolate's cache is not ours): served from the cache for at most API_KEY_CACHE_SECONDS, then 403", async () => {
    const key = await addClient("revoked-elsewhere");
    // No earlier view of the primary in this isolate: the lookup below reads the primary, so the key is
    // known to be live as of now, and cached until now + API_KEY_CACHE_SECONDS.
    forgetCachedKeys();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    expect((await call("GET", "/wallets", { key })).status).toBe(200); // cached now
    // What the revoke route does in another isolate: the row changes, this isolate's cache does not.
    await env.DB.prepare(`UPDATE api_keys SET revoked_at = ?1 WHERE client_id = 'revoked-elsewhere'`)
      .bind(Date.now())
      .run();
    const staleness = Number(env.API_KEY_CACHE_SECONDS) * 1000;
    expect(staleness).toBe(30_000);
    vi.advanceTimersByTime(staleness - 1);
    expect((await call("GET", "/wallets", { key })).status).toBe(200); // within the stated staleness
    vi.advanceTimersByTime(2);
    expect((await call("GET", "/wallets", { key })).status).toBe(403);
  });
});
