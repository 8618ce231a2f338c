/**
 * The scope walk, beside the role table's walk (role-table.test.ts): every client route (read off the
 * service's own routes, so a new one cannot be missed) is called with a key of each single scope, and
 * answers 403 insufficient_scope exactly when the key lacks the route's scope, and never a 403 otherwise.
 * docs/api.md's table of scopes is the contract, held to the routes both ways. Every call names things
 * that do not exist and sends no usable body, so nothing changes: checked against a snapshot.
 */
/// <reference types="vite/client" />
import { beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../src/app";
import { SCOPES, type Scope } from "../../src/kernel/key-access";
import { admin, snapshot } from "../admin-helpers";
import { addClient, call, seedDemo } from "../helpers";

const DOC: string = Object.values(
  import.meta.glob("/docs/api.md", { query: "?raw", import: "default", eager: true }),
)[0] as string;

/** The rows of the table under "## Keys and scopes": `method path` (itty syntax) → scope, null for none. */
function scopeTable(): Map<string, Scope | null> {
  const start = DOC.indexOf("\n## Keys and scopes\n");
  const end = DOC.indexOf("\n## ", start + 1);
  const section = DOC.slice(start, end === -1 ? undefined : end);
  const rows = new Map<string, Scope | null>();
  for (const match of section.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/[^`]*)` \| ([^|]+) \|$/gm)) {
    const [, method, path, cell] = match as unknown as [string, string, string, string];
    const scope = /^`([a-z:]+)`$/.exec(cell.trim())?.[1] ?? (cell.startsWith("none") ? null : cell);
    expect(scope === null || (SCOPES as readonly unknown[]).includes(scope), `${method} ${path}: ${cell}`).toBe(true);
    rows.set(`${method} ${path.replace(/\{(\w+)\}/g, ":$1")}`, scope as Scope | null);
  }
  return rows;
}

const PARAMS: Record<string, string> = {
  currency: "USD",
  orderId: "ord_0000000000000000000000000000000000000000000000000000000000000000",
};

const keys = new Map<Scope, string>();

beforeAll(async () => {
  await seedDemo();
  await addClient("scope-walker", { USD: "0" });
  for (const scope of SCOPES) {
    const issued = await admin("POST", "/admin/clients/scope-walker/keys", { label: scope, scopes: [scope] });
    expect(issued.status).toBe(200);
    keys.set(scope, issued.body.data.apiKey);
  }
}, 60_000);

async function clientRoutes() {
  return (await allRoutes()).filter((route) => route.auth === "apiKey");
}

describe("the scopes of docs/api.md", () => {
  it("list every client route with the scope it declares, and nothing else", async () => {
    const routes = await clientRoutes();
    expect(routes.length).toBeGreaterThan(5);
    const table = scopeTable();
    expect([...table.keys()].sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    for (const route of routes) {
      expect(route.scope, `${route.method} ${route.path} declares a scope`).not.toBeUndefined();
      expect(route.scope, `${route.method} ${route.path}`).toBe(table.get(`${route.method} ${route.path}`));
    }
  });
});

describe("the scope walk", () => {
  it("answers every client route with 403 insufficient_scope exactly when the key lacks its scope", async () => {
    const before = await snapshot();
    const mismatches: string[] = [];
    for (const route of await clientRoutes()) {
      const path = route.path.replace(/:(\w+)\??/g, (_, name: string) => PARAMS[name] ?? "x");
      for (const scope of SCOPES) {
        const answer = await call(route.method, path, {
          key: keys.get(scope)!,
          body: route.method === "GET" ? undefined : {},
        });
        const refused = route.scope !== null && route.scope !== scope;
        const got =
          answer.status !== 403
            ? "allowed"
            : answer.body.code === "insufficient_scope"
              ? `insufficient_scope (needed ${answer.body.details?.needed})`
              : answer.body.code;
        const expected = refused ? `insufficient_scope (needed ${route.scope})` : "allowed";
        if (got !== expected)
          mismatches.push(
            `${route.method} ${route.path} with ${scope}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body)}`,
          );
        if (refused) expect(answer.body.details?.scopes, `${route.method} ${route.path}`).toEqual([scope]);
        // A key the route allows reached it: it answered the request itself, never a server error.
        else expect(answer.status, `${route.method} ${route.path} with ${scope}`).toBeLessThan(500);
      }
    }
    expect(mismatches).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 120_000);
});
