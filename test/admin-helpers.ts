import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import type { IRequest } from "itty-router";
import type { RequestContext } from "../src/http/route";
import { call, type ApiCall } from "./helpers";

/** The ADMIN_TOKEN binding of vitest.config.ts. */
export const ADMIN_TOKEN = "test-admin-token";

export function admin(
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string | null; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiCall> {
  return call(method, path, {
    key: options.token === undefined ? ADMIN_TOKEN : options.token,
    body,
    headers: options.headers,
    rawBody: options.rawBody,
  });
}

/** Row counts of every table an operator action can change, to assert that a refused action changed nothing. */
export async function snapshot(): Promise<Record<string, unknown>> {
  const tables = ["clients", "api_keys", "wallets", "products", "exchange_rates", "deals", "codes", "audit_log"];
  const results = await env.DB.batch(tables.map((table) => env.DB.prepare(`SELECT * FROM ${table} ORDER BY rowid`)));
  return Object.fromEntries(tables.map((table, index) => [table, results[index]!.results]));
}

export async function auditActions(): Promise<string[]> {
  const { results } = await env.DB.prepare(`SELECT action FROM audit_log ORDER BY id`).all<{ action: string }>();
  return results.map((row) => row.action);
}

export const FIXED_PRODUCT = {
  productType: "fixed",
  name: "Test voucher",
  currency: "EUR",
  country: "DE",
  region: "Europe",
  quotes: ["10", "25.50"],
  supplier: "inventory",
};

export const RANGE_PRODUCT = {
  productType: "range",
  name: "Test top-up",
  currency: "USD",
  country: "US",
  region: "North America",
  minQuote: 5,
  maxQuote: "500",
  supplier: "sandbox",
};

/**
 * D1 as an operator route sees it when another write lands between its check and its write: `between`
 * runs before each of the route's batches, given the batch's number (from 1).
 */
export function racedDb(between: (batch: number) => Promise<unknown>): D1Database {
  let batches = 0;
  return new Proxy(env.DB, {
    get(target, property) {
      if (property === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          batches += 1;
          await between(batches);
          return target.batch(statements);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * What an operator route's handler throws when called on `db` as the break-glass admin, the way the router
 * calls it once the caller's role allows the route: the error, or null when it answered.
 */
export async function thrownByAdminRoute(
  handler: (request: IRequest, context: RequestContext) => Promise<Response>,
  { method, path, params, body }: { method: string; path: string; params: Record<string, string>; body: unknown },
  db: D1Database,
): Promise<unknown> {
  const request = Object.assign(
    new Request(`http://orders.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params },
  );
  const context = {
    env: { ...env, DB: db },
    exec: createExecutionContext(),
    requestId: "race",
    authenticate: () => Promise.reject(new Error("not a client route")),
    // What the router sets once the caller's role allows the route.
    admin: { actor: { kind: "break-glass" as const, label: "admin:race" }, role: "admin" as const, requestId: "race" },
  };
  return handler(request as unknown as IRequest, context as RequestContext).then(
    () => null,
    (error: unknown) => error,
  );
}
