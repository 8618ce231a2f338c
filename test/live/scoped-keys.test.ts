/**
 * Scoped keys in live mode (docs/api.md, Keys and scopes): the finance team's books:read key reads the
 * statement and cannot buy; a key used from outside its allow-list is 403 ip_not_allowed; the sandbox's
 * helpers stay 404, whatever the key's scopes.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, snapshot } from "../admin-helpers";
import { call, seedDemo } from "../helpers";

const FROM = { "cf-connecting-ip": "198.51.100.20" };

describe("scoped keys in live", () => {
  it("a books:read key reads the statement and cannot buy; an allow-list refuses other addresses", async () => {
    await seedDemo();
    // Live starts with no approval limit: the break-glass top-up below is posted alone under this one.
    await env.DB.prepare(
      `INSERT OR REPLACE INTO approval_limits (currency, amount, updated_at) VALUES ('USD', '1000000', 0)`,
    ).run();
    const created = await admin("POST", "/admin/clients", { id: "live-finance", name: "Live finance" });
    expect(created.status).toBe(200);
    expect(created.body.data.key).toMatchObject({ scopes: "all", allowedIps: null });
    const topped = await admin("POST", "/admin/wallets/live-finance/USD/top-ups", {
      amount: "5",
      idempotencyKey: "live-scoped-1",
      reason: "registered",
    });
    expect(topped.status, JSON.stringify(topped.body)).toBe(200);
    const issued = await admin("POST", "/admin/clients/live-finance/keys", {
      label: "finance",
      scopes: ["books:read"],
      allowedIps: ["198.51.100.0/24"],
    });
    const key = issued.body.data.apiKey as string;
    expect(key).toMatch(/^sk_live_/);
    const statement = await call("GET", `/wallets/USD/statement?from=0&to=${Date.now()}`, { key, headers: FROM });
    expect(statement.status, JSON.stringify(statement.body)).toBe(200);
    const before = await snapshot();
    const create = await call("POST", "/order/create", {
      key,
      headers: FROM,
      body: { productList: [{ sku: "DEMO-US-FIXED", quote: 10, quantity: 1 }], wallet: "USD", reference: "live-s" },
    });
    expect([create.status, create.body.code]).toEqual([403, "insufficient_scope"]);
    expect(create.body.details).toEqual({ needed: "orders:write", scopes: ["books:read"] });
    const elsewhere = await call("GET", `/wallets/USD/statement?from=0&to=${Date.now()}`, {
      key,
      headers: { "cf-connecting-ip": "203.0.113.1" },
    });
    expect([elsewhere.status, elsewhere.body]).toEqual([
      403,
      {
        message: "This API key may not be used from this address",
        code: "ip_not_allowed",
        details: { address: "203.0.113.1" },
      },
    ]);
    expect((await call("GET", "/wallets", { key })).body.code).toBe("ip_not_allowed");
    // The sandbox's helpers are no route in live: 404 before any key is looked at.
    const helper = await call("POST", "/sandbox/webhooks/test", { key, headers: FROM, body: {} });
    expect([helper.status, helper.body.code]).toEqual([404, "route_not_found"]);
    expect(await snapshot()).toEqual(before);
  });
});
