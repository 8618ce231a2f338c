/**
 * The composition root: every domain's routes (each described where it is handled), what a domain needs of
 * another that it may not import (authentication's key lookup, the catalogue's product lookup for
 * inventory), and the caches an operator write makes stale. The one module
 * that knows every domain; in src/ only index.ts imports it.
 *
 * Only the client's routes are imported here: building zod schemas is much of what starting the Worker
 * costs, so the operator's routes (/admin/*), GET /openapi.json with the parts of the document
 * (src/document-parts.ts) and GET /docs are imported when first asked for (scripts/check-startup.mjs
 * keeps it so). The bundler keeps each of them in the Worker's one bundle, evaluated on its first import.
 */
import { forgetCatalogueCache } from "./catalogue/catalogue-cache";
import { requireProduct } from "./catalogue/catalogue-store";
import { productRoutes } from "./catalogue/product-routes";
import { healthPages } from "./health";
import { apiKeyAuthentication, forgetCachedKeys } from "./http/auth";
import { clientOfKey } from "./clients/client-store";
import type { Route } from "./http/route";
import { createRouter } from "./http/router";
import type { Scope } from "./kernel/key-access";
import { once } from "./kernel/once";
import { serviceMode } from "./kernel/service-mode";
import { orderListRoutes } from "./order-index/order-list-routes";
import { orderRoutes } from "./orders/order-routes";
import { walletRoutes } from "./wallets/wallet-routes";
import { walletAlertRoutes } from "./wallets/wallet-alert-routes";
import { eventRoutes } from "./webhooks/event-routes";
import { endpointRoutes } from "./webhooks/endpoint-routes";
import type { OrderReferences } from "./wallets/wallet-statement";

/** The references of a client's orders, for its ledger: the index's store loads with its first use. */
const orderReferences: OrderReferences = async (env, clientId, orderIds) =>
  (await import("./order-index/order-references")).orderReferences(env, clientId, orderIds);

/**
 * The scope of each client route whose own declaration does not name one (docs/api.md, Keys and scopes):
 * `method path` → scope. A route declares its scope where it is handled (`scope` in src/http/route.ts); the
 * routes here are given theirs at composition. An entry naming no route, or a route that already declares
 * its own, is an error when the Worker starts, so the table cannot drift from the routes.
 */
const SCOPES_OF_ROUTES: Readonly<Record<string, Scope | null>> = {
  "GET /orders": "orders:read",
  // A balance is the books' figure: the finance team's key reads it; a buying backend is given books:read too.
  "GET /wallets": "books:read",
  "GET /wallets/:currency/ledger": "books:read",
  "GET /wallets/:currency/statement": "books:read",
};

function withScopes(routes: readonly Route[], scopes: Readonly<Record<string, Scope | null>>): Route[] {
  const unused = new Set(Object.keys(scopes));
  const scoped = routes.map((route) => {
    const name = `${route.method} ${route.path}`;
    if (!Object.hasOwn(scopes, name)) return route;
    unused.delete(name);
    if (route.scope !== undefined) throw new Error(`${name} declares its scope: drop it from SCOPES_OF_ROUTES`);
    return { ...route, scope: scopes[name] } as Route;
  });
  if (unused.size > 0) throw new Error(`SCOPES_OF_ROUTES names no route: ${[...unused].join(", ")}`);
  return scoped;
}

/** The client's routes: loaded with the Worker, so that no client request waits for a module. */
const CLIENT_ROUTES: readonly Route[] = withScopes(
  [
    ...orderRoutes,
    ...orderListRoutes,
    ...productRoutes,
    ...walletRoutes(orderReferences),
    ...walletAlertRoutes,
    ...eventRoutes,
    ...endpointRoutes,
  ],
  SCOPES_OF_ROUTES,
);

/** The operator's routes, each under /admin/: loaded by the first request there or by GET /openapi.json. */
const operatorRoutes = once(async (): Promise<readonly Route[]> => {
  const [
    wallets,
    walletBackups,
    clients,
    catalogue,
    inventory,
    rates,
    orderSearch,
    orders,
    deadLetters,
    audit,
    operators,
    attention,
    orderIndex,
    reconciliation,
    approvals,
    orderExports,
    books,
  ] = await Promise.all([
    import("./treasury/wallet-admin-routes"),
    import("./treasury/ledger-backup-admin-routes"),
    import("./clients/client-admin-routes"),
    import("./catalogue/catalogue-admin-routes"),
    import("./inventory/inventory-admin-routes"),
    import("./pricing/rate-admin-routes"),
    import("./order-index/order-search-admin-routes"),
    import("./orders/order-admin-routes"),
    import("./webhooks/dead-letter-admin-routes"),
    import("./audit/audit-admin-routes"),
    import("./operators/operator-admin-routes"),
    import("./attention/attention-admin-routes"),
    import("./order-index/order-index-admin-routes"),
    import("./reconciliation/reconciliation-admin-routes"),
    import("./treasury/approval-admin-routes"),
    import("./exports/export-admin-routes"),
    import("./books/books-admin-routes"),
  ]);
  return [
    ...wallets.walletAdminRoutes,
    ...walletBackups.ledgerBackupRoutes,
    ...clients.clientRoutes,
    ...catalogue.catalogueRoutes,
    ...inventory.inventoryRoutes(requireProduct),
    ...rates.rateRoutes,
    // Before the orders' /admin/orders/:orderId, which would take "search" and "export" for order ids.
    ...orderSearch.orderSearchRoutes,
    ...orderExports.exportRoutes,
    ...orders.adminOrderRoutes,
    ...deadLetters.deadLetterRoutes,
    ...audit.auditRoutes,
    ...operators.operatorRoutes,
    ...attention.attentionRoutes,
    ...orderIndex.orderIndexRoutes,
    ...reconciliation.reconciliationRoutes,
    ...approvals.approvalAdminRoutes,
    ...books.booksRoutes,
  ];
});

/** The sandbox's helpers, each under /sandbox/: loaded by the first request there (in the sandbox only) or by GET /openapi.json. */
const sandboxRoutes = once(
  async (): Promise<readonly Route[]> => (await import("./sandbox/sandbox-routes")).sandboxRoutes,
);

/** GET /openapi.json: the document of every route, itself included, with the parts only this root knows. */
const documentRoute = once(async (): Promise<Route> => {
  const [{ openApiRoute }, { DOCUMENT_PARTS }, operator, sandbox] = await Promise.all([
    import("./docs/docs-routes"),
    import("./document-parts"),
    operatorRoutes(),
    sandboxRoutes(),
  ]);
  return openApiRoute([...CLIENT_ROUTES, ...sandbox, ...operator], DOCUMENT_PARTS);
});

/** Every route of the service, GET /openapi.json last: what the document describes (loads them all). */
export async function allRoutes(): Promise<readonly Route[]> {
  return [...CLIENT_ROUTES, ...(await sandboxRoutes()), ...(await operatorRoutes()), await documentRoute()];
}

/** The client behind a request's API key: http's caches and limits, the clients' store's lookup. */
export const authenticate = apiKeyAuthentication(clientOfKey);

/**
 * The caller of an operator route: http's check of ADMIN_TOKEN and of the route's role, the operators'
 * store's token lookup. Loaded with the first operator request, as the operator's routes are.
 */
const operatorAuthorizer = once(async () => {
  const [{ operatorAuthorization }, { hasOperatorTokenShape, liveOperatorOfToken }] = await Promise.all([
    import("./http/admin-auth"),
    import("./operators/operator-tokens"),
  ]);
  return operatorAuthorization(liveOperatorOfToken, hasOperatorTokenShape);
});

export const handleRequest = createRouter([...CLIENT_ROUTES, ...healthPages], {
  authenticate,
  authorizeOperator: async (request, env, requestId, needed) =>
    (await operatorAuthorizer())(request, env, requestId, needed),
  afterOperatorWrite: () => {
    forgetCachedKeys();
    forgetCatalogueCache();
  },
  lazy: [
    { prefix: "/admin/", load: operatorRoutes },
    // Only in the sandbox: in live every path under /sandbox/ is 404, as if no route were there.
    { prefix: "/sandbox/", load: sandboxRoutes, enabled: (env) => serviceMode(env) === "sandbox" },
    { prefix: "/openapi.json", load: async () => [await documentRoute()] },
    // The rendered API reference: a page for people, so beside the routes and out of /openapi.json.
    { prefix: "/docs", load: async () => (await import("./docs/docs-routes")).docsPages },
    // The operator console: pages for people, signed in with a session (src/console/console-routes.ts).
    { prefix: "/console", load: async () => (await import("./console/console-routes")).consolePages },
  ],
});
