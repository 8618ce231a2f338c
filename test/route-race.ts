/**
 * Races an operator route with another write: D1 as the route sees it when that write lands between its
 * check and its write, and the route's handler called directly on that D1, as the router calls it.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import type { IRequest } from "itty-router";
import type { RequestContext, Route } from "../src/http/route";
import { handlerOf } from "../src/http/router";
import { ADMIN_TOKEN } from "./admin-helpers";

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
 * What an operator route throws when called on `db` as the break-glass admin, the way the router calls it
 * once the caller's role allows the route (its parts read, then its handler): the error, or null when it
 * answered.
 */
export async function thrownByAdminRoute(
  route: Route,
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
  return handlerOf(route)(request as unknown as IRequest, context as RequestContext).then(
    () => null,
    (error: unknown) => error,
  );
}
