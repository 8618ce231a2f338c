import { Router, type IRequest, type RouterType } from "itty-router";
import { confirmOrder, createOrder, getOrder } from "../orders/order-routes";
import { adjustWallet, getLedger, getWallet, listWallets, topUpWallet } from "../wallets/wallet-routes";
import { listAudit } from "../admin/audit-routes";
import { deleteDeal, disableProduct, enableProduct, getAdminProduct, listAdminProducts, listDeals, upsertDeal, upsertProduct } from "../admin/catalogue-routes";
import { createClient, createKey, getClient, listClients, revokeKey, rotateKeys, rotateWebhookSecret } from "../admin/client-routes";
import { getCodeStock, uploadCodes } from "../admin/inventory-routes";
import { findAdminOrder, getAdminOrder } from "../admin/order-routes";
import { listRates, setRate } from "../admin/rate-routes";
import { listDeadLetterRoute, replayDeadLetterRoute } from "../admin/webhook-routes";
import { listProducts } from "../catalogue/product-routes";
import { getOpenApi } from "./openapi";
import { forgetCatalogueCache } from "../catalogue/catalogue-cache";
import { forgetCachedKeys } from "./auth";
import { ApiError, failure } from "./errors";
import { errorResponse } from "./responses";
import { logFailure } from "../kernel/log";

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
  // Client catalogue and balances, the API description, the operator API (issue 5; src/http/openapi.ts
  // describes every route here, and GET /openapi.json fails to build for a route it does not describe).
  ["GET", "/products", listProducts],
  ["GET", "/wallets", listWallets],
  ["GET", "/openapi.json", getOpenApi],
  ["POST", "/admin/clients", createClient],
  ["GET", "/admin/clients", listClients],
  ["GET", "/admin/clients/:clientId", getClient],
  ["POST", "/admin/clients/:clientId/keys", createKey],
  ["POST", "/admin/clients/:clientId/keys/rotate", rotateKeys],
  ["POST", "/admin/clients/:clientId/keys/:keyId/revoke", revokeKey],
  ["POST", "/admin/clients/:clientId/webhook-secret/rotate", rotateWebhookSecret],
  ["GET", "/admin/clients/:clientId/deals", listDeals],
  ["PUT", "/admin/clients/:clientId/deals/:sku", upsertDeal],
  ["DELETE", "/admin/clients/:clientId/deals/:sku", deleteDeal],
  ["POST", "/admin/wallets/:clientId/:currency/adjustments", adjustWallet],
  ["GET", "/admin/wallets/:clientId/:currency", getWallet],
  ["GET", "/admin/wallets/:clientId/:currency/ledger", getLedger],
  ["GET", "/admin/products", listAdminProducts],
  ["GET", "/admin/products/:sku", getAdminProduct],
  ["PUT", "/admin/products/:sku", upsertProduct],
  ["POST", "/admin/products/:sku/disable", disableProduct],
  ["POST", "/admin/products/:sku/enable", enableProduct],
  ["GET", "/admin/products/:sku/codes", getCodeStock],
  ["POST", "/admin/products/:sku/codes", uploadCodes],
  ["GET", "/admin/exchange-rates", listRates],
  ["PUT", "/admin/exchange-rates/:base/:target", setRate],
  ["GET", "/admin/orders", findAdminOrder],
  ["GET", "/admin/orders/:orderId", getAdminOrder],
  ["GET", "/admin/audit", listAudit],
  ["GET", "/admin/webhooks/dead-letters", listDeadLetterRoute],
  ["POST", "/admin/webhooks/dead-letters/:id/replay", replayDeadLetterRoute],
];

/** Read by src/http/openapi.ts, which describes each of these routes. */
export { ROUTES };

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

const router: RouterType<IRequest, [RequestContext]> = Router({ before: [withQuery] });
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
      logFailure(error, { step: `http:${request.method} ${new URL(request.url).pathname}`, requestId });
      response = errorResponse(failure("server_error"));
    }
  }
  if (request.method !== "GET" && new URL(request.url).pathname.startsWith("/admin/") && response.status < 400) {
    // An operator write is seen at once by this isolate; other isolates within their caches' staleness.
    forgetCachedKeys();
    forgetCatalogueCache();
  }
  // Every response here was made by this Worker, so its headers can be set in place.
  response.headers.set("x-request-id", requestId);
  return response;
}

function notRouted(request: Request): Response {
  const allowed = allowedMethods(new URL(request.url).pathname);
  if (allowed.length === 0) return errorResponse(failure("route_not_found"));
  const allow = [...new Set(allowed)].join(", ");
  return errorResponse(failure("method_not_allowed", { allow }), { allow });
}
