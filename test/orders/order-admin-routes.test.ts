import { beforeAll, describe, expect, it, vi } from "vitest";
import { call, line, seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { env } from "cloudflare:workers";
import { ADMIN_TOKEN, admin } from "../admin-helpers";
import { maskedCode } from "../../src/orders/redeem-rules";

/** The audit rows of reveals of an order's codes, oldest first. */
async function revealRows(orderId: string): Promise<{ actor_name: string | null; details: string }[]> {
  const { results } = await env.DB.prepare(
    `SELECT actor_name, details FROM audit_log WHERE action = 'order.codes_revealed' AND target = ?1 ORDER BY id`,
  )
    .bind(`order:${orderId}`)
    .all<{ actor_name: string | null; details: string }>();
  return results;
}

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

  it("masks redeem codes and links for every role, and shows them only through the audited reveal", async () => {
    const created = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "lookup-codes", productList: [line("DEMO-US-RANGE", 5)] },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    expect((await call("PUT", "/order/confirm", { body: { orderId: id } })).status).toBe(200);
    const tokens: Record<string, string> = { "break-glass": ADMIN_TOKEN };
    for (const role of ["viewer", "operator", "admin"]) {
      const made = await admin("POST", "/admin/operators", { name: `Codes ${role}`, role });
      expect(made.status).toBe(201);
      tokens[role] = made.body.data.token;
    }
    await vi.waitFor(async () => {
      expect((await call("GET", `/order/get?orderId=${id}`)).body.data.state).toBe("successful");
    });
    // The client's own view has them in clear.
    const redeem = (await call("GET", `/order/get?orderId=${id}`)).body.data.redeem["DEMO-US-RANGE"];
    const pin = redeem.redeemPin[0] as string;
    const link = redeem.redeemLink as string;
    const revealsBefore = await revealRows(id);
    for (const [role, token] of Object.entries(tokens)) {
      for (const path of [`/admin/orders/${id}`, "/admin/orders?clientId=demo&reference=lookup-codes"]) {
        const seen = await admin("GET", path, undefined, { token });
        expect([role, path, seen.status]).toEqual([role, path, 200]);
        await expectConforms("GET", path.includes("?") ? "/admin/orders" : "/admin/orders/{orderId}", seen);
        expect(JSON.stringify(seen.body), `${role} ${path}`).not.toContain(pin);
        expect(JSON.stringify(seen.body), `${role} ${path}`).not.toContain(link);
        const entry = seen.body.data.order.redeem["DEMO-US-RANGE"];
        expect(entry.redeemPin).toEqual([maskedCode(pin)]);
        expect(entry.redeemLink).toBe(maskedCode(link));
        expect(seen.body.data.record.lines[0].redeem.pins).toEqual([maskedCode(pin)]);
      }
    }
    // Reading wrote no audit row, and showed nothing to audit.
    expect(await revealRows(id)).toEqual(revealsBefore);

    // The reveal: the operator role and up; a viewer is refused and nothing is written.
    const refused = await admin("POST", `/admin/orders/${id}/codes/reveal`, undefined, { token: tokens.viewer });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(pin);
    expect(await revealRows(id)).toEqual(revealsBefore);
    const revealed = await admin("POST", `/admin/orders/${id}/codes/reveal`, undefined, { token: tokens.operator });
    expect(revealed.status).toBe(200);
    await expectConforms("POST", "/admin/orders/{orderId}/codes/reveal", revealed);
    expect(revealed.body.data).toEqual({
      orderId: id,
      clientId: "demo",
      reference: "lookup-codes",
      lines: [{ line: 0, sku: "DEMO-US-RANGE", pins: [pin], links: [link] }],
    });
    const rows = await revealRows(id);
    expect(rows).toHaveLength(revealsBefore.length + 1);
    expect(rows.at(-1)).toMatchObject({ actor_name: "Codes operator" });
    expect(JSON.parse(rows.at(-1)!.details)).toEqual({ lines: [{ line: 0, sku: "DEMO-US-RANGE", codes: 1 }] });
    expect(rows.at(-1)!.details).not.toContain(pin);
  });

  it("shows no code when the reveal's audit row cannot be written", async () => {
    const created = await call("POST", "/order/create", {
      body: { wallet: "USD", reference: "reveal-unaudited", productList: [line("DEMO-US-RANGE", 5)] },
    });
    const id = created.body.data.id as string;
    expect((await call("PUT", "/order/confirm", { body: { orderId: id } })).status).toBe(200);
    await vi.waitFor(async () => {
      expect((await call("GET", `/order/get?orderId=${id}`)).body.data.state).toBe("successful");
    });
    const pin = (await call("GET", `/order/get?orderId=${id}`)).body.data.redeem["DEMO-US-RANGE"].redeemPin[0];
    await env.DB.exec(
      "CREATE TRIGGER refuse_reveal BEFORE INSERT ON audit_log WHEN NEW.action = 'order.codes_revealed' BEGIN SELECT RAISE(ABORT, 'audit refused'); END",
    );
    try {
      const failed = await admin("POST", `/admin/orders/${id}/codes/reveal`);
      expect(failed.status).toBe(500);
      expect(JSON.stringify(failed.body)).not.toContain(pin);
    } finally {
      await env.DB.exec("DROP TRIGGER refuse_reveal");
    }
    expect(await revealRows(id)).toEqual([]);
    expect((await admin("POST", `/admin/orders/${id}/codes/reveal`)).body.data.lines[0].pins).toEqual([pin]);
  });

  it("404 for revealing the codes of an order that does not exist", async () => {
    const missing = await admin("POST", `/admin/orders/ord_${"0".repeat(64)}/codes/reveal`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("order_not_found");
  });
});
