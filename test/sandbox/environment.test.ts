/**
 * The Worker in sandbox mode (the suites' mode, as `npm start`): keys the operator issues are sk_test_, a
 * live key is 403 wrong_environment whether or not this D1 holds it, and a key of neither prefix (issued
 * by hand before the prefixes meant an environment) is judged by the lookup alone.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/kernel/crypto";
import { call } from "../helpers";
import { admin } from "../admin-helpers";
import { expectError } from "../order-helpers";

const LIVE_KEY_HERE =
  "This API key belongs to another environment: sk_live_… keys are for the live environment; the sandbox takes sk_test_… keys";

async function storeKey(clientId: string, key: string): Promise<void> {
  await env.DB.prepare(`INSERT INTO api_keys (key_hash, client_id, label, created_at) VALUES (?1, ?2, 'by hand', ?3)`)
    .bind(await sha256Hex(key), clientId, Date.now())
    .run();
}

describe("API keys in sandbox mode", () => {
  it("issues sk_test_ keys, which work here", async () => {
    const created = await admin("POST", "/admin/clients", { id: "sbx-client", name: "Sandbox" });
    expect(created.body.data.apiKey).toMatch(/^sk_test_[0-9a-f]{64}$/);
    expect((await call("GET", "/wallets", { key: created.body.data.apiKey })).status).toBe(200);
    const rotated = await admin("POST", "/admin/clients/sbx-client/keys/rotate", {});
    expect(rotated.body.data.apiKey).toMatch(/^sk_test_[0-9a-f]{64}$/);
  });

  it("answers a live key 403 wrong_environment naming live, even one this D1 holds, before any lookup", async () => {
    await admin("POST", "/admin/clients", { id: "holder", name: "Holder" });
    const live = `sk_live_${"ab".repeat(32)}`;
    await storeKey("holder", live);
    for (const key of [live, "sk_live_unknown"]) {
      const answer = await call("GET", "/wallets", { key });
      expectError(answer, 403, LIVE_KEY_HERE, "wrong_environment");
      expect(answer.body.details).toEqual({ keyEnvironment: "live", environment: "sandbox" });
    }
  });

  it("lets a stored key of neither prefix through, and answers an unknown one unauthenticated", async () => {
    await admin("POST", "/admin/clients", { id: "legacy", name: "Legacy" });
    await storeKey("legacy", "legacy-key-0001");
    expect((await call("GET", "/wallets", { key: "legacy-key-0001" })).status).toBe(200);
    expectError(
      await call("GET", "/wallets", { key: "legacy-key-0002" }),
      403,
      "Authentication credentials are missing or invalid",
      "unauthenticated",
    );
  });
});
