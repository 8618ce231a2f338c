/// <reference types="vite/client" />
/**
 * docs/operator-api.md's role table is the contract: every /admin route is called as each kind of caller
 * and the answers are held to the table. A route whose role changes without the table (or the other way
 * round), a route missing from the table or a row naming no route fails here. Every call names things
 * that do not exist and sends no usable body, so an allowed caller reaches the route and gets a 4xx (or a
 * read), and nothing changes: checked against a snapshot of every table an operator can change.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../src/app";
import { roleAllows, ROLES, type Role } from "../../src/operators/roles";
import { ADMIN_TOKEN, admin, snapshot } from "../admin-helpers";
import { call } from "../helpers";

const DOC: string = Object.values(
  import.meta.glob("/docs/operator-api.md", { query: "?raw", import: "default", eager: true }),
)[0] as string;

/** The rows of the table under "## Roles": `method path` → least role. */
function roleTable(): Map<string, Role> {
  const section = DOC.slice(DOC.indexOf("\n## Roles\n"));
  const rows = new Map<string, Role>();
  for (const match of section.matchAll(/^\| (GET|POST|PUT|DELETE) \| `(\/admin\/[^`]+)` \| (\w+) \|$/gm)) {
    const [, method, path, role] = match as unknown as [string, string, string, string];
    expect(ROLES, `the table's role for ${method} ${path}`).toContain(role);
    expect(rows.has(`${method} ${path}`), `${method} ${path} is listed twice`).toBe(false);
    rows.set(`${method} ${path}`, role as Role);
  }
  return rows;
}

/** Values for path parameters that are well formed and name nothing. */
const PARAMS: Record<string, string> = {
  clientId: "nobody",
  currency: "USD",
  sku: "NO-SUCH-SKU",
  keyId: "key_0123456789abcdef",
  id: "987654",
  operatorId: "opr_0000000000000000",
  orderId: "ord_0000000000000000000000000000000000000000000000000000000000000000",
  base: "USD",
  target: "EUR",
};

type Caller = { name: string; token: string | null; role: Role | "none" };

let callers: Caller[];

beforeAll(async () => {
  callers = [
    { name: "break-glass", token: ADMIN_TOKEN, role: "admin" },
    { name: "no token", token: null, role: "none" },
  ];
  for (const role of ROLES) {
    const made = await admin("POST", "/admin/operators", { name: `Role ${role}`, role });
    expect(made.status).toBe(201);
    callers.push({ name: role, token: made.body.data.token, role });
  }
  const revoked = await admin("POST", "/admin/operators", { name: "Revoked admin", role: "admin" });
  expect((await admin("POST", `/admin/operators/${revoked.body.data.operator.id}/revoke`)).status).toBe(200);
  callers.push({ name: "revoked", token: revoked.body.data.token, role: "none" });
}, 60_000);

describe("the role table of docs/operator-api.md", () => {
  it("lists every /admin route exactly, and nothing else", async () => {
    const routed = (await allRoutes()).filter((route) => route.path.startsWith("/admin/"));
    const table = roleTable();
    expect([...table.keys()].sort()).toEqual(routed.map((route) => `${route.method} ${route.path}`).sort());
    // Each route's own description names the role the table names (the router enforces the description's).
    for (const route of routed)
      expect(route.role, `${route.method} ${route.path}`).toBe(table.get(`${route.method} ${route.path}`));
  });

  it("answers every route as the table says, for every caller, and changes nothing", async () => {
    const before = await snapshot();
    const mismatches: string[] = [];
    for (const [route, needed] of roleTable()) {
      const [method, template] = route.split(" ") as [string, string];
      const path = template.replace(/:(\w+)/g, (_, name: string) => PARAMS[name] ?? "x");
      for (const caller of callers) {
        const answer = await call(method, path, { key: caller.token, body: method === "GET" ? undefined : {} });
        const got =
          answer.status !== 403
            ? "allowed"
            : answer.body.code === "forbidden"
              ? `forbidden (needed ${answer.body.details?.needed})`
              : answer.body.code;
        const expected =
          caller.role === "none"
            ? "unauthenticated"
            : roleAllows(caller.role, needed)
              ? "allowed"
              : `forbidden (needed ${needed})`;
        if (got !== expected)
          mismatches.push(
            `${route} as ${caller.name}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body)}`,
          );
        // An allowed caller reached the route: it answered the request itself, never a server error.
        if (got === "allowed") expect(answer.status, `${route} as ${caller.name}`).toBeLessThan(500);
      }
    }
    expect(mismatches).toEqual([]);
    const after = await snapshot();
    // The audit log gained nothing, and nothing else changed.
    expect(after).toEqual(before);
  }, 120_000);

  it("a caller the table refuses gets 403 forbidden naming both roles", async () => {
    const viewer = callers.find((caller) => caller.name === "viewer")!;
    const answer = await call("POST", "/admin/wallets/nobody/USD/top-ups", {
      key: viewer.token,
      body: { amount: "1", idempotencyKey: "k", reason: "r" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      message: "Your role does not allow this",
      code: "forbidden",
      details: { role: "viewer", needed: "operator" },
    });
  });
});

describe("the actor of a change", () => {
  it("an operator's change is audited under its id and name, ADMIN_TOKEN's under its label", async () => {
    const made = await admin("POST", "/admin/operators", { name: "Olga Operator", role: "admin" });
    const { operator, token } = made.body.data;
    expect(
      (await call("POST", "/admin/clients", { key: token, body: { id: "audited-by-olga", name: "Audited" } })).status,
    ).toBe(200);
    const { results } = await env.DB.prepare(
      `SELECT actor, actor_name, action, target FROM audit_log WHERE target IN (?1, ?2) ORDER BY id`,
    )
      .bind(`operator:${operator.id}`, "client:audited-by-olga")
      .all();
    expect(results).toEqual([
      {
        actor: expect.stringMatching(/^admin:[0-9a-f]{8}$/),
        actor_name: null,
        action: "operator.create",
        target: `operator:${operator.id}`,
      },
      {
        actor: `operator:${operator.id}`,
        actor_name: "Olga Operator",
        action: "client.create",
        target: "client:audited-by-olga",
      },
    ]);
    const listed = await admin("GET", "/admin/audit?target=client:audited-by-olga");
    expect(listed.body.data.entries[0]).toMatchObject({ actor: `operator:${operator.id}`, actorName: "Olga Operator" });
  });
});

describe("the router's role check", () => {
  it("refuses to route an operator route that names no role", async () => {
    const { createRouter } = await import("../../src/http/router");
    const parts = {
      authenticate: async () => Promise.reject(new Error("unused")),
      authorizeOperator: async () => Promise.reject(new Error("unused")),
      afterOperatorWrite: () => {},
    };
    const handler = async () => new Response("ran");
    expect(() => createRouter([{ method: "POST", path: "/admin/anything", handler, auth: "admin" }], parts)).toThrow(
      /without a role/,
    );
    expect(() =>
      createRouter([{ method: "POST", path: "/admin/anything", handler, auth: "admin", role: "operator" }], parts),
    ).not.toThrow();
  });
});
