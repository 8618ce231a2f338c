import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/kernel/crypto";
import { call } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, auditActions, snapshot } from "../admin-helpers";

describe("POST /admin/clients", () => {
  it("creates a client; the key and the webhook secret are in the answer once, only the key's hash is stored", async () => {
    const response = await admin("POST", "/admin/clients", { id: "acme", name: "Acme", keyLabel: "prod" });
    expect(response.status).toBe(200);
    await expectConforms("POST", "/admin/clients", response);
    const { client, apiKey, key, webhookSecret } = response.body.data;
    expect(client).toEqual({ id: "acme", name: "Acme", createdAt: expect.any(Number), disabledAt: null, region: null });
    const hash = await sha256Hex(apiKey);
    expect(key).toEqual({
      keyId: `key_${hash.slice(0, 16)}`,
      label: "prod",
      createdAt: client.createdAt,
      revokedAt: null,
      scopes: "all",
      allowedIps: null,
    });
    const keys = await env.DB.prepare(`SELECT * FROM api_keys WHERE client_id = 'acme'`).all();
    expect(keys.results).toEqual([
      {
        key_hash: hash,
        client_id: "acme",
        label: "prod",
        created_at: client.createdAt,
        revoked_at: null,
        scopes: "all",
        allowed_ips: null,
      },
    ]);
    const everything = JSON.stringify(await snapshot());
    expect(everything).not.toContain(apiKey);
    // The webhook secret signs deliveries, so it is kept as is (and never returned again).
    const row = await env.DB.prepare(`SELECT webhook_secret FROM clients WHERE id = 'acme'`).first<{
      webhook_secret: string;
    }>();
    expect(row!.webhook_secret).toBe(webhookSecret);
    expect(JSON.stringify((await admin("GET", "/admin/clients/acme")).body)).not.toContain(webhookSecret);
    expect((await call("GET", "/wallets", { key: apiKey })).body.data).toEqual({ wallets: [] });
  });

  it("generates an id when none is given", async () => {
    const response = await admin("POST", "/admin/clients", { name: "No id" });
    expect(response.status).toBe(200);
    expect(response.body.data.client.id).toMatch(/^cli_[0-9a-f]{24}$/);
  });

  it("409 for an existing id; nothing changes", async () => {
    await admin("POST", "/admin/clients", { id: "taken", name: "First" });
    const before = await snapshot();
    const response = await admin("POST", "/admin/clients", { id: "taken", name: "Second" });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      message: "Client already exists",
      code: "client_exists",
      details: { clientId: "taken" },
    });
    await expectConforms("POST", "/admin/clients", response);
    expect(await snapshot()).toEqual(before);
  });

  it("400 for bad bodies; nothing changes", async () => {
    const before = await snapshot();
    const bad: [unknown, string][] = [
      [{}, "invalid_request_body"],
      [{ name: "" }, "invalid_request_body"],
      [{ name: "x".repeat(201) }, "invalid_request_body"],
      [{ id: "has space", name: "x" }, "invalid_request_body"],
      [{ id: "a/b", name: "x" }, "invalid_request_body"],
      [{ name: "x", nmae: "typo" }, "invalid_request_body"],
      [{ name: 5 }, "invalid_request_body"],
      [[], "invalid_request_body"],
    ];
    for (const [body, code] of bad) {
      const response = await admin("POST", "/admin/clients", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe(code);
      await expectConforms("POST", "/admin/clients", response);
    }
    const malformed = await admin("POST", "/admin/clients", undefined, {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.body.code).toBe("malformed_json");
    const huge = await admin("POST", "/admin/clients", { name: "x".repeat(70_000) });
    expect(huge.status).toBe(413);
    expect(await snapshot()).toEqual(before);
  });
});

describe("GET /admin/clients and /admin/clients/:clientId", () => {
  it("lists clients by id, a page at a time", async () => {
    for (const id of ["page-c", "page-a", "page-b"]) await admin("POST", "/admin/clients", { id, name: id });
    const first = await admin("GET", "/admin/clients?limit=2&after=page-");
    expect(first.status).toBe(200);
    await expectConforms("GET", "/admin/clients", first);
    expect(first.body.data.clients.map((client: { id: string }) => client.id)).toEqual(["page-a", "page-b"]);
    expect(first.body.data.next).toBe("page-b");
    const second = await admin("GET", `/admin/clients?limit=2&after=${first.body.data.next}`);
    expect(second.body.data.clients.map((client: { id: string }) => client.id)[0]).toBe("page-c");
    for (const query of ["limit=0", "limit=501", "limit=x", "limit=1&limit=2"]) {
      const response = await admin("GET", `/admin/clients?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe("invalid_parameters");
    }
  });

  it("shows a client's keys (ids only) and wallets with balances; 404 for an unknown client", async () => {
    const created = await admin("POST", "/admin/clients", { id: "detail", name: "Detail" });
    await admin("POST", "/admin/wallets/detail/EUR/top-ups", { amount: "12.5", idempotencyKey: "d1", reason: "test" });
    const response = await admin("GET", "/admin/clients/detail");
    expect(response.status).toBe(200);
    await expectConforms("GET", "/admin/clients/{clientId}", response);
    expect(response.body.data.keys).toEqual([created.body.data.key]);
    expect(response.body.data.wallets).toEqual([{ currency: "EUR", balance: 12.5 }]);
    expect(JSON.stringify(response.body)).not.toContain(created.body.data.apiKey);
    const missing = await admin("GET", "/admin/clients/nobody");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("client_not_found");
    expect((await admin("GET", "/admin/clients/bad%20id")).status).toBe(400);
    expect((await admin("GET", "/admin/clients/bad%ZZ")).status).toBe(400);
  });
});

describe("API keys", () => {
  it("issues another key: both work; revoking one leaves the other", async () => {
    const created = await admin("POST", "/admin/clients", { id: "two-keys", name: "Two keys" });
    const issued = await admin("POST", "/admin/clients/two-keys/keys", { label: "ci" });
    expect(issued.status).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/keys", issued);
    expect(issued.body.data.revokedKeyIds).toEqual([]);
    expect(issued.body.data.key.label).toBe("ci");
    for (const key of [created.body.data.apiKey, issued.body.data.apiKey])
      expect((await call("GET", "/wallets", { key })).status).toBe(200);
    const revoked = await admin("POST", `/admin/clients/two-keys/keys/${created.body.data.key.keyId}/revoke`);
    await expectConforms("POST", "/admin/clients/{clientId}/keys/{keyId}/revoke", revoked);
    expect(revoked.body.message).toBe("API key revoked");
    expect((await call("GET", "/wallets", { key: created.body.data.apiKey })).status).toBe(403);
    expect((await call("GET", "/wallets", { key: issued.body.data.apiKey })).status).toBe(200);
  });

  it("revoking a revoked key changes nothing", async () => {
    const created = await admin("POST", "/admin/clients", { id: "revoke-twice", name: "x" });
    const path = `/admin/clients/revoke-twice/keys/${created.body.data.key.keyId}/revoke`;
    const first = await admin("POST", path);
    const before = await snapshot();
    const second = await admin("POST", path);
    expect(second.status).toBe(200);
    expect(second.body.message).toBe("API key already revoked");
    expect(second.body.data.key.revokedAt).toBe(first.body.data.key.revokedAt);
    expect(await snapshot()).toEqual(before);
  });

  it("404 for an unknown key, another client's key or an unknown client; 400 for a malformed key id; nothing changes", async () => {
    const a = await admin("POST", "/admin/clients", { id: "key-owner", name: "x" });
    await admin("POST", "/admin/clients", { id: "not-owner", name: "x" });
    const before = await snapshot();
    const unknown = await admin("POST", "/admin/clients/key-owner/keys/key_0000000000000000/revoke");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("api_key_not_found");
    expect((await admin("POST", `/admin/clients/not-owner/keys/${a.body.data.key.keyId}/revoke`)).body.code).toBe(
      "api_key_not_found",
    );
    expect((await admin("POST", `/admin/clients/nobody/keys/${a.body.data.key.keyId}/revoke`)).body.code).toBe(
      "client_not_found",
    );
    const malformed = await admin("POST", "/admin/clients/key-owner/keys/sk_live_abc/revoke");
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("invalid_parameters");
    expect((await admin("POST", "/admin/clients/nobody/keys/rotate", {})).status).toBe(404);
    expect((await admin("POST", "/admin/clients/key-owner/keys", { label: 5 })).status).toBe(400);
    expect((await admin("POST", "/admin/clients/key-owner/keys/rotate", { lable: "typo" })).status).toBe(400);
    expect(await snapshot()).toEqual(before);
    expect((await call("GET", "/wallets", { key: a.body.data.apiKey })).status).toBe(200);
  });

  it("rotation revokes every other key and answers their ids", async () => {
    const created = await admin("POST", "/admin/clients", { id: "rotate-all", name: "x" });
    const second = await admin("POST", "/admin/clients/rotate-all/keys", {});
    const rotated = await admin("POST", "/admin/clients/rotate-all/keys/rotate", {});
    expect(rotated.status).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/keys/rotate", rotated);
    expect(rotated.body.data.revokedKeyIds.sort()).toEqual(
      [created.body.data.key.keyId, second.body.data.key.keyId].sort(),
    );
    const detail = await admin("GET", "/admin/clients/rotate-all");
    const active = detail.body.data.keys.filter((key: { revokedAt: number | null }) => key.revokedAt === null);
    expect(active).toEqual([rotated.body.data.key]);
  });
});

describe("POST /admin/clients/:clientId/webhook-secret/rotate", () => {
  it("replaces the signing secret; 404 for an unknown client", async () => {
    const created = await admin("POST", "/admin/clients", { id: "secret", name: "x" });
    const rotated = await admin("POST", "/admin/clients/secret/webhook-secret/rotate");
    expect(rotated.status).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/webhook-secret/rotate", rotated);
    expect(rotated.body.data.webhookSecret).not.toBe(created.body.data.webhookSecret);
    const row = await env.DB.prepare(`SELECT webhook_secret FROM clients WHERE id = 'secret'`).first<{
      webhook_secret: string;
    }>();
    expect(row!.webhook_secret).toBe(rotated.body.data.webhookSecret);
    expect((await admin("POST", "/admin/clients/nobody/webhook-secret/rotate")).status).toBe(404);
  });
});

describe("audit", () => {
  it("records each client action once, without secrets", async () => {
    const before = (await auditActions()).length;
    const created = await admin("POST", "/admin/clients", { id: "audited", name: "Audited" });
    await admin("POST", "/admin/clients/audited/keys", { label: "b" });
    await admin("POST", "/admin/clients/audited/keys/rotate", {});
    await admin("POST", `/admin/clients/audited/keys/${created.body.data.key.keyId}/revoke`);
    await admin("POST", "/admin/clients/audited/webhook-secret/rotate");
    expect((await auditActions()).slice(before)).toEqual([
      "client.create",
      "client.keys.issue",
      "client.keys.rotate",
      "client.webhook_secret.rotate",
    ]);
    const log = await admin("GET", "/admin/audit?target=client:audited");
    await expectConforms("GET", "/admin/audit", log);
    expect(log.body.data.entries).toHaveLength(4);
    expect(JSON.stringify(log.body)).not.toContain(created.body.data.apiKey);
    expect(JSON.stringify(log.body)).not.toContain(created.body.data.webhookSecret);
  });
});
