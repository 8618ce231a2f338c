import { Router, type IRequest, type RouterType } from "itty-router";
import { logFailure } from "../kernel/log";
import { ApiError, failure } from "./errors";
import { errorResponse } from "./responses";
import type { Authenticate } from "./auth";
import type { Page, RequestContext, Route } from "./route";

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

/** What the composition root gives the router besides the routes. */
export interface RouterParts {
  /** How a client route learns its client (RequestContext.authenticate). */
  authenticate: Authenticate;
  /** Runs after every successful non-GET /admin/ request, for the caches an operator write makes stale. */
  afterOperatorWrite: () => void;
  /** Pages for people, routed beside the API. */
  pages?: readonly Page[];
}

/**
 * The Worker's fetch handler for these routes. It knows no domain: it routes, gives each request an id
 * and its authentication, and turns a thrown ApiError (or anything else, as a 500) into the error body.
 */
export function createRouter(routes: readonly Route[], { authenticate, afterOperatorWrite, pages = [] }: RouterParts): FetchHandler {
  const router: RouterType<IRequest, [RequestContext]> = Router({ before: [withQuery] });
  for (const { method, path, handler } of [...routes, ...pages]) router[method.toLowerCase() as "get"](path, handler);

  function notRouted(request: Request): Response {
    const pathname = new URL(request.url).pathname;
    const allowed = router.routes.filter(([, pattern]) => pattern.test(pathname)).map(([method]) => method);
    if (allowed.length === 0) return errorResponse(failure("route_not_found"));
    const allow = [...new Set(allowed)].join(", ");
    return errorResponse(failure("method_not_allowed", { allow }), { allow });
  }

  return async function handleRequest(request, env, exec) {
    const requestId = requestIdOf(request);
    let response: Response;
    try {
      const context: RequestContext = { env, exec, requestId, authenticate: () => authenticate(request, env) };
      response = (await router.fetch(request, context)) ?? notRouted(request);
    } catch (error) {
      if (error instanceof ApiError) {
        response = errorResponse(error.failure, error.headers);
      } else {
        logFailure(error, { step: "request", requestId, route: `${request.method} ${new URL(request.url).pathname}` });
        response = errorResponse(failure("server_error"));
      }
    }
    if (request.method !== "GET" && new URL(request.url).pathname.startsWith("/admin/") && response.status < 400) {
      // An operator write is seen at once by this isolate; other isolates within their caches' staleness.
      afterOperatorWrite();
    }
    // Every response here was made by this Worker, so its headers can be set in place.
    response.headers.set("x-request-id", requestId);
    return response;
  };
}
