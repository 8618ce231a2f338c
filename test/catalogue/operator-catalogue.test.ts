import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { setProductActive } from "../../src/catalogue/product-actions";
import { seedDemo } from "../helpers";
import { admin, FIXED_PRODUCT } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
});

const by = (name: string) => ({
  actor: { kind: "operator" as const, id: `op_${name}`, name },
  requestId: `req-${name}`,
});

describe("setProductActive", () => {
  it("audits a disable once when two operators disable the SKU at the same time", async () => {
    await admin("PUT", "/admin/products/OC-RACE", FIXED_PRODUCT);
    await Promise.all([
      setProductActive(env.DB, by("Ann"), "OC-RACE", false),
      setProductActive(env.DB, by("Bob"), "OC-RACE", false),
    ]);
    const { results } = await env.DB.prepare(
      `SELECT action FROM audit_log WHERE target = 'product:OC-RACE' AND action = 'product.disable'`,
    ).all();
    expect(results).toHaveLength(1);
    expect((await env.DB.prepare(`SELECT active FROM products WHERE sku = 'OC-RACE'`).first())!.active).toBe(0);
    await setProductActive(env.DB, by("Ann"), "OC-RACE", false);
    expect(
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM audit_log WHERE target = 'product:OC-RACE'`).first())!.n,
    ).toBe(2);
  });
});
