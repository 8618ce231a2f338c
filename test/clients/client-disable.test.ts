/**
 * Offboarding: POST /admin/clients/:clientId/disable and /enable. A disabled client's keys stop at once
 * (in this isolate, through the key cache), its confirmed orders run to their end and its created orders
 * expire (`rejected`); enabling it restores its keys as they were. Either, repeated, changes nothing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, auditActions, snapshot } from "../admin-helpers";
import { call, confirmOrder, createOrder, getOrder, line, seedDemo } from "../helpers";
import { drainTimers, expireByAlarm, freshClient, storedOrder } from "../order-helpers";
import { expectConforms } from "../openapi/conformance";

describe("disabling and enabling a client", () => {
  it("stops its keys at once, even a key this isolate has cached, and enabling restores the same keys", async () => {
    const { id, key } = await freshClient({ USD: "100" });
    // The key is resolved once, so the isolate's key cache holds it.
    expect((await call("GET", "/wallets", { key })).status).toBe(200);

    const disabled = await admin("POST", `/admin/clients/${id}/disable`);
    expect(disabled.status).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/disable", disabled);
    expect(disabled.body).toEqual({
      message: "Client disabled",
      data: { client: { id, name: id, createdAt: expect.any(Number), disabledAt: expect.any(Number), region: null } },
    });
    const refused = await call("GET", "/wallets", { key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: "Authentication credentials are missing or invalid",
      code: "unauthenticated",
    });
    expect((await createOrder({ productList: [line("DEMO-US-RANGE", 5)], wallet: "USD" }, key)).status).toBe(403);

    const enabled = await admin("POST", `/admin/clients/${id}/enable`);
    expect(enabled.status).toBe(200);
    await expectConforms("POST", "/admin/clients/{clientId}/enable", enabled);
    expect(enabled.body.data.client.disabledAt).toBeNull();
    expect((await call("GET", "/wallets", { key })).status).toBe(200);
    // Nothing was revoked: the same key, still live.
    const detail = await admin("GET", `/admin/clients/${id}`);
    expect(detail.body.data.keys.map((k: { revokedAt: number | null }) => k.revokedAt)).toEqual([null]);
    expect(detail.body.data.client.disabledAt).toBeNull();
  });

  it("lets its confirmed orders run to their end and its created orders expire; after enabling, it reads them all", async () => {
    await seedDemo();
    const { id, key } = await freshClient({ USD: "1000" });
    const confirmed = (await createOrder({ productList: [line("DEMO-US-RANGE", 10)], wallet: "USD" }, key)).body.data
      .id as string;
    expect((await confirmOrder(confirmed, key)).status).toBe(200);
    const open = (await createOrder({ productList: [line("DEMO-US-RANGE", 20)], wallet: "USD" }, key)).body.data
      .id as string;

    expect((await admin("POST", `/admin/clients/${id}/disable`)).status).toBe(200);
    // Its key cannot confirm the open order any more...
    expect((await confirmOrder(open, key)).status).toBe(403);
    // ...the confirmed one is fulfilled all the same, and the open one expires as any would.
    await drainTimers(confirmed);
    expect((await storedOrder(confirmed)).state).toBe("successful");
    expect(await expireByAlarm(open)).toBe(true);
    expect((await storedOrder(open)).state).toBe("rejected");

    expect((await admin("POST", `/admin/clients/${id}/enable`)).status).toBe(200);
    expect((await getOrder(confirmed, key)).body.data.state).toBe("successful");
    expect((await getOrder(open, key)).body.data.state).toBe("rejected");
  });

  it("is idempotent: a second disable keeps the first disabledAt and audits nothing, a second enable neither", async () => {
    const { id } = await freshClient({});
    const before = (await auditActions()).length;
    const first = await admin("POST", `/admin/clients/${id}/disable`);
    const again = await admin("POST", `/admin/clients/${id}/disable`);
    expect(again.status).toBe(200);
    expect(again.body.data.client.disabledAt).toBe(first.body.data.client.disabledAt);
    expect((await admin("POST", `/admin/clients/${id}/enable`)).status).toBe(200);
    expect((await admin("POST", `/admin/clients/${id}/enable`)).status).toBe(200);
    expect((await auditActions()).slice(before)).toEqual(["client.disable", "client.enable"]);
    const row = await env.DB.prepare(
      `SELECT actor, target FROM audit_log WHERE action = 'client.disable' ORDER BY id DESC`,
    ).first<{ actor: string; target: string }>();
    expect(row).toEqual({ actor: expect.stringMatching(/^admin:[0-9a-f]{8}$/), target: `client:${id}` });
  });

  it("404 for an unknown client and 403 without the admin token; nothing changes", async () => {
    const { id, key } = await freshClient({});
    const before = await snapshot();
    for (const action of ["disable", "enable"]) {
      const unknown = await admin("POST", `/admin/clients/nobody-here/${action}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        message: "Client not found",
        code: "client_not_found",
        details: { clientId: "nobody-here" },
      });
      await expectConforms("POST", `/admin/clients/{clientId}/${action}`, unknown);
      expect((await admin("POST", `/admin/clients/${id}/${action}`, undefined, { token: null })).status).toBe(403);
      // A client's own key is not an operator's.
      expect((await admin("POST", `/admin/clients/${id}/${action}`, undefined, { token: key })).status).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });
});
