import { Router, type IRequest, type RouterType } from "itty-router";
import { logFailure } from "../kernel/log";
import { once } from "../kernel/once";
import { Refusal, failure } from "../kernel/failures";
import { RefusalWithHeaders } from "./errors";
import { errorResponse } from "./responses";
import type { AuthorizeOperator } from "./admin-auth";
import { requireScope, type Authenticate } from "./auth";
import { serveDeclared } from "./inputs";
import type { DeclaredRoute, Handler, Page, RequestContext, Route } from "./route";

/**
 * Query parameters by name, a repeated one as an array of all its values. itty-router's own parsing folds a
 * repeated parameter whose first value is empty into the later value (`?orderId=&orderId=x` read as "x"),
 * so a parameter given twice would slip past the checks that refuse it.
 */
function withQuery(request: IRequest): void {
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URL(request.url).searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  request.query = query;
}

function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && /^[\w.:-]{1,128}$/.test(given) ? given : `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

export type FetchHandler = (request: Request, env: Env, exec: ExecutionContext) => Promise<Response>;

/** What the router needs of a route or a page: where it is, what answers there, and who may call it. */
export type Routed =
  | (Pick<Page, "method" | "path" | "handler"> & Partial<Pick<Route, "auth" | "role" | "scope">> & { serve?: never })
  | DeclaredRoute;

/**
 * What answers at a route once its caller may call it: a route's handler, given its parts read and valid
 * (src/http/inputs.ts), or a page's, which reads its request itself.
 */
export function handlerOf(route: Routed): Handler {
  return route.handler ?? ((request, context) => serveDeclared(route as DeclaredRoute, request, context));
}

/**
 * Routes loaded on the first request whose path starts with `prefix` (or that another part of the Worker
 * asks for first): their modules, with their zod schemas and examples, are evaluated then instead of when
 * the Worker starts. Every path they route starts with `prefix`, so no other path is answered differently
 * before and after they are loaded, and a path under `prefix` is answered (404 and 405 included) only once
 * they are.
 */
export interface LazyRoutes {
  prefix: string;
  load: () => Promise<readonly Routed[]>;
  /**
   * Whether the group exists in this deployment (default: always). Where it does not, every path under
   * `prefix` answers 404 route_not_found, whatever the method, as a path no route has: the sandbox's
   * helpers in live.
   */
  enabled?: (env: Env) => boolean;
}

/** What the composition root gives the router besides the routes. */
export interface RouterParts {
  /** How a client route learns its client (RequestContext.authenticate). */
  authenticate: Authenticate;
  /** How an operator route (`auth: "admin"`) learns its caller and checks the caller's role against the route's. */
  authorizeOperator: AuthorizeOperator;
  /** Runs after every successful non-GET /admin/ request, for the caches an operator write makes stale. */
  afterOperatorWrite: () => void;
  /** Routes (and pages for people) loaded on first use, by the prefix of their paths. */
  lazy?: readonly LazyRoutes[];
}

/**
 * Why `list` cannot be loaded as the routes under `prefix`, or null: a route whose path is not under
 * the prefix, or whose pattern also matches the prefix without its trailing slash (itty-router makes the
 * slash before a `:name?` or a `*` optional: "/admin/:section?" matches "/admin"). Such a path never loads
 * the group, so it would be answered one way before the group is loaded and another way after.
 */
function strayRoute(prefix: string, list: readonly Routed[]): string | null {
  const outside = prefix.replace(/\/+$/, "");
  for (const { method, path } of list) {
    const where = `${method} ${path} is loaded with the routes under ${prefix}`;
    if (!path.startsWith(prefix)) return where;
    if (outside === prefix) continue;
    const [, pattern] = Router().get(path, () => undefined).routes[0]!;
    if (pattern.test(outside)) return `${where} but also matches ${outside}`;
  }
  return null;
}

/**
 * An operator route's handler runs only after its caller's role was checked against the route's, and a
 * client route's only after its key was found and its scope checked against the route's: here for every
 * route at once, so no handler can forget either, and the role and scope the document shows are the ones
 * enforced. A client route is authenticated before its handler runs (each did so first anyway), and the
 * handler's authenticate() answers that client without asking again.
 */
function guarded(route: Routed, authorizeOperator: AuthorizeOperator): Handler {
  const handler = handlerOf(route);
  const { method, path, role, scope } = route;
  if (route.auth === "apiKey") {
    if (scope === undefined) throw new Error(`${method} ${path} is a client route without a scope`);
    return async (request, context) => {
      const client = await context.authenticate();
      requireScope(client, scope);
      context.authenticate = () => Promise.resolve(client);
      return handler(request, context);
    };
  }
  if (route.auth !== "admin") return handler;
  if (role === undefined) throw new Error(`${method} ${path} is an operator route without a role`);
  return async (request, context) => {
    context.admin = await authorizeOperator(request, context.env, context.requestId, role);
    return handler(request, context);
  };
}

/**
 * The Worker's fetch handler for these routes. It knows no domain: it routes, gives each request an id
 * and its authentication, and turns a thrown Refusal into its code's status and error body (anything else
 * thrown is a 500).
 */
export function createRouter(
  routes: readonly Routed[],
  { authenticate, authorizeOperator, afterOperatorWrite, lazy = [] }: RouterParts,
): FetchHandler {
  const router: RouterType<IRequest, [RequestContext]> = Router({ before: [withQuery] });
  const add = (list: readonly Routed[]) => {
    for (const route of list)
      router[route.method.toLowerCase() as "get"](route.path, guarded(route, authorizeOperator));
  };
  add(routes);

  /** Each lazy group, registered by its first load; a load that failed is asked again (src/kernel/once.ts). */
  const groups = lazy.map(({ prefix, load, enabled = () => true }) => ({
    prefix,
    enabled,
    register: once(async () => {
      const list = await load();
      const stray = strayRoute(prefix, list);
      if (stray !== null) throw new Error(stray);
      add(list);
    }),
  }));

  function notRouted(pathname: string): Response {
    const allowed = router.routes.filter(([, pattern]) => pattern.test(pathname)).map(([method]) => method);
    if (allowed.length === 0) return errorResponse(failure("route_not_found"));
    const allow = [...new Set(allowed)].join(", ");
    return errorResponse(failure("method_not_allowed", { allow }), { allow });
  }

  return async function handleRequest(request, env, exec) {
    const requestId = requestIdOf(request);
    const { pathname } = new URL(request.url);
    let response: Response;
    try {
      const group = groups.find(({ prefix }) => pathname.startsWith(prefix));
      if (group !== undefined && !group.enabled(env)) {
        response = errorResponse(failure("route_not_found"));
      } else {
        if (group !== undefined) await group.register();
        const context: RequestContext = { env, exec, requestId, authenticate: () => authenticate(request, env) };
        response = (await router.fetch(request, context)) ?? notRouted(pathname);
      }
    } catch (error) {
      if (error instanceof Refusal) {
        response = errorResponse(error.failure, error instanceof RefusalWithHeaders ? error.headers : {});
      } else {
        logFailure(error, { step: "request", requestId, route: `${request.method} ${pathname}` });
        response = errorResponse(failure("server_error"));
      }
    }
    if (request.method !== "GET" && pathname.startsWith("/admin/") && response.status < 400) {
      // An operator write is seen at once by this isolate; other isolates within their caches' staleness.
      afterOperatorWrite();
    }
    // Every response here was made by this Worker, so its headers can be set in place.
    response.headers.set("x-request-id", requestId);
    return response;
  };
}
