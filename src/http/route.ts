/**
 * What a route is: its declaration (method, path, who may call it, the parts of the request it reads and
 * the answer it gives, with the description GET /openapi.json is built from) and its handler. The router
 * reads each declared part with its schema before the handler runs and hands the handler the parts typed
 * and valid (src/http/inputs.ts); the handler answers through `ok`, typed by the declared answer, so a
 * handler that reads a part it did not declare, or answers what it did not declare, does not compile.
 * A leaf: it imports nothing from the domains, so every domain's routes file can import it and the router
 * never has to know a domain.
 */
import type { IRequest } from "itty-router";
import type * as z from "zod/v4/core";
import type { Scope } from "../kernel/key-access";
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
  /**
   * The client behind the request's API key, or 403 unauthenticated (ip_not_allowed, 429 rate_limited): for
   * `auth: "apiKey"` routes, whose scope the router has checked by then (403 insufficient_scope).
   */
  authenticate(): Promise<Client>;
  /** For `auth: "admin"` routes: the caller, set by the router once its role allows the route. */
  admin?: AdminCaller;
}

export type Handler = (request: IRequest, context: RequestContext) => Promise<Response>;

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

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
  codes: readonly ErrorCode[];
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
  /**
   * For `auth: "apiKey"`: the scope the caller's key needs (docs/api.md, Keys and scopes), or null for a
   * route any key may call. Every client route says which: the router refuses to route one that does not,
   * checks it before the handler runs (403 insufficient_scope), and a test walks every client route with a
   * key of each single scope.
   */
  scope?: Scope | null;
  /** The success status, when not 200 (201 for a route that creates something with an id of its own). */
  status?: 201;
  /** The path parameters (percent-decoded), by the names of the path's `:name`s. */
  params?: Part<ObjectSchema>;
  /** The query parameters; a parameter given twice arrives as an array, which no schema of ours takes. */
  query?: Part<ObjectSchema>;
  /** The body: JSON of at most MAX_BODY_BYTES, unless its `from` reads it otherwise. */
  body?: Part;
  /** The body may also be sent as text/csv (described in `description`). */
  csv?: boolean;
  /** The schema of `data` in the success envelope; null for a route whose body is not an envelope. */
  data: Loadable<z.$ZodType> | null;
  /**
   * For a route whose success answer is a file rather than JSON (`data` null): its media type and what it
   * holds (a CSV's columns), for the document.
   */
  file?: {
    mediaType: "text/csv";
    description: string;
    /** The route also answers its envelope (`data`) when the request asks for it with `Accept: application/json`. */
    json?: true;
  };
  /** Success message(s) of the envelope. */
  messages?: readonly string[];
  /**
   * Errors the route itself can answer, for a route without `checks` (a declared route with checks answers
   * the codes its checks name); those of auth, body and parameter parsing are added.
   */
  errors?: readonly ErrorCode[];
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

/**
 * A route as the router and the document see it, its handler's types erased (see `route`): the only form a
 * route has. Its handler is given the parts it declares, read and valid, never the request, so a route
 * cannot read a part it did not declare, nor one unchecked; and `route` types its answer by the
 * declaration.
 */
export interface DeclaredRoute extends RouteDoc {
  method: Method;
  path: string;
  serve: (input: never) => Promise<Response>;
  handler?: never;
}

/** One route: method, path (itty-router syntax, `:name` for a parameter), its description and handler. */
export type Route = DeclaredRoute;

// Declared routes --------------------------------------------------------------------------------------------

/** A zod schema, classic or mini: what the router parses a part with (its Standard Schema `validate`). */
export type Schema = z.$ZodType;

/** How a declared part of the request is read, when not simply by a schema given as it is. */
export interface PartOptions<S extends Schema = Schema> {
  /**
   * The part's schema, or a loader of it: a client's route hands over a loader, so that no zod is
   * evaluated when the Worker starts (scripts/check-startup.mjs). It describes the part in the document,
   * and decides every value `read` leaves to it (its issues are the 400's details).
   */
  schema: S | (() => Promise<S>);
  /**
   * Reads the part without zod: the value exactly as the schema would parse it, or null to leave it to the
   * schema (src/orders/requests.ts; a test holds each reader to its schema).
   */
  read?(raw: unknown): z.output<S> | null;
  /**
   * Reads the part, when `read` left it, where its rules are more than one schema's: the value, or fail()
   * with the issues of the schema that decided. GET /order/get's query names its order by `orderId`, or
   * else by `reference`, each checked by its own schema; `schema` then describes the part in the document.
   */
  parse?(raw: unknown): Promise<z.output<S>>;
  /**
   * A rule the part must also keep, once read, before the next part is read: it refuses with fail() (an
   * exchange rate's pair of two different currencies, before its body).
   */
  check?(value: z.output<S>): void;
  /**
   * The code a part the schema refuses is answered with, when not the usual one (invalid_parameters for
   * params and query, invalid_request_body for a body, whose unreadable JSON is then answered so too):
   * confirm's invalid_order_id.
   */
  refusal?: ErrorCode;
  /**
   * For a body: what the schema is given, read off the request, when not JSON of at most MAX_BODY_BYTES
   * (an upload of codes as JSON or CSV, of up to 1 MiB). It refuses what it cannot read with fail().
   */
  from?(request: Request, env: Env): Promise<unknown>;
}

/** A declared part of the request: its schema as it is, a loader of it, or how it is read. */
export type Part<S extends Schema = Schema> = S | (() => Promise<S>) | PartOptions<S>;

/** The schema of a part, however it is given. */
type SchemaOf<P> = P extends PartOptions<infer S> ? S : P extends () => Promise<infer S> ? S : P;

/** What a part is once read: its schema's output. */
export type Read<P> = SchemaOf<P> extends Schema ? z.output<SchemaOf<P>> : never;

/**
 * What a route declares, as written in its routes file: its description (RouteDoc), and either the errors
 * it answers (`errors`) or the checks it runs, whose codes are then the errors it answers (`checks`).
 * The 400s of its parts, and the errors of its auth, are added from what it declares. A client's route may
 * give both: its errors are then listed in the order given, which is the contract's (create, confirm and
 * get listed theirs so before they had checks), and the document holds them to the checks' codes.
 */
export type Declaration = Omit<RouteDoc, "errors" | "checks"> & { method: Method; path: string } & (
    | { errors: readonly ErrorCode[]; checks?: never }
    | { checks: readonly Check[]; errors?: never }
    | { auth: "apiKey"; errors: readonly ErrorCode[]; checks: readonly Check[] }
  );

declare const answered: unique symbol;

/**
 * A success answer whose `data` is a T: only `ok` and `okJson` of a handler's input make one, so a handler
 * whose route declares its answer cannot return any other Response.
 */
export type Answer<T> = Response & { readonly [answered]: T };

type DataOf<D> = D extends { data: infer S } ? (S extends null ? null : Read<S>) : never;
type MessageOf<D> = D extends { messages: readonly (infer M extends string)[] } ? M : string;
type CallerOf<D> = D extends { auth: "apiKey" }
  ? { /** The client behind the request's API key, found before the parts were read. */ client: Client }
  : D extends { auth: "admin" }
    ? { /** The operator, whose role the router checked against the route's. */ caller: AdminCaller }
    : unknown;
type PartsOf<D> = { [K in keyof D & ("params" | "query" | "body")]: Read<D[K]> };

/** What a declared route's handler is given: the parts it declared, read and valid, and its caller. */
export type Input<D> = PartsOf<D> &
  CallerOf<D> & {
    env: Env;
    exec: ExecutionContext;
    requestId: string;
    /** The request's headers, which a route may read beside its parts (Accept, Idempotency-Key). */
    headers: Headers;
    /** The success envelope: one of the declared messages around the declared answer. */
    ok: (message: MessageOf<D>, data: DataOf<D>, headers?: Record<string, string>) => Answer<DataOf<D>>;
    /** The same, around data that is JSON already (an object's view, not parsed again): trusted to be the answer. */
    okJson: (message: MessageOf<D>, dataJson: string, headers?: Record<string, string>) => Answer<DataOf<D>>;
  };

/**
 * A declared route's handler. It answers the declared envelope, or, for a route whose answer is a file
 * (`file`) or not an envelope (`data: null`), any Response; it refuses by throwing (fail()).
 */
export type Serve<D> = (
  input: Input<D>,
) => Promise<D extends { data: null } | { file: object } ? Response : Answer<DataOf<D>>>;

/**
 * A route: its declaration and its handler, which receives the declared parts read and valid (the router
 * reads them, src/http/inputs.ts) and whose answer the declaration types. Hono's zod-openapi's
 * `createRoute` and `app.openapi` in one.
 */
export function route<const D extends Declaration>(declaration: D, serve: Serve<D>): Route {
  return { ...declaration, serve } as unknown as DeclaredRoute;
}

/**
 * A page for people (the rendered API reference, the console, the health probe): routed like a route, but
 * not part of the API document, and given the request itself.
 */
export interface Page {
  method: Method;
  path: string;
  handler: Handler;
  summary: string;
}
