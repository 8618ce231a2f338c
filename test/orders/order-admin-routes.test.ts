import { beforeAll, describe, expect, it, vi } from "vitest";
import { call, line, seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
});

describe("order lookup", () => {
  it("finds any client's order by id or by client and reference, with its stored record", async () => {
    const created = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "lookup-1", productList: [line("DEMO-US-RANGE", 12)] },
    });
    expect(created.status).toBe(200);
    const byId = await admin("GET", `/admin/orders/${created.body.data.id}`);
    expect(byId.status).toBe(200);
    await expectConforms("GET", "/admin/orders/{orderId}", byId);
    expect(byId.body.data).toMatchObject({ clientId: "demo", reference: "lookup-1", state: "created" });
    expect(byId.body.data.order.uid).toBe(created.body.data.id);
    expect(byId.body.data.record.id).toBe(created.body.data.id);
    const byReference = await admin("GET", "/admin/orders?clientId=demo&reference=lookup-1");
    expect(byReference.body.data).toEqual(byId.body.data);
  });

  it("404 for unknown orders, 400 without the query", async () => {
    for (const path of [
      `/admin/orders/ord_${"0".repeat(64)}`,
      "/admin/orders/ord_nope",
      "/admin/orders/123",
      "/admin/orders?clientId=demo&reference=never",
    ]) {
      const response = await admin("GET", path);
      expect(response.status, path).toBe(404);
      expect(response.body.code).toBe("order_not_found");
    }
    for (const query of ["", "?clientId=demo", "?reference=x", "?clientId=bad%20id&reference=x"]) {
      const response = await admin("GET", `/admin/orders${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe("invalid_parameters");
      await expectConforms("GET", "/admin/orders", response);
    }
  });

  it("masks redeem codes and links for a viewer; the operator role sees them", async () => {
    const created = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "lookup-codes", productList: [line("DEMO-US-RANGE", 5)] },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    expect((await call("PUT", "/order/confirm", { body: { orderId: id } })).status).toBe(200);
    const tokens: Record<string, string> = {};
    for (const role of ["viewer", "operator"]) {
      const made = await admin("POST", "/admin/operators", { name: `Codes ${role}`, role });
      expect(made.status).toBe(201);
      tokens[role] = made.body.data.token;
    }
    const full = await vi.waitFor(async () => {
      const seen = await admin("GET", `/admin/orders/${id}`, undefined, { token: tokens.operator });
      expect(seen.body.data.state).toBe("successful");
      return seen.body.data;
    });
    const pin = full.order.redeem["DEMO-US-RANGE"].redeemPin[0] as string;
    const link = full.order.redeem["DEMO-US-RANGE"].redeemLink as string;
    expect(pin.length).toBeGreaterThan(4);
    expect(full.record.lines[0].redeem.pins).toEqual([pin]);
    const masked = await admin("GET", `/admin/orders/${id}`, undefined, { token: tokens.viewer });
    expect(masked.status).toBe(200);
    await expectConforms("GET", "/admin/orders/{orderId}", masked);
    const entry = masked.body.data.order.redeem["DEMO-US-RANGE"];
    expect(entry.redeemPin).toEqual([`•••• ${pin.slice(-4)}`]);
    expect(entry.redeemLink).toBe(`•••• ${link.slice(-4)}`);
    expect(masked.body.data.record.lines[0].redeem.pins).toEqual([`•••• ${pin.slice(-4)}`]);
    expect(JSON.stringify(masked.body)).not.toContain(pin);
    expect(JSON.stringify(masked.body)).not.toContain(link);
    const byReference = await admin("GET", "/admin/orders?clientId=demo&reference=lookup-codes", undefined, {
      token: tokens.viewer,
    });
    expect(byReference.body.data).toEqual(masked.body.data);
  });
});
