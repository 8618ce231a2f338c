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
import { withOpenApi, type NamedSchemas } from "./http/openapi";
import type { Route } from "./http/route";
import { createRouter } from "./http/router";
import { getDocs } from "./docs/docs-page";
import { orderRoutes } from "./orders/order-routes";
import { ExchangeRateView, Invoice, InvoiceItem, InvoiceItemType, InvoiceStatus, OrderProduct, OrderState, OrderView, RedeemEntry, Timestamp } from "./orders/schemas";
import { AdjustmentMode, ProductType, SupplierKind } from "./catalogue/schemas";
import { walletRoutes } from "./wallets/wallet-routes";
import { LedgerEntryView, WalletView } from "./wallets/schemas";
import { OrderEventSchema } from "./webhooks/schemas";
import { webhookDocs } from "./webhooks/webhook-docs";

/** Response schemas the document names under components.schemas wherever they appear. */
const NAMED_SCHEMAS: NamedSchemas = [
  [OrderView, "Order"],
  [Invoice, "Invoice"],
  [InvoiceItem, "InvoiceItem"],
  [OrderProduct, "OrderProduct"],
  [RedeemEntry, "RedeemEntry"],
  [ExchangeRateView, "ExchangeRate"],
  [Timestamp, "Timestamp"],
  [OrderEventSchema, "OrderEvent"],
  [OrderState, "OrderState"],
  [InvoiceStatus, "InvoiceStatus"],
  [InvoiceItemType, "InvoiceItemType"],
  [ProductType, "ProductType"],
  [AdjustmentMode, "AdjustmentMode"],
  [SupplierKind, "SupplierKind"],
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
  NAMED_SCHEMAS,
  webhookDocs,
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
