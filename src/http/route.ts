/**
 * What a route is: the request context it runs with, its handler, and the description GET /openapi.json is
 * built from. A leaf: it imports nothing from the domains, so every domain's routes file can import it and
 * the router never has to know a domain.
 */
import type { IRequest } from "itty-router";
import type * as z from "zod/v4/core";
import type { Actor, Role } from "../kernel/roles";
import type { Client } from "./auth";
import type { ErrorCode } from "./errors";

/**
 * The caller of an operator route, found and checked against the route's role by the router before the
 * handler runs: a named operator with its role, or the break-glass ADMIN_TOKEN (role admin). It is what an
 * audit row names (src/audit/audit-store.ts AuditedBy).
 */
export interface AdminCaller {
  actor: Actor;
  role: Role;
  requestId: string;
}

/** A schema with its fields at hand: zod's classic and mini objects both have `shape`. */
export type ObjectSchema = z.$ZodObject & { shape: Record<string, z.$ZodType> };

export interface RequestContext {
  env: Env;
  exec: ExecutionContext;
  requestId: string;
  /** The client behind the request's API key, or 403 unauthenticated (429 rate_limited): for `auth: "apiKey"` routes. */
  authenticate(): Promise<Client>;
  /** For `auth: "admin"` routes: the caller, set by the router once its role allows the route. */
  admin?: AdminCaller;
}

export type Handler = (request: IRequest, context: RequestContext) => Promise<Response>;

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** Who may call a route: a client API key, an operator token (or ADMIN_TOKEN; the route's `role` says which), or anyone. */
export type Auth = "apiKey" | "admin" | "none";

/**
 * Examples of a route for the document: the request body (when it has one) and the success answer's
 * `data`. Kept in an examples file next to the routes; test/openapi checks each against its schema and,
 * where a test can make the call, against the shape of a real answer.
 */
export interface RouteExample {
  request?: unknown;
  /** The request as text/csv, for a route that accepts it. */
  csv?: string;
  data: unknown;
  /** The success answer of a route that answers a file (`file` in its description), as that file. */
  file?: string;
}

/**
 * A part of a route's description that only GET /openapi.json reads (its answer's schema, its example),
 * given as it is or as a loader: a client's route hands over a loader that imports its module, so that the
 * module is evaluated with the document and not when the Worker starts (scripts/check-startup.mjs).
 */
export type Loadable<T> = T | (() => Promise<T>);

/** One check of a route, for its description: when it fails, and the errors it answers then. */
export interface Check {
  when: string;
  codes: ErrorCode[];
}

/** A route's description in the OpenAPI document. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  /** A short paragraph or two, in Markdown; the errors are listed from `checks` and `errors`, not here. */
  description?: string;
  /** The group the document lists the route under; one of the tags given to buildOpenApi. */
  tag: string;
  auth: Auth;
  /**
   * For `auth: "admin"`: the least role that may call the route (viewer < operator < admin). The router
   * checks it before the handler runs; docs/operator-api.md's role table lists it, and a test walks every
   * route with every role against that table.
   */
  role?: Role;
  /** The success status, when not 200 (201 for a route that creates something with an id of its own). */
  status?: 201;
  params?: ObjectSchema;
  /** Loaders for a client's route, whose requests are read without zod (src/orders/requests.ts). */
  query?: Loadable<ObjectSchema>;
  body?: Loadable<z.$ZodType>;
  /**
   * The route answers an unusable body with an error of its own (listed in `errors`) rather than
   * malformed_json / invalid_request_body: confirm's "Body has no valid orderId".
   */
  ownBodyErrors?: true;
  /** The body may also be sent as text/csv (described in `description`). */
  csv?: boolean;
  /** The schema of `data` in the success envelope; null for a route whose body is not an envelope. */
  data: Loadable<z.$ZodType> | null;
  /**
   * For a route whose success answer is a file rather than JSON (`data` null): its media type and what it
   * holds (a CSV's columns), for the document.
   */
  file?: { mediaType: "text/csv"; description: string };
  /** Success message(s) of the envelope. */
  messages?: string[];
  /** Errors the route itself can answer; those of auth, body and parameter parsing are added. */
  errors: ErrorCode[];
  /**
   * The route's checks in the order they run (the first failure answers), each with the errors it can
   * answer: the document lists them under the description. They must name every code of `errors`, and
   * only codes the route answers (its own or those of auth and parsing).
   */
  checks?: readonly Check[];
  /** Extra response headers of the success answer. */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** Request headers the route reads (all optional to send; the description says when one is needed). */
  requestHeaders?: Record<string, { description: string; schema: Record<string, unknown> }>;
  example?: Loadable<RouteExample>;
}

/** One route: method, path (itty-router syntax, `:name` for a parameter), handler and its description. */
export interface Route extends RouteDoc {
  method: Method;
  path: string;
  handler: Handler;
}

/** A page for people (the rendered API reference): routed like a route, but not part of the API document. */
export type Page = Pick<Route, "method" | "path" | "handler" | "summary">;
