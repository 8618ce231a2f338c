import { Router, type IRequest, type RouterType } from "itty-router";
import { confirmOrder, createOrder, getOrder } from "../orders/order-routes";
import { topUpWallet } from "../wallets/wallet-routes";
import { ApiError, failure } from "./errors";
import { errorResponse } from "./responses";

export interface RequestContext {
  env: Env;
  exec: ExecutionContext;
  requestId: string;
}

type Handler = (request: IRequest, context: RequestContext) => Promise<Response>;

/** Every route of the service: method, path, handler. The router only wires; the domains do the work. */
const ROUTES: [method: string, path: string, handler: Handler][] = [
  ["POST", "/order/create", createOrder],
  ["PUT", "/order/confirm", confirmOrder],
  ["GET", "/order/get", getOrder],
  ["POST", "/admin/wallets/:clientId/:currency/top-ups", topUpWallet],
];

const router: RouterType<IRequest, [RequestContext]> = Router();
for (const [method, path, handler] of ROUTES) router[method.toLowerCase() as "get"](path, handler);

function allowedMethods(pathname: string): string[] {
  return router.routes.filter(([, pattern]) => pattern.test(pathname)).map(([method]) => method);
}

function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given !== null && /^[\w.:-]{1,128}$/.test(given) ? given : `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

export async function handleRequest(request: Request, env: Env, exec: ExecutionContext): Promise<Response> {
  const requestId = requestIdOf(request);
  let response: Response;
  try {
    response = (await router.fetch(request, { env, exec, requestId })) ?? notRouted(request);
  } catch (error) {
    if (error instanceof ApiError) {
      response = errorResponse(error.failure, error.headers);
    } else {
      console.error(JSON.stringify({ requestId, error: String(error), stack: (error as Error)?.stack }));
      response = errorResponse(failure("server_error"));
    }
  }
  const headers = new Headers(response.headers);
  headers.set("x-request-id", requestId);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function notRouted(request: Request): Response {
  const allowed = allowedMethods(new URL(request.url).pathname);
  if (allowed.length === 0) return errorResponse(failure("route_not_found"));
  const allow = [...new Set(allowed)].join(", ");
  return errorResponse(failure("method_not_allowed", { allow }), { allow });
}
