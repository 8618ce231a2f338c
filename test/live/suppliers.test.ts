/**
 * Live never sells fake codes: a `sandbox`-supplier SKU (its codes are predictable hashes; the demo seed has
 * them) cannot be created, is not offered, cannot be ordered, and a line of one issues nothing; nor does
 * live use an upstream marked as the supplier's own sandbox.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { supplierFor } from "../../src/fulfilment/suppliers";
import { admin } from "../admin-helpers";
import { call, line, seedDemo, topUp } from "../helpers";
import { expectError, MESSAGES } from "../order-helpers";

const request = (sku: string) => ({
  orderId: "ord_live",
  idempotencyKey: `ord_live:${sku}`,
  attempt: 1,
  line: { sku, quote: "10", quantity: 1, product: { currency: "USD", supplierConfig: {} } },
});

describe("the sandbox supplier in live", () => {
  it("a SKU of it is not offered and cannot be ordered (404 product_not_found, nothing stored)", async () => {
    await seedDemo();
    const created = await admin("POST", "/admin/clients", { id: "live-sbx-sku", name: "Live" });
    const key: string = created.body.data.apiKey;
    await topUp("live-sbx-sku", "USD", "100");
    const products = await call("GET", "/products", { key });
    expect(products.status).toBe(200);
    const offered = (products.body.data.products as { sku: string }[]).map((product) => product.sku);
    expect(offered).toContain("DEMO-EU-FIXED");
    expect(offered).not.toContain("DEMO-US-RANGE");
    const refused = await call("POST", "/order/create", {
      key,
      body: { productList: [line("DEMO-US-RANGE", 10)], wallet: "USD", reference: "live-sbx" },
    });
    expectError(refused, 404, MESSAGES.productNotFound, "product_not_found");
    expect(refused.body.details).toEqual({ sku: "DEMO-US-RANGE", index: 0 });
  });

  it("the operator cannot create one: 400 naming the supplier, nothing written", async () => {
    const answer = await admin("PUT", "/admin/products/LIVE-SBX", {
      productType: "range",
      name: "Fake",
      currency: "USD",
      country: "US",
      region: "North America",
      minQuote: "1",
      maxQuote: "10",
      supplier: "sandbox",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.details.issues).toEqual([
      { path: "supplier", message: "the sandbox supplier exists only in the sandbox" },
    ]);
    expect(await env.DB.prepare(`SELECT sku FROM products WHERE sku = 'LIVE-SBX'`).first()).toBeNull();
  });

  it("a line of one (an order stored before) issues no code: it fails, and is refunded as any failed line", async () => {
    expect(await supplierFor("sandbox", env).issue(request("DEMO-US-RANGE"))).toEqual({
      kind: "failed",
      reason: "the sandbox supplier issues no codes in live",
    });
  });

  it("an upstream marked as the supplier's sandbox is refused; the live upstream is asked", async () => {
    expect(await supplierFor("upstream", { ...env, UPSTREAM_SANDBOX: "true" }).issue(request("UP"))).toEqual({
      kind: "failed",
      reason: "live does not use a supplier's sandbox (UPSTREAM_SANDBOX is true)",
    });
    // Not refused: asked (the test's upstream address is a closed loopback port, so the outcome is unknown).
    const asked = await supplierFor("upstream", env).issue(request("UP"));
    expect(asked.kind).toBe("unknown");
  });
});
