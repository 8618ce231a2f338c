import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
});

describe("GET /admin/audit", () => {
  it("lists operator actions oldest first, by target, a page at a time", async () => {
    await admin("PUT", "/admin/exchange-rates/EUR/GBP", { rate: "0.85" });
    await admin("PUT", "/admin/exchange-rates/EUR/GBP", { rate: "0.86" });
    const byTarget = await admin("GET", "/admin/audit?target=rate:EUR>GBP");
    expect(byTarget.status).toBe(200);
    await expectConforms("GET", "/admin/audit", byTarget);
    expect(byTarget.body.data.entries.map((entry: any) => [entry.action, entry.details.rate])).toEqual([
      ["exchange_rate.set", "0.85"],
      ["exchange_rate.set", "0.86"],
    ]);
    const first = await admin("GET", "/admin/audit?limit=1");
    expect(first.body.data.entries).toHaveLength(1);
    const second = await admin("GET", `/admin/audit?limit=1&after=${first.body.data.next}`);
    expect(second.body.data.entries[0].id).toBeGreaterThan(first.body.data.entries[0].id);
    expect((await admin("GET", "/admin/audit?after=x")).status).toBe(400);
  });

  it("is append-only", async () => {
    await expect(env.DB.prepare(`UPDATE audit_log SET actor = 'someone else'`).run()).rejects.toThrow(/append-only/);
    await expect(env.DB.prepare(`DELETE FROM audit_log`).run()).rejects.toThrow(/append-only/);
  });
});
