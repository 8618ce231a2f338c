/**
 * The console's client page and scoped keys: each key's scopes and allow-list are shown, and the issue
 * form takes scopes and an allow-list, read through the operator API's own schema (a refusal is the
 * field's, with what was posted drawn back escaped).
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { addClient, call, seedDemo } from "../helpers";
import { fetchConsole, PROBE, PROBE_ESCAPED, signedIn } from "./console-helpers";

const HERE = "/console/clients/console-keys";

beforeAll(async () => {
  await seedDemo();
  await addClient("console-keys", { USD: "10" });
});

describe("the client page's keys", () => {
  it("issues a key with the scopes ticked and the allow-list given, and shows both for every key", async () => {
    const cookie = await signedIn("admin", "Ada Admin");
    const issued = await fetchConsole("POST", HERE, {
      cookie,
      form: { action: "issue", label: "finance", "scope:books:read": "on", allowedIps: "198.51.100.0/24\n2001:db8::1" },
    });
    expect(issued.status).toBe(200);
    const apiKey = /<p class="mono">(sk_test_[^<]+)<\/p>/.exec(issued.text)![1]!;
    const from = { "cf-connecting-ip": "198.51.100.7" };
    expect((await call("GET", "/wallets", { key: apiKey, headers: from })).status).toBe(200);
    expect((await call("GET", "/order/get?reference=x", { key: apiKey, headers: from })).body.code).toBe(
      "insufficient_scope",
    );
    expect((await call("GET", "/wallets", { key: apiKey })).body.code).toBe("ip_not_allowed");
    const page = await fetchConsole("GET", HERE, { cookie });
    expect(page.text).toContain(
      '<td>finance</td><td>books:read</td><td><span class="mono">198.51.100.0/24, 2001:db8::1</span></td>',
    );
    // The key addClient made before scopes: every scope, from anywhere.
    expect(page.text).toContain("<td>test</td><td>all</td><td>anywhere</td>");
    expect(page.text).toContain('name="scope:orders:write"');
    const { results } = await env.DB.prepare(
      `SELECT details FROM audit_log WHERE target = 'client:console-keys' AND action = 'client.keys.issue'`,
    ).all<{ details: string }>();
    expect(JSON.parse(results[0]!.details)).toMatchObject({
      label: "finance",
      scopes: ["books:read"],
      allowedIps: ["198.51.100.0/24", "2001:db8::1"],
    });
  });

  it("refuses a bad allow-list beside its field, drawing back what was posted escaped, and issues nothing", async () => {
    const cookie = await signedIn("admin");
    const before = await env.DB.prepare(`SELECT COUNT(*) AS n FROM api_keys`).first<{ n: number }>();
    for (const allowedIps of ["10.0.0.1/8", PROBE]) {
      const refused = await fetchConsole("POST", HERE, {
        cookie,
        form: { action: "issue", label: "x", "scope:orders:read": "on", allowedIps },
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('aria-invalid="true"');
      expect(refused.text).toMatch(/id="field-allowedIps-error">[^<]*(bits set past the prefix|not an IPv4)/);
      expect(refused.text).not.toContain(PROBE);
      if (allowedIps === PROBE) expect(refused.text).toContain(PROBE_ESCAPED);
      // The ticked scope is ticked again.
      expect(refused.text).toMatch(/name="scope:orders:read" value="on" checked/);
    }
    const after = await env.DB.prepare(`SELECT COUNT(*) AS n FROM api_keys`).first<{ n: number }>();
    expect(after).toEqual(before);
  });

  it("rotates a narrow key into a key just as narrow, and refuses a rotation over keys that differ", async () => {
    await addClient("console-rotate", { USD: "10" });
    const here = "/console/clients/console-rotate";
    const cookie = await signedIn("admin", "Ada Admin");
    const access = { scopes: ["books:read"], allowedIps: ["198.51.100.0/24"] };
    expect((await admin("POST", "/admin/clients/console-rotate/keys/rotate", access)).status).toBe(200);
    const rotated = await fetchConsole("POST", here, { cookie, form: { action: "rotate" } });
    expect(rotated.status).toBe(200);
    const apiKey = /<p class="mono">(sk_test_[^<]+)<\/p>/.exec(rotated.text)![1]!;
    // The successor of the leaked key still reads only, and only from its network.
    expect((await call("GET", "/wallets", { key: apiKey })).body.code).toBe("ip_not_allowed");
    const from = { "cf-connecting-ip": "198.51.100.7" };
    expect((await call("POST", "/order/create", { key: apiKey, headers: from, body: {} })).body.code).toBe(
      "insufficient_scope",
    );
    // A second key of other access: the Rotate button cannot say which to keep, and revokes nothing.
    await admin("POST", "/admin/clients/console-rotate/keys", { scopes: ["orders:read"] });
    const refused = await fetchConsole("POST", here, { cookie, form: { action: "rotate" } });
    expect(refused.status).toBe(400);
    const { results } = await env.DB.prepare(
      "SELECT COUNT(*) AS live FROM api_keys WHERE client_id = 'console-rotate' AND revoked_at IS NULL",
    ).all<{ live: number }>();
    expect(results[0]!.live).toBe(2);
  });

  it("a viewer sees the scopes, and no form to issue a key", async () => {
    const page = await fetchConsole("GET", HERE, { cookie: await signedIn("viewer") });
    expect(page.text).toContain('<th scope="col">Scopes</th>');
    expect(page.text).not.toContain('name="allowedIps"');
  });
});
