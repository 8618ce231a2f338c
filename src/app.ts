/**
 * The composition root: every domain's routes (each described where it is handled), the OpenAPI document
 * of them, and the caches an operator write makes stale. The one module that knows every domain; nothing
 * imports it but src/index.ts.
 */
import { auditRoutes } from "./audit/audit-routes";
import { catalogueRoutes } from "./catalogue/catalogue-admin-routes";
import { clientRoutes } from "./clients/client-routes";
import { inventoryRoutes } from "./inventory/inventory-routes";
import { adminOrderRoutes } from "./orders/order-admin-routes";
import { rateRoutes } from "./pricing/rate-routes";
import { AuditEntryView } from "./audit/schemas";
import { ApiKeyView, ClientView } from "./clients/schemas";
import { ValueStock } from "./inventory/schemas";
import { AdminRateView } from "./pricing/rate-schemas";
import { DeadLetterView } from "./webhooks/dead-letter-schemas";
import { deadLetterRoutes } from "./webhooks/dead-letter-routes";
import { forgetCatalogueCache } from "./catalogue/catalogue-cache";
import { productRoutes } from "./catalogue/product-routes";
import { AdminDealView, AdminProductView, ClientProductView } from "./catalogue/product-schemas";
import { forgetCachedKeys } from "./http/auth";
import { withOpenApi, type DocumentParts } from "./http/openapi";
import type { Route } from "./http/route";
import { createRouter } from "./http/router";
import { getDocs } from "./docs/docs-page";
import { orderRoutes } from "./orders/order-routes";
import { OrderView } from "./orders/schemas";
import { walletRoutes } from "./wallets/wallet-routes";
import { LedgerEntryView, WalletView } from "./wallets/schemas";

/** What the service is, as the document's info.description tells a reader. */
const DESCRIPTION = [
  "Orders for digital products paid from prepaid wallets. The three spec endpoints (/order/*) follow the interface document to the letter; everything else is documented here and in the README.",
  "",
  "- Client routes: `Authorization: Bearer <api key>`; a missing, unknown or revoked key is 403 `unauthenticated`. Keys are cached per isolate for up to 30 s, so a revocation takes effect within 30 s.",
  "- Operator routes (/admin/*): `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time; every change is validated and written to the audit log (GET /admin/audit).",
  '- Success: `{"message", "data"}`. Error: `{"message", "code", "details"?}`: branch on `code`. Every response carries `X-Request-Id`.',
  "- An unknown path is 404 `route_not_found`; a known path with another method is 405 `method_not_allowed` with an `Allow` header.",
  "- Amounts are JSON numbers rounded to the currency's ISO 4217 minor unit. Operator inputs accept amounts as decimal strings (exact) or numbers.",
].join("\n");

/** The route groups of the document, in the order it lists them. */
const TAGS = [
  "Orders",
  "Admin: wallets",
  "Catalogue",
  "Wallets",
  "Meta",
  "Admin: clients",
  "Admin: catalogue",
  "Admin: inventory",
  "Admin: exchange rates",
  "Admin: orders",
  "Admin: audit",
  "Admin: webhooks",
];

/** Response schemas the document names under components.schemas wherever they appear. */
const NAMED_SCHEMAS: DocumentParts["named"] = [
  [OrderView, "Order"],
  [LedgerEntryView, "LedgerEntry"],
  [WalletView, "Wallet"],
  [ClientProductView, "Product"],
  [AdminProductView, "AdminProduct"],
  [ClientView, "Client"],
  [ApiKeyView, "ApiKey"],
  [AdminDealView, "Deal"],
  [AdminRateView, "ExchangeRateSetting"],
  [ValueStock, "ValueStock"],
  [AuditEntryView, "AuditEntry"],
  [DeadLetterView, "DeadLetter"],
];

/** Every route of the service, GET /openapi.json included. */
export const ROUTES: readonly Route[] = withOpenApi(
  [
    ...orderRoutes,
    ...productRoutes,
    ...walletRoutes,
    ...clientRoutes,
    ...catalogueRoutes,
    ...inventoryRoutes,
    ...rateRoutes,
    ...adminOrderRoutes,
    ...deadLetterRoutes,
    ...auditRoutes,
  ],
  { named: NAMED_SCHEMAS, tags: TAGS, description: DESCRIPTION },
);

export const handleRequest = createRouter(
  ROUTES,
  () => {
    forgetCachedKeys();
    forgetCatalogueCache();
  },
  // The rendered API reference (src/docs): a page for people, so beside ROUTES and out of /openapi.json.
  [{ method: "GET", path: "/docs/:asset?", handler: getDocs }],
);
