/**
 * The parts of the OpenAPI document only the composition root knows: what the service is, the route groups
 * (tags), the response schemas named under components.schemas, and the webhooks. Like every schema it
 * names, it is loaded by app.ts on the first GET /openapi.json, not when the Worker starts.
 */
import { AuditEntryView } from "./audit/audit-admin-schemas";
import { ApiKeyView, ClientView } from "./clients/client-admin-schemas";
import { ValueStock } from "./inventory/inventory-admin-schemas";
import { AdminRateView } from "./pricing/rate-admin-schemas";
import { DeadLetterView } from "./webhooks/dead-letter-admin-schemas";
import { ClientProductView } from "./catalogue/product-schemas";
import { AdminDealView, AdminProductView } from "./catalogue/catalogue-admin-schemas";
import type { DocumentParts } from "./http/openapi";
import {
  ExchangeRateView,
  Invoice,
  InvoiceItem,
  InvoiceItemType,
  InvoiceStatus,
  OrderProduct,
  OrderState,
  OrderView,
  RedeemEntry,
  Timestamp,
} from "./orders/order-view-schemas";
import { AdjustmentMode, ProductType, SupplierKind } from "./catalogue/catalogue-schemas";
import { WalletView } from "./wallets/wallet-schemas";
import { LedgerEntryView } from "./wallets/wallet-admin-schemas";
import { OrderEventSchema } from "./webhooks/webhook-message-schemas";
import { accountWebhookDocs, webhookDocs } from "./webhooks/webhook-docs";

/** What the service is, as the document's info.description tells a reader. */
const DESCRIPTION = [
  "Orders for digital products (gift cards, vouchers) paid from prepaid wallets. A client creates an order (priced, codes reserved, nothing charged), confirms it (its wallet is charged) and reads it until it reaches an end state (`successful`, `partial` or `failed`) with its redeem codes; a created order that is not confirmed in time is `rejected`. Order events can be sent to a `webhookUrl` (see `webhooks`).",
  "",
  "- Client routes: `Authorization: Bearer <api key>`; a missing, unknown or revoked key is 403 `unauthenticated`. Keys are cached per isolate for up to 30 s, so a revocation takes effect within 30 s (plus the lag of a D1 read replica, where read replication is on); a new key works at once.",
  "- Operator routes (/admin/*): `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time; every change is validated and written to the audit log (GET /admin/audit).",
  '- Success: `{"message", "data"}`. Error: `{"message", "code", "details"?}` (schema `Error`): branch on `code`. Every response carries `X-Request-Id`.',
  "- Retries: decide by `code`, not by status. Send the same request again after 429 `rate_limited` (once `Retry-After` seconds have passed) and 500 `server_error` (with backoff): a create repeated with the same `reference` and body returns the same order, and a confirm charges an order at most once, so both are safe to repeat. 400 `insufficient_funds` passes once the wallet holds `details.required`: top up, then send the same create, or the same confirm before `expiresAt`. 400 `balance_held` (a create that reserves codes) passes once the balance covers `details.required` beside what the client's other open orders hold: confirm or let go of one, or top up. 400 `held_codes_limit` (a create that reserves codes) passes once the client's other open orders in the wallet hold fewer codes: confirm or let go of one. 500 `out_of_stock` and `exchange_not_supported` are final though they are 5xx: the same request fails the same way until the operator adds codes or sets the rate. Every other 4xx is final: the same request gets the same answer until it changes (or, for 404 `product_not_found` and 400 `wallet_not_found`, until the operator adds the SKU or opens the wallet).",
  "- An unknown path is 404 `route_not_found`; a known path with another method is 405 `method_not_allowed` with an `Allow` header.",
  "- Amounts are JSON numbers rounded to the currency's ISO 4217 minor unit. Operator inputs accept amounts as decimal strings (exact) or numbers.",
].join("\n");

const CLIENT = "Client API";
const SANDBOX = "Sandbox";
const OPERATOR = "Operator API";

/**
 * The route groups of the document, in the order it lists them, with what each groups for a reader and
 * the reader it is for: the client's API, the sandbox's helpers, the operator's API (x-tagGroups).
 */
const TAGS: DocumentParts["tags"] = [
  {
    name: "Orders",
    description:
      "Create an order, confirm it (the wallet is charged) and read it until it reaches an end state with its redeem codes.",
    group: CLIENT,
  },
  {
    name: "Catalogue",
    description: "What the calling client can order: SKUs, quotes, availability and the client's own deal.",
    group: CLIENT,
  },
  { name: "Wallets", description: "The calling client's wallets and balances.", group: CLIENT },
  {
    name: "Webhooks",
    description: "What the service POSTs to an order's webhookUrl, signed as Standard Webhooks.",
    group: CLIENT,
  },
  {
    name: "Events",
    description:
      "Everything that happened in the calling client's account for the last 30 days: order state changes, wallet top-ups and low balances, failed deliveries.",
    group: CLIENT,
  },
  {
    name: "Account webhooks",
    description: "Endpoints that receive every event of the calling client's account, signed as Standard Webhooks.",
    group: CLIENT,
  },
  { name: "Meta", description: "This document.", group: CLIENT },
  {
    name: "Sandbox",
    description:
      "Sandbox only (sk_test_ keys; 404 in live): top up your own wallets, expire an order now, send a test webhook. With the Sandbox-Outcome header of POST /order/create, they let an integration be tested end to end without waiting and without money.",
    group: SANDBOX,
  },
  {
    name: "Admin: attention",
    description:
      "Operator: what needs attention (stuck orders, dead letters, low stock, low balances) and the thresholds it is judged by.",
    group: OPERATOR,
  },
  {
    name: "Admin: orders",
    description: "Operator: any client's order with its stored record, and the orders whose timers keep failing.",
    group: OPERATOR,
  },
  {
    name: "Admin: clients",
    description: "Operator: clients, their API keys and webhook secrets.",
    group: OPERATOR,
  },
  {
    name: "Admin: wallets",
    description: "Operator: credit, correct and inspect client wallets and their ledgers.",
    group: OPERATOR,
  },
  {
    name: "Admin: catalogue",
    description: "Operator: SKUs and the deals (fees and discounts) of each client.",
    group: OPERATOR,
  },
  {
    name: "Admin: inventory",
    description: "Operator: redeem codes of inventory SKUs, uploaded as JSON or CSV, and their stock.",
    group: OPERATOR,
  },
  {
    name: "Admin: exchange rates",
    description: "Operator: the rates from a wallet currency to a product currency.",
    group: OPERATOR,
  },
  {
    name: "Admin: webhooks",
    description: "Operator: webhook deliveries that failed every attempt, and their replay.",
    group: OPERATOR,
  },
  {
    name: "Admin: operators",
    description: "Operator: the people who run the service, each with a role and a token of their own.",
    group: OPERATOR,
  },
  { name: "Admin: audit", description: "Operator: the log of every operator change.", group: OPERATOR },
];

/** Response schemas the document names under components.schemas wherever they appear. */
const NAMED_SCHEMAS: DocumentParts["named"] = [
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

/** Everything of the document but its routes. */
export const DOCUMENT_PARTS: DocumentParts = {
  named: NAMED_SCHEMAS,
  tags: TAGS,
  description: DESCRIPTION,
  webhooks: [...webhookDocs, ...accountWebhookDocs],
};
