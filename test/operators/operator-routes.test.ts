import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/kernel/crypto";
import { admin, auditActions, snapshot } from "../admin-helpers";
import { call } from "../helpers";

async function auditOf(operatorId: string) {
  const { results } = await env.DB.prepare(`SELECT action, details FROM audit_log WHERE target = ?1 ORDER BY id`)
    .bind(`operator:${operatorId}`)
    .all<{ action: string; details: string }>();
  return results.map((row) => ({ action: row.action, details: JSON.parse(row.details) }));
}

describe("/admin/operators", () => {
  it("creates an operator: 201, the token once, stored only as its SHA-256, working at once", async () => {
    const made = await admin("POST", "/admin/operators", { name: "  Dana Support ", role: "operator" });
    expect(made.status).toBe(201);
    const { operator, token } = made.body.data;
    expect(made.body.message).toBe("Operator created");
    expect(operator).toEqual({
      id: expect.stringMatching(/^opr_[0-9a-f]{16}$/),
      name: "Dana Support",
      role: "operator",
      createdAt: expect.any(Number),
      revokedAt: null,
      createdBy: "break-glass",
    });
    expect(token).toMatch(/^opt_[0-9a-f]{64}$/);
    const row = await env.DB.prepare(`SELECT * FROM operators WHERE id = ?1`)
      .bind(operator.id)
      .first<Record<string, unknown>>();
    expect(row!.token_hash).toBe(await sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    // The token is nowhere in the audit log either, nor in any later answer.
    expect(JSON.stringify(await auditOf(operator.id))).not.toContain(token.slice(4));
    const listed = await admin("GET", "/admin/operators");
    expect(JSON.stringify(listed.body)).not.toContain(token.slice(4));
    expect(listed.body.data.operators).toContainEqual(operator);
    expect((await call("GET", "/admin/clients", { key: token })).status).toBe(200);
    expect(await auditOf(operator.id)).toEqual([
      { action: "operator.create", details: { name: "Dana Support", role: "operator", makers: ["break-glass"] } },
    ]);
  });

  it("refuses a bad request with 400 and creates nothing", async () => {
    const before = await snapshot();
    const count = async () => (await env.DB.prepare(`SELECT COUNT(*) AS n FROM operators`).first<{ n: number }>())!.n;
    const operators = await count();
    for (const body of [
      { name: "X", role: "root" },
      { name: "", role: "viewer" },
      { name: "X" },
      { name: "X", role: "viewer", token: "mine" },
      { name: "x".repeat(101), role: "viewer" },
    ]) {
      const answer = await admin("POST", "/admin/operators", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code).toBe("invalid_request_body");
    }
    expect(await count()).toBe(operators);
    expect(await snapshot()).toEqual(before);
  });

  it("pages the list by id", async () => {
    for (const name of ["P1", "P2", "P3"]) await admin("POST", "/admin/operators", { name, role: "viewer" });
    const first = await admin("GET", "/admin/operators?limit=2");
    expect(first.body.data.operators).toHaveLength(2);
    const second = await admin("GET", `/admin/operators?limit=500&after=${first.body.data.next}`);
    const ids = [...first.body.data.operators, ...second.body.data.operators].map(
      (operator: { id: string }) => operator.id,
    );
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(second.body.data.next).toBeNull();
  });

  it("changes a role: effective on the next request, audited once; the same role again writes nothing", async () => {
    const { operator, token } = (await admin("POST", "/admin/operators", { name: "Rita", role: "viewer" })).body.data;
    const topUp = { amount: "1", idempotencyKey: `rita-${operator.id}`, reason: "test" };
    expect((await call("POST", "/admin/wallets/nobody/USD/top-ups", { key: token, body: topUp })).body.code).toBe(
      "forbidden",
    );
    const changed = await admin("POST", `/admin/operators/${operator.id}/role`, { role: "operator" });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ operator: { ...operator, role: "operator" }, changed: true });
    // Now the route runs (and answers for the wallet it names, which does not exist).
    expect((await call("POST", "/admin/wallets/nobody/USD/top-ups", { key: token, body: topUp })).body.code).not.toBe(
      "forbidden",
    );
    const again = await admin("POST", `/admin/operators/${operator.id}/role`, { role: "operator" });
    expect(again.body.data.changed).toBe(false);
    expect(await auditOf(operator.id)).toEqual([
      { action: "operator.create", details: { name: "Rita", role: "viewer", makers: ["break-glass"] } },
      { action: "operator.role", details: { from: "viewer", to: "operator" } },
    ]);
  });

  it("revokes: the token is refused from the next request on; again changes nothing; a revoked operator keeps its role", async () => {
    const { operator, token } = (await admin("POST", "/admin/operators", { name: "Rex", role: "admin" })).body.data;
    expect((await call("GET", "/admin/operators", { key: token })).status).toBe(200);
    const revoked = await admin("POST", `/admin/operators/${operator.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({ operator: { ...operator, revokedAt: expect.any(Number) }, changed: true });
    const refused = await call("GET", "/admin/operators", { key: token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("unauthenticated");
    const again = await admin("POST", `/admin/operators/${operator.id}/revoke`);
    expect(again.body.data).toEqual({ operator: revoked.body.data.operator, changed: false });
    const role = await admin("POST", `/admin/operators/${operator.id}/role`, { role: "viewer" });
    expect(role.status).toBe(409);
    expect(role.body).toMatchObject({ code: "operator_revoked", details: { operatorId: operator.id } });
    expect((await auditOf(operator.id)).map((row) => row.action)).toEqual(["operator.create", "operator.revoke"]);
  });

  it("404 for an operator that does not exist, 400 for a malformed id; nothing is audited", async () => {
    const actions = await auditActions();
    const missing = await admin("POST", "/admin/operators/opr_0123456789abcdef/revoke");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "operator_not_found", details: { operatorId: "opr_0123456789abcdef" } });
    expect((await admin("POST", "/admin/operators/opr_0123456789abcdef/role", { role: "admin" })).body.code).toBe(
      "operator_not_found",
    );
    expect((await admin("POST", "/admin/operators/nobody/revoke")).body.code).toBe("invalid_parameters");
    expect(await auditActions()).toEqual(actions);
  });

  it("an operator token is not a client key, and a client key is not an operator token", async () => {
    const { token } = (await admin("POST", "/admin/operators", { name: "Cleo", role: "admin" })).body.data;
    expect((await call("GET", "/wallets", { key: token })).status).toBe(403);
    expect((await call("GET", "/admin/operators", { key: "sk_test_demo" })).body.code).toBe("unauthenticated");
  });
});

describe("operator token lookup", () => {
  it("reads the database only for something shaped like an operator token", async () => {
    const { liveOperatorOfToken } = await import("../../src/operators/operator-tokens");
    let reads = 0;
    const counting = new Proxy(env.DB, {
      get(target, name) {
        if (name === "prepare") reads += 1;
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    for (const token of [
      "sk_test_demo",
      "opt_short",
      `opt_${"g".repeat(64)}`,
      `OPT_${"0".repeat(64)}`,
      `opt_${"0".repeat(65)}`,
    ]) {
      expect(await liveOperatorOfToken(counting, token)).toBeNull();
    }
    expect(reads).toBe(0);
    expect(await liveOperatorOfToken(counting, `opt_${"0".repeat(64)}`)).toBeNull();
    expect(reads).toBe(1);
  });
});
