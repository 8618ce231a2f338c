/**
 * PUT /admin/clients/:clientId/keys/:keyId/access racing another write to the same key: what lands
 * between its read of the key and its write. The audit must say what really changed, before and after.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { clientRoutes } from "../../src/clients/client-admin-routes";
import { Refusal } from "../../src/kernel/failures";
import { admin } from "../admin-helpers";
import { addClient, seedDemo } from "../helpers";
import { racedDb, thrownByAdminRoute } from "../route-race";

const ROUTE = clientRoutes.find(({ operationId }) => operationId === "adminSetKeyAccess")!;

beforeAll(async () => {
  await seedDemo();
  await addClient("race-co");
});

async function issued(): Promise<string> {
  const answer = await admin("POST", "/admin/clients/race-co/keys", { label: "raced" });
  return answer.body.data.key.keyId as string;
}

function setAccess(keyId: string, body: unknown, db: D1Database) {
  return thrownByAdminRoute(
    ROUTE,
    {
      method: "PUT",
      path: `/admin/clients/race-co/keys/${keyId}/access`,
      params: { clientId: "race-co", keyId },
      body,
    },
    db,
  );
}

async function accessAudits(keyId: string): Promise<unknown[]> {
  const { results } = await env.DB.prepare(
    `SELECT details FROM audit_log WHERE action = 'client.keys.access' ORDER BY rowid`,
  ).all<{ details: string }>();
  return results.map((row) => JSON.parse(row.details)).filter((details) => details.keyId === keyId);
}

describe("setting a key's access while another write lands", () => {
  it("a key revoked in between: 409, and no audit row of a change that did not happen", async () => {
    const keyId = await issued();
    const db = racedDb(() => admin("POST", `/admin/clients/race-co/keys/${keyId}/revoke`));
    const refused = await setAccess(keyId, { scopes: ["books:read"], allowedIps: null }, db);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).failure.code).toBe("api_key_revoked");
    expect(await accessAudits(keyId)).toEqual([]);
  });

  it("another change in between: each audit row's before is what the key really held", async () => {
    const keyId = await issued();
    const wider = { scopes: ["orders:read", "books:read"], allowedIps: null };
    const db = racedDb(async (batch) => {
      if (batch === 1) await admin("PUT", `/admin/clients/race-co/keys/${keyId}/access`, wider);
    });
    const narrower = { scopes: ["books:read"], allowedIps: ["198.51.100.0/24"] };
    expect(await setAccess(keyId, narrower, db)).toBeNull();
    const audits = (await accessAudits(keyId)) as { before: unknown; after: unknown }[];
    // The chain of audit rows runs from what the key was issued with to what it holds now, link by link.
    expect(audits[0]!.before).toEqual({ scopes: "all", allowedIps: null });
    for (let index = 1; index < audits.length; index += 1)
      expect(audits[index]!.before).toEqual(audits[index - 1]!.after);
    const now = await admin("GET", "/admin/clients/race-co");
    const key = now.body.data.keys.find((row: { keyId: string }) => row.keyId === keyId);
    expect({ scopes: key.scopes, allowedIps: key.allowedIps }).toEqual(audits.at(-1)!.after);
  });
});
