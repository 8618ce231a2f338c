/**
 * Routes the router loads on first use (src/http/router.ts, LazyRoutes): a path under their prefix is
 * answered only once they are loaded, 404 and 405 included, and no other path waits for them.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Handler } from "../../src/http/route";
import { createRouter, type LazyRoutes, type Routed } from "../../src/http/router";

const answer =
  (text: string): Handler =>
  async () =>
    new Response(text);

const exec = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
const client = async () => ({ id: "demo" }) as never;

function setUp(load: LazyRoutes["load"]) {
  const loads: string[] = [];
  const group: LazyRoutes = {
    prefix: "/admin/",
    load: async () => {
      loads.push("admin");
      return load();
    },
  };
  const eager: Routed[] = [{ method: "GET", path: "/wallets", handler: answer("wallets") }];
  const handle = createRouter(eager, {
    authenticate: client,
    authorizeOperator: client,
    afterOperatorWrite: () => {},
    lazy: [group],
  });
  const fetch = async (method: string, path: string) => {
    const response = await handle(new Request(`http://orders.test${path}`, { method }), env, exec);
    return { status: response.status, allow: response.headers.get("allow"), text: await response.text() };
  };
  return { fetch, loads };
}

/** The failures the router logs (src/kernel/log.ts writes one JSON line each to console.error). */
function loggedFailures(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(JSON.parse(line).error));
  return lines;
}

afterEach(() => vi.restoreAllMocks());

const ADMIN: Routed[] = [
  { method: "POST", path: "/admin/clients", handler: answer("created") },
  { method: "GET", path: "/admin/clients", handler: answer("clients") },
  { method: "GET", path: "/admin/clients/:clientId", handler: answer("client") },
];

describe("routes loaded on first use", () => {
  it("answer 405 with Allow and 404 under their prefix on the very first request, and load once", async () => {
    const { fetch, loads } = setUp(async () => ADMIN);
    expect(await fetch("DELETE", "/admin/clients")).toEqual({
      status: 405,
      allow: "POST, GET",
      text: JSON.stringify({
        message: "Method Not Allowed",
        code: "method_not_allowed",
        details: { allow: "POST, GET" },
      }),
    });
    expect(await fetch("GET", "/admin/nope")).toMatchObject({
      status: 404,
      allow: null,
      text: expect.stringContaining('"route_not_found"'),
    });
    expect(await fetch("GET", "/admin/clients/acme")).toMatchObject({ status: 200, text: "client" });
    expect(loads).toEqual(["admin"]);
  });

  it("are not loaded for any other path, whose answers do not change", async () => {
    const { fetch, loads } = setUp(async () => ADMIN);
    expect(await fetch("GET", "/wallets")).toMatchObject({ status: 200, text: "wallets" });
    expect(await fetch("PUT", "/wallets")).toMatchObject({ status: 405, allow: "GET" });
    expect(await fetch("GET", "/admin")).toMatchObject({ status: 404 });
    expect(loads).toEqual([]);
  });

  it("are loaded once for concurrent first requests", async () => {
    const { fetch, loads } = setUp(async () => ADMIN);
    const answers = await Promise.all([
      fetch("GET", "/admin/clients"),
      fetch("POST", "/admin/clients"),
      fetch("GET", "/admin/clients/x"),
    ]);
    expect(answers.map(({ text }) => text)).toEqual(["clients", "created", "client"]);
    expect(loads).toEqual(["admin"]);
  });

  it("answer 500 when loading fails, and are loaded again by the next request", async () => {
    const failures = loggedFailures();
    let fail = true;
    const { fetch, loads } = setUp(async () => {
      if (fail) throw new Error("module failed to load");
      return ADMIN;
    });
    expect(await fetch("GET", "/admin/clients")).toMatchObject({
      status: 500,
      text: expect.stringContaining('"server_error"'),
    });
    fail = false;
    expect(await fetch("GET", "/admin/clients")).toMatchObject({ status: 200, text: "clients" });
    expect(loads).toEqual(["admin", "admin"]);
    expect(failures).toEqual(["Error: module failed to load"]);
  });

  it("refuse a route whose pattern also matches the prefix without its slash, a path that never loads them", async () => {
    // itty-router's `:name?` and `*` make the slash before them optional: "/admin/:section?" matches "/admin",
    // which does not start with "/admin/" and so would be 404 before the group is loaded and 200 after.
    for (const path of ["/admin/:section?", "/admin/*"]) {
      const failures = loggedFailures();
      const { fetch } = setUp(async () => [...ADMIN, { method: "GET", path, handler: answer("section") }]);
      const before = await fetch("GET", "/admin");
      await fetch("GET", "/admin/clients");
      const after = await fetch("GET", "/admin");
      expect(after, `${path}: GET /admin answered differently before and after the group was loaded`).toEqual(before);
      expect(failures).toEqual([`Error: GET ${path} is loaded with the routes under /admin/ but also matches /admin`]);
      vi.restoreAllMocks();
    }
  });

  it("refuse a route outside their prefix, which would answer differently before and after loading", async () => {
    const failures = loggedFailures();
    const { fetch } = setUp(async () => [
      ...ADMIN,
      { method: "GET", path: "/wallets/:currency", handler: answer("x") },
    ]);
    expect(await fetch("GET", "/admin/clients")).toMatchObject({ status: 500 });
    expect(failures).toEqual(["Error: GET /wallets/:currency is loaded with the routes under /admin/"]);
    expect(await fetch("GET", "/wallets/USD")).toMatchObject({ status: 404 });
  });
});
