/**
 * The sandbox never buys real codes: its clients top themselves up without limit, so an upstream line is
 * sent only to an upstream marked as the supplier's own sandbox (UPSTREAM_SANDBOX "true"); any other is
 * refused without a request, and its SKUs are not offered nor orderable.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { supplierFor } from "../../src/fulfilment/suppliers";
import { supplierRefusal } from "../../src/kernel/service-mode";

afterEach(() => vi.restoreAllMocks());

describe("the upstream supplier in the sandbox", () => {
  it("is not asked unless UPSTREAM_SANDBOX marks it as the supplier's sandbox: the line fails, nothing sent", async () => {
    const fetched = vi.spyOn(globalThis, "fetch");
    const outcome = await supplierFor("upstream", { ...env, UPSTREAM_SANDBOX: "false" }).issue({
      orderId: "ord_sbx",
      idempotencyKey: "ord_sbx:UP",
      attempt: 1,
      line: { sku: "UP", quote: "10", quantity: 1, product: { currency: "USD", supplierConfig: {} } },
    });
    expect(outcome).toEqual({
      kind: "failed",
      reason: "the sandbox uses an upstream only when UPSTREAM_SANDBOX marks it as the supplier's own sandbox",
    });
    expect(fetched).not.toHaveBeenCalled();
  });

  it("the rule for each environment and supplier", () => {
    const sandbox = { SERVICE_MODE: "sandbox" };
    const live = { SERVICE_MODE: "live" };
    expect(supplierRefusal("upstream", { ...sandbox, UPSTREAM_SANDBOX: "true" })).toBeNull();
    expect(supplierRefusal("upstream", { ...sandbox, UPSTREAM_SANDBOX: "false" })).not.toBeNull();
    expect(supplierRefusal("upstream", sandbox)).not.toBeNull();
    expect(supplierRefusal("sandbox", sandbox)).toBeNull();
    expect(supplierRefusal("inventory", sandbox)).toBeNull();
    expect(supplierRefusal("upstream", { ...live, UPSTREAM_SANDBOX: "false" })).toBeNull();
    expect(supplierRefusal("upstream", { ...live, UPSTREAM_SANDBOX: "true" })).not.toBeNull();
    expect(supplierRefusal("sandbox", live)).not.toBeNull();
    expect(supplierRefusal("inventory", live)).toBeNull();
    // Anything but "sandbox" is live.
    expect(supplierRefusal("sandbox", {})).not.toBeNull();
  });
});
