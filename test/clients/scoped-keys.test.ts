/**
 * Scoped keys (docs/api.md, Keys and scopes; docs/operator-api.md, Scoped keys): an operator issues a key
 * with scopes and an IP allow-list, a route needing a scope the key lacks is 403 insufficient_scope, a
 * request from outside the list is 403 ip_not_allowed, bad input changes nothing, and a key's access can be
 * changed, audited. The walk of every client route with every single scope is test/operators/scope-walk.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { handleRequest } from "../../src/app";
import { admin, snapshot } from "../admin-helpers";
import { addClient, BASE, call, countingEnv, seedDemo } from "../helpers";

const FROM = { "cf-connecting-ip": "198.51.100.9" };
const EXAMPLE_ORDER = {
  reference: "scoped-1",
  wallet: "USD",
  productList: [{ sku: "DEMO-US-FIXED", quote: 10, quantity: 1 }],
};

async function issue(clientId: string, body: Record<string, unknown>): Promise<{ apiKey: string; keyId: string }> {
  const issued = await admin("POST", `/admin/clients/${clientId}/keys`, body);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return { apiKey: issued.body.data.apiKey, keyId: issued.body.data.key.keyId };
}

beforeAll(async () => {
  await seedDemo();
  await addClient("finance-co", { USD: "100" });
});

describe("a finance team's books:read key", () => {
  it("reads the statement, the ledger and the balances, and cannot buy, confirm or read an order", async () => {
    const { apiKey } = await issue("finance-co", { label: "finance", scopes: ["books:read"] });
    const statement = await call("GET", `/wallets/USD/statement?from=0&to=${Date.now()}`, { key: apiKey });
    expect(statement.status).toBe(200);
    expect(statement.headers.get("content-type")).toContain("text/csv");
    expect((await call("GET", "/wallets/USD/ledger", { key: apiKey })).status).toBe(200);
    expect((await call("GET", "/wallets", { key: apiKey })).body.data.wallets).toEqual([
      { currency: "USD", balance: 100 },
    ]);
    const before = await snapshot();
    const create = await call("POST", "/order/create", { key: apiKey, body: EXAMPLE_ORDER });
    expect(create.status).toBe(403);
    expect(create.body).toEqual({
      message: "This API key does not have the scope this route needs",
      code: "insufficient_scope",
      details: { needed: "orders:write", scopes: ["books:read"] },
    });
    expect((await call("PUT", "/order/confirm", { key: apiKey, body: { orderId: "ord_x" } })).body.code).toBe(
      "insufficient_scope",
    );
    const get = await call("GET", "/order/get?reference=scoped-1", { key: apiKey });
    expect(get.body).toMatchObject({ code: "insufficient_scope", details: { needed: "orders:read" } });
    // The products are any key's to read.
    expect((await call("GET", "/products", { key: apiKey })).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it("a key issued before scopes (no scopes written) keeps every scope", async () => {
    const old = await addClient("old-key-co", { USD: "0" });
    const { results } = await env.DB.prepare(
      `SELECT scopes, allowed_ips FROM api_keys WHERE client_id = 'old-key-co'`,
    ).all();
    expect(results).toEqual([{ scopes: "all", allowed_ips: null }]);
    expect((await call("GET", "/order/get?reference=none", { key: old })).status).toBe(404);
    expect((await call("GET", "/wallets", { key: old })).status).toBe(200);
    const create = await call("POST", "/order/create", { key: old, body: { reference: "x" } });
    expect(create.status).toBe(400);
  });
});

describe("the IP allow-list", () => {
  it("takes a request from a listed address or range, and refuses one from elsewhere or without an address", async () => {
    const { apiKey } = await issue("finance-co", {
      scopes: ["orders:read"],
      allowedIps: ["198.51.100.0/24", "2001:DB8::1"],
    });
    const get = (headers: Record<string, string>) => call("GET", "/order/get?reference=none", { key: apiKey, headers });
    expect((await get(FROM)).status).toBe(404);
    expect((await get({ "cf-connecting-ip": "2001:db8::1" })).status).toBe(404);
    const outside = await get({ "cf-connecting-ip": "203.0.113.9" });
    expect(outside.status).toBe(403);
    expect(outside.body).toEqual({
      message: "This API key may not be used from this address",
      code: "ip_not_allowed",
      details: { address: "203.0.113.9" },
    });
    // Fail closed: no CF-Connecting-IP (Cloudflare's edge always sets it) is outside every list.
    expect((await get({})).body).toEqual({ ...outside.body, details: { address: null } });
    // Before the scope: an outsider learns nothing of what the key may do.
    const create = await call("POST", "/order/create", {
      key: apiKey,
      body: EXAMPLE_ORDER,
      headers: { "cf-connecting-ip": "203.0.113.9" },
    });
    expect(create.body.code).toBe("ip_not_allowed");
    // Any route, the products too.
    expect((await call("GET", "/products", { key: apiKey })).body.code).toBe("ip_not_allowed");
  });

  it("adds no round trip: the scopes and allow-list are cached with the key", async () => {
    const { apiKey } = await issue("finance-co", { scopes: ["orders:read"], allowedIps: ["198.51.100.0/24"] });
    const counted = countingEnv({ API_KEY_CACHE_SECONDS: "3600" });
    const send = async (address: string) => {
      const request = new Request(`${BASE}/order/get?orderId=ord_none`, {
        headers: { authorization: `Bearer ${apiKey}`, "cf-connecting-ip": address },
      });
      const exec = createExecutionContext();
      const response = await handleRequest(request, counted.env, exec);
      await waitOnExecutionContext(exec);
      return (await response.json<{ code: string }>()).code;
    };
    expect(await send("198.51.100.1")).toBe("order_not_found");
    expect(counted.statements()).toBe(1);
    expect(await send("198.51.100.2")).toBe("order_not_found");
    expect(await send("203.0.113.1")).toBe("ip_not_allowed");
    expect(counted.statements()).toBe(1);
  });
});

describe("issuing a scoped key: bad input is 400 and changes nothing", () => {
  const refusals: [string, Record<string, unknown>][] = [
    ["an unknown scope", { scopes: ["orders:delete"] }],
    ["no scope", { scopes: [] }],
    ["a scope twice", { scopes: ["books:read", "books:read"] }],
    ["a scope in the wrong case", { scopes: ["Books:Read"] }],
    ["all spelled otherwise", { scopes: "ALL" }],
    ["a CIDR with host bits", { allowedIps: ["10.0.0.1/8"] }],
    ["a prefix too long", { allowedIps: ["10.0.0.0/33"] }],
    ["a host name", { allowedIps: ["office.example.com"] }],
    ["an empty list", { allowedIps: [] }],
    ["an entry twice", { allowedIps: ["10.0.0.0/8", "10.0.0.0/8"] }],
    ["too many entries", { allowedIps: Array.from({ length: 33 }, (_, index) => `10.0.${index}.0/24`) }],
    ["an entry that is not text", { allowedIps: [167772160] }],
  ];
  it.each(refusals)("%s", async (_, body) => {
    const before = await snapshot();
    for (const path of ["/admin/clients/finance-co/keys", "/admin/clients/finance-co/keys/rotate"]) {
      const refused = await admin("POST", path, body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.code).toBe("invalid_request_body");
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("PUT /admin/clients/:clientId/keys/:keyId/access", () => {
  it("changes a key's scopes and allow-list at once, audited with before and after", async () => {
    const { apiKey, keyId } = await issue("finance-co", { label: "backend" });
    expect((await call("GET", "/order/get?reference=none", { key: apiKey })).status).toBe(404);
    const set = await admin("PUT", `/admin/clients/finance-co/keys/${keyId}/access`, {
      scopes: ["books:read"],
      allowedIps: ["198.51.100.0/24"],
    });
    expect(set.status).toBe(200);
    expect(set.body.message).toBe("API key access set");
    expect(set.body.data.key).toMatchObject({ keyId, scopes: ["books:read"], allowedIps: ["198.51.100.0/24"] });
    // The same key: at once in this isolate (the operator's write forgets the cached keys).
    expect((await call("GET", "/order/get?reference=none", { key: apiKey, headers: FROM })).body.code).toBe(
      "insufficient_scope",
    );
    expect((await call("GET", "/wallets", { key: apiKey, headers: FROM })).status).toBe(200);
    expect((await call("GET", "/wallets", { key: apiKey })).body.code).toBe("ip_not_allowed");
    const { results } = await env.DB.prepare(
      `SELECT action, details FROM audit_log WHERE target = 'client:finance-co' AND action = 'client.keys.access'`,
    ).all<{ action: string; details: string }>();
    expect(results.map((row) => JSON.parse(row.details))).toEqual([
      {
        keyId,
        before: { scopes: "all", allowedIps: null },
        after: { scopes: ["books:read"], allowedIps: ["198.51.100.0/24"] },
      },
    ]);
    // Back to everything, from anywhere; the same again changes nothing and audits nothing.
    const back = { scopes: "all", allowedIps: null };
    expect((await admin("PUT", `/admin/clients/finance-co/keys/${keyId}/access`, back)).body.message).toBe(
      "API key access set",
    );
    const before = await snapshot();
    expect((await admin("PUT", `/admin/clients/finance-co/keys/${keyId}/access`, back)).body.message).toBe(
      "API key access unchanged",
    );
    expect(await snapshot()).toEqual(before);
    expect((await call("GET", "/order/get?reference=none", { key: apiKey })).status).toBe(404);
  });

  it("refuses a revoked key (409), an unknown one or another client's (404) and bad input (400), changing nothing", async () => {
    const { keyId } = await issue("finance-co", {});
    await addClient("other-co");
    const { keyId: othersKey } = await issue("other-co", {});
    expect((await admin("POST", `/admin/clients/finance-co/keys/${keyId}/revoke`)).status).toBe(200);
    const before = await snapshot();
    const body = { scopes: ["books:read"], allowedIps: null };
    const revoked = await admin("PUT", `/admin/clients/finance-co/keys/${keyId}/access`, body);
    expect([revoked.status, revoked.body.code]).toEqual([409, "api_key_revoked"]);
    const unknown = await admin("PUT", "/admin/clients/finance-co/keys/key_0123456789abcdef/access", body);
    expect([unknown.status, unknown.body.code]).toEqual([404, "api_key_not_found"]);
    const others = await admin("PUT", `/admin/clients/finance-co/keys/${othersKey}/access`, body);
    expect([others.status, others.body.code]).toEqual([404, "api_key_not_found"]);
    const partial = await admin("PUT", `/admin/clients/other-co/keys/${othersKey}/access`, { scopes: ["books:read"] });
    expect([partial.status, partial.body.code]).toEqual([400, "invalid_request_body"]);
    const bad = await admin("PUT", `/admin/clients/other-co/keys/${othersKey}/access`, {
      scopes: ["books:write"],
      allowedIps: null,
    });
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_request_body"]);
    expect(await snapshot()).toEqual(before);
  });

  it("a rotation's new key and the key of a new client hold every scope, from anywhere", async () => {
    const created = await admin("POST", "/admin/clients", { id: "fresh-co", name: "Fresh" });
    expect(created.body.data.key).toMatchObject({ scopes: "all", allowedIps: null });
    const rotated = await admin("POST", "/admin/clients/fresh-co/keys/rotate", { scopes: ["orders:read"] });
    expect(rotated.body.data.key).toMatchObject({ scopes: ["orders:read"], allowedIps: null });
    const detail = await admin("GET", "/admin/clients/fresh-co");
    expect(detail.body.data.keys.map((key: { scopes: unknown }) => key.scopes)).toEqual(["all", ["orders:read"]]);
  });

  it("a rotation that names no access keeps the access of the keys it replaces, or asks for it", async () => {
    await admin("POST", "/admin/clients", { id: "narrow-co", name: "Narrow" });
    const access = { scopes: ["books:read"], allowedIps: ["198.51.100.0/24"] };
    const first = await admin("POST", "/admin/clients/narrow-co/keys/rotate", access);
    expect(first.body.data.key).toMatchObject(access);
    // The leaked key rotated in a hurry: its successor is still read-only and still bound to its network.
    const rotated = await admin("POST", "/admin/clients/narrow-co/keys/rotate", { label: "after the leak" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.key).toMatchObject(access);
    // Two live keys of different access: no one answer, so the rotation must name it and changes nothing.
    await admin("POST", "/admin/clients/narrow-co/keys", { scopes: ["orders:read"] });
    const before = (await admin("GET", "/admin/clients/narrow-co")).body.data.keys;
    const refused = await admin("POST", "/admin/clients/narrow-co/keys/rotate", {});
    expect([refused.status, refused.body.code]).toEqual([400, "invalid_request_body"]);
    expect((await admin("GET", "/admin/clients/narrow-co")).body.data.keys).toEqual(before);
    const named = await admin("POST", "/admin/clients/narrow-co/keys/rotate", { scopes: ["orders:read"] });
    expect(named.body.data.key).toMatchObject({ scopes: ["orders:read"], allowedIps: null });
  });
});
