/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the zod schemas that validate requests and
 * describe responses. It is built from the router's own route table (ROUTES): a route without a
 * description below makes the build throw, and a description of a route that is not routed is caught by
 * test/openapi. The checked-in copy is schema/openapi.json (regenerate: `npx vitest run test/openapi -u`).
 */
import type { IRequest } from "itty-router";
import { z } from "zod";
import * as admin from "../admin/schemas";
import { AdminProductList, AdminProductView, ClientProductList, ClientProductView } from "../catalogue/product-schemas";
import {
  ConfirmOrderData,
  ConfirmOrderRequest,
  CreateOrderData,
  CreateOrderRequest,
  GetOrderQuery,
  OrderView,
} from "../orders/schemas";
import {
  AdjustmentRequest,
  LedgerEntryView,
  LedgerPage,
  LedgerQuery,
  TopUpRequest,
  WalletBalanceData,
  WalletList,
  WalletPathParams,
  WalletPostingData,
  WalletView,
} from "../wallets/schemas";
import { ERRORS, type ErrorCode } from "./errors";
import { ROUTES, type RequestContext } from "./router";

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.0.0";

type Auth = "apiKey" | "admin" | "none";

export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tag: "Orders" | "Catalogue" | "Wallets" | "Meta" | "Admin: clients" | "Admin: wallets" | "Admin: catalogue" | "Admin: inventory" | "Admin: exchange rates" | "Admin: orders" | "Admin: audit" | "Admin: webhooks";
  auth: Auth;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may also be sent as text/csv (described in `description`). */
  csv?: boolean;
  /** The schema of `data` in the success envelope; null for a route whose body is not an envelope. */
  data: z.ZodType | null;
  /** Success message(s) of the envelope. */
  messages?: string[];
  /** Errors the route itself can answer; those of auth, body and parameter parsing are added. */
  errors: ErrorCode[];
  /** Extra response headers of the success answer. */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

const pagedQuery = admin.PageQuery;

/** What each routed path does, keyed by "METHOD /path" exactly as in ROUTES. */
export const ROUTE_DOCS: Record<string, RouteDoc> = {
  // Spec endpoints ------------------------------------------------------------------------------------------
  "POST /order/create": {
    operationId: "createOrder",
    tag: "Orders",
    summary: "Create an order (spec §4.1)",
    description:
      "Checks run in a fixed order and the first failure wins (README, API reference). A create that repeats the `reference` of an existing order of the same client with the same body returns that order (header `Idempotent-Replayed: true`); with another body it is 409 reference_already_used.",
    auth: "apiKey",
    body: CreateOrderRequest,
    data: CreateOrderData,
    messages: ["Order created successfully", "Order already exists for this reference"],
    errors: [
      "product_list_malformed",
      "product_list_too_big",
      "quote_mismatch",
      "quote_out_of_range",
      "wallet_not_found",
      "insufficient_funds",
      "invalid_webhook_url",
      "product_not_found",
      "reference_already_used",
      "exchange_not_supported",
      "out_of_stock",
    ],
    headers: { "Idempotent-Replayed": { description: "`true` when the answer is an existing order of this reference.", schema: { type: "string", const: "true" } } },
  },
  "PUT /order/confirm": {
    operationId: "confirmOrder",
    tag: "Orders",
    summary: "Confirm an order and charge its wallet (spec §4.2)",
    description: "Exactly one of any number of concurrent confirms of an order succeeds; a confirmed order confirmed again is 409.",
    auth: "apiKey",
    body: ConfirmOrderRequest,
    data: ConfirmOrderData,
    messages: ["Order confirmed"],
    errors: ["invalid_order_id", "insufficient_funds", "order_not_found", "order_already_confirmed", "order_expired"],
  },
  "GET /order/get": {
    operationId: "getOrder",
    tag: "Orders",
    summary: "Retrieve an order (spec §4.3)",
    description: "200 in every state. Another client's order is 404, like an unknown id.",
    auth: "apiKey",
    query: GetOrderQuery,
    data: OrderView,
    messages: ["Order retrieved"],
    errors: ["invalid_order_query", "order_not_found"],
  },

  // Client routes -------------------------------------------------------------------------------------------
  "GET /products": {
    operationId: "listProducts",
    tag: "Catalogue",
    summary: "The catalogue the calling client can order",
    description:
      "Every active SKU: a fixed SKU lists its `quotes`, a range SKU gives `minQuote`..`maxQuote` (inclusive). `availability` counts the unsold, unreserved codes of inventory SKUs per quote; other SKUs are unlimited. `deal` is the caller's fee and discount on the SKU. Sorted by SKU, not paginated.",
    auth: "apiKey",
    data: ClientProductList,
    messages: ["Products"],
    errors: [],
  },
  "GET /wallets": {
    operationId: "listWallets",
    tag: "Wallets",
    summary: "The calling client's wallets and balances",
    auth: "apiKey",
    data: WalletList,
    messages: ["Wallets"],
    errors: [],
  },
  "GET /openapi.json": {
    operationId: "getOpenApi",
    tag: "Meta",
    summary: "This document",
    auth: "none",
    data: null,
    errors: [],
  },

  // Operator: clients and keys ------------------------------------------------------------------------------
  "POST /admin/clients": {
    operationId: "adminCreateClient",
    tag: "Admin: clients",
    summary: "Create a client with its first API key and webhook secret",
    description: "The API key and the webhook secret are in this answer only: the key is stored as a SHA-256 digest, and no route returns the secret again.",
    auth: "admin",
    body: admin.CreateClientRequest,
    data: admin.CreateClientData,
    messages: ["Client created"],
    errors: ["client_exists"],
  },
  "GET /admin/clients": {
    operationId: "adminListClients",
    tag: "Admin: clients",
    summary: "List clients by id",
    auth: "admin",
    query: pagedQuery,
    data: admin.ClientList,
    messages: ["Clients"],
    errors: [],
  },
  "GET /admin/clients/:clientId": {
    operationId: "adminGetClient",
    tag: "Admin: clients",
    summary: "A client, its API keys (ids, never keys) and its wallets",
    auth: "admin",
    params: admin.ClientParams,
    data: admin.ClientDetail,
    messages: ["Client"],
    errors: ["client_not_found"],
  },
  "POST /admin/clients/:clientId/keys": {
    operationId: "adminIssueKey",
    tag: "Admin: clients",
    summary: "Issue another API key (rotation without downtime: issue, deploy, revoke the old one)",
    auth: "admin",
    params: admin.ClientParams,
    body: admin.IssueKeyRequest,
    data: admin.IssuedKeyData,
    messages: ["API key issued"],
    errors: ["client_not_found"],
  },
  "POST /admin/clients/:clientId/keys/rotate": {
    operationId: "adminRotateKeys",
    tag: "Admin: clients",
    summary: "Issue a new API key and revoke every other key of the client",
    description: "Revoked keys stop working at once in the isolate that served this call and within API_KEY_CACHE_SECONDS (30 s) everywhere.",
    auth: "admin",
    params: admin.ClientParams,
    body: admin.IssueKeyRequest,
    data: admin.IssuedKeyData,
    messages: ["API keys rotated"],
    errors: ["client_not_found"],
  },
  "POST /admin/clients/:clientId/keys/:keyId/revoke": {
    operationId: "adminRevokeKey",
    tag: "Admin: clients",
    summary: "Revoke an API key",
    description: "Effective within API_KEY_CACHE_SECONDS (30 s). Revoking a revoked key changes nothing.",
    auth: "admin",
    params: admin.KeyParams,
    data: admin.RevokedKeyData,
    messages: ["API key revoked", "API key already revoked"],
    errors: ["client_not_found", "api_key_not_found"],
  },
  "POST /admin/clients/:clientId/webhook-secret/rotate": {
    operationId: "adminRotateWebhookSecret",
    tag: "Admin: clients",
    summary: "Replace the client's webhook signing secret",
    auth: "admin",
    params: admin.ClientParams,
    data: admin.WebhookSecretData,
    messages: ["Webhook secret rotated"],
    errors: ["client_not_found"],
  },
  "GET /admin/clients/:clientId/deals": {
    operationId: "adminListDeals",
    tag: "Admin: catalogue",
    summary: "A client's deals",
    auth: "admin",
    params: admin.ClientParams,
    data: admin.DealList,
    messages: ["Deals"],
    errors: ["client_not_found"],
  },
  "PUT /admin/clients/:clientId/deals/:sku": {
    operationId: "adminUpsertDeal",
    tag: "Admin: catalogue",
    summary: "Set a client's fee and discount on a SKU",
    description: "A percentage is of the line's face value (at most 100); a fixed amount is per unit in the product's currency. Orders already created keep their deal.",
    auth: "admin",
    params: admin.DealParams,
    body: admin.UpsertDealRequest,
    data: admin.AdminDealView,
    messages: ["Deal saved"],
    errors: ["client_not_found", "sku_not_found"],
  },
  "DELETE /admin/clients/:clientId/deals/:sku": {
    operationId: "adminDeleteDeal",
    tag: "Admin: catalogue",
    summary: "Remove a client's deal on a SKU",
    auth: "admin",
    params: admin.DealParams,
    data: admin.AdminDealView,
    messages: ["Deal deleted"],
    errors: ["deal_not_found"],
  },

  // Operator: wallets ---------------------------------------------------------------------------------------
  "POST /admin/wallets/:clientId/:currency/top-ups": {
    operationId: "adminTopUpWallet",
    tag: "Admin: wallets",
    summary: "Credit a wallet (opens it if new)",
    description: "One ledger entry per idempotency key, ever: a replay adds nothing and answers the first entry (`replayed: true`); the same key with another amount is 409.",
    auth: "admin",
    params: WalletPathParams,
    body: TopUpRequest,
    data: WalletPostingData,
    messages: ["Wallet topped up", "Top-up already applied"],
    errors: ["client_not_found", "idempotency_conflict"],
  },
  "POST /admin/wallets/:clientId/:currency/adjustments": {
    operationId: "adminAdjustWallet",
    tag: "Admin: wallets",
    summary: "Correct a wallet by a signed amount, with a reason",
    description: "Positive credits, negative debits; a debit never takes the balance below zero (400 adjustment_below_zero). One ledger entry per idempotency key, ever.",
    auth: "admin",
    params: WalletPathParams,
    body: AdjustmentRequest,
    data: WalletPostingData,
    messages: ["Wallet adjusted", "Adjustment already applied"],
    errors: ["adjustment_below_zero", "client_not_found", "wallet_unknown", "idempotency_conflict"],
  },
  "GET /admin/wallets/:clientId/:currency": {
    operationId: "adminGetWallet",
    tag: "Admin: wallets",
    summary: "A wallet's balance",
    auth: "admin",
    params: WalletPathParams,
    data: WalletBalanceData,
    messages: ["Wallet"],
    errors: ["client_not_found", "wallet_unknown"],
  },
  "GET /admin/wallets/:clientId/:currency/ledger": {
    operationId: "adminGetLedger",
    tag: "Admin: wallets",
    summary: "A wallet's ledger, oldest first, a page at a time",
    auth: "admin",
    params: WalletPathParams,
    query: LedgerQuery,
    data: LedgerPage,
    messages: ["Ledger"],
    errors: ["client_not_found", "wallet_unknown"],
  },

  // Operator: catalogue and inventory -----------------------------------------------------------------------
  "GET /admin/products": {
    operationId: "adminListProducts",
    tag: "Admin: catalogue",
    summary: "Every SKU, disabled ones too, with code counts",
    auth: "admin",
    query: pagedQuery,
    data: AdminProductList,
    messages: ["Products"],
    errors: [],
  },
  "GET /admin/products/:sku": {
    operationId: "adminGetProduct",
    tag: "Admin: catalogue",
    summary: "One SKU",
    auth: "admin",
    params: admin.SkuParams,
    data: AdminProductView,
    messages: ["Product"],
    errors: ["sku_not_found"],
  },
  "PUT /admin/products/:sku": {
    operationId: "adminUpsertProduct",
    tag: "Admin: catalogue",
    summary: "Create or replace a SKU",
    description:
      "The whole SKU, not a patch. Quotes and bounds must be positive with at most the currency's minor units; they are stored canonically (10.50 as 10.5), which is how stock is matched to quotes. Orders already created keep what they froze.",
    auth: "admin",
    params: admin.SkuParams,
    body: admin.UpsertProductRequest,
    data: AdminProductView,
    messages: ["Product created", "Product updated"],
    errors: [],
  },
  "POST /admin/products/:sku/disable": {
    operationId: "adminDisableProduct",
    tag: "Admin: catalogue",
    summary: "Stop selling a SKU (new orders get 404; existing orders are kept)",
    auth: "admin",
    params: admin.SkuParams,
    data: AdminProductView,
    messages: ["Product disabled"],
    errors: ["sku_not_found"],
  },
  "POST /admin/products/:sku/enable": {
    operationId: "adminEnableProduct",
    tag: "Admin: catalogue",
    summary: "Sell a disabled SKU again",
    auth: "admin",
    params: admin.SkuParams,
    data: AdminProductView,
    messages: ["Product enabled"],
    errors: ["sku_not_found"],
  },
  "GET /admin/products/:sku/codes": {
    operationId: "adminGetCodeStock",
    tag: "Admin: inventory",
    summary: "Code counts of a SKU per value and status",
    auth: "admin",
    params: admin.SkuParams,
    data: admin.CodeStock,
    messages: ["Code stock"],
    errors: ["sku_not_found"],
  },
  "POST /admin/products/:sku/codes": {
    operationId: "adminUploadCodes",
    tag: "Admin: inventory",
    summary: "Add redeem codes to an inventory SKU (JSON or CSV)",
    description:
      "All or nothing, up to 10,000 codes in 1 MiB. As `text/csv`: a header row naming the columns value, pin and link (any order), then one code per row; fields may be double-quoted. Values must be quotes of the SKU. Any pin repeated in the upload or already stored for the SKU is 409 duplicate_codes with `details.duplicates` listing each ({pin, reason: repeated_in_upload | already_stored, indexes}).",
    auth: "admin",
    params: admin.SkuParams,
    body: admin.UploadCodesRequest,
    csv: true,
    data: admin.UploadCodesData,
    messages: ["Codes added"],
    errors: ["sku_not_found", "duplicate_codes", "unsupported_media_type"],
  },

  // Operator: exchange rates, orders, audit -----------------------------------------------------------------
  "GET /admin/exchange-rates": {
    operationId: "adminListRates",
    tag: "Admin: exchange rates",
    summary: "Every exchange rate",
    auth: "admin",
    data: admin.RateList,
    messages: ["Exchange rates"],
    errors: [],
  },
  "PUT /admin/exchange-rates/:base/:target": {
    operationId: "adminSetRate",
    tag: "Admin: exchange rates",
    summary: "Set the rate from a wallet currency (base) to a product currency (target)",
    description: "1 unit of base buys `rate` units of target. Orders already created keep the rate they froze.",
    auth: "admin",
    params: admin.RateParams,
    body: admin.SetRateRequest,
    data: admin.AdminRateView,
    messages: ["Exchange rate set"],
    errors: [],
  },
  "GET /admin/orders": {
    operationId: "adminFindOrder",
    tag: "Admin: orders",
    summary: "Find a client's order by its reference",
    auth: "admin",
    query: admin.OrderLookupQuery,
    data: admin.AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
  "GET /admin/orders/:orderId": {
    operationId: "adminGetOrder",
    tag: "Admin: orders",
    summary: "Any client's order by id, with its stored record",
    auth: "admin",
    params: admin.OrderParams,
    data: admin.AdminOrderData,
    messages: ["Order"],
    errors: ["order_not_found"],
  },
  "GET /admin/webhooks/dead-letters": {
    operationId: "adminListDeadLetters",
    tag: "Admin: webhooks",
    summary: "Webhooks that could not be delivered, newest first",
    auth: "admin",
    query: admin.DeadLetterQuery,
    data: admin.DeadLetterPage,
    messages: ["Dead letters"],
    errors: [],
  },
  "POST /admin/webhooks/dead-letters/:id/replay": {
    operationId: "adminReplayDeadLetter",
    tag: "Admin: webhooks",
    summary: "Send a dead-lettered webhook again",
    description: "Queued again with the same event id (receivers dedupe on it); delivery attempts start afresh. A dead letter is replayed once.",
    auth: "admin",
    params: admin.DeadLetterParams,
    data: admin.ReplayedDeadLetter,
    messages: ["Dead letter replayed"],
    errors: ["dead_letter_not_found", "dead_letter_already_replayed"],
  },
  "GET /admin/audit": {
    operationId: "adminListAudit",
    tag: "Admin: audit",
    summary: "Operator actions, oldest first",
    auth: "admin",
    query: admin.AuditQuery,
    data: admin.AuditPage,
    messages: ["Audit log"],
    errors: [],
  },
};

/** Schemas that get a name under components.schemas wherever they appear in a response. */
const SHARED_OUTPUT: [z.ZodType, string][] = [
  [OrderView, "Order"],
  [LedgerEntryView, "LedgerEntry"],
  [WalletView, "Wallet"],
  [ClientProductView, "Product"],
  [AdminProductView, "AdminProduct"],
  [admin.ClientView, "Client"],
  [admin.ApiKeyView, "ApiKey"],
  [admin.AdminDealView, "Deal"],
  [admin.AdminRateView, "ExchangeRateSetting"],
  [admin.ValueStock, "ValueStock"],
  [admin.AuditEntryView, "AuditEntry"],
  [admin.DeadLetterView, "DeadLetter"],
];

type JsonSchema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/** Drops zod's ±MAX_SAFE_INTEGER bounds of plain integers: true, and noise in a reader's eyes. */
function tidy({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.maximum === SAFE) delete jsonSchema.maximum;
  if (jsonSchema.minimum === -SAFE) delete jsonSchema.minimum;
}

function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function inline(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return strip(z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "throw", override: tidy }) as JsonSchema);
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function envelope(data: z.ZodType, messages: string[] | undefined): z.ZodType {
  const message = messages !== undefined && messages.length > 0 ? z.enum(messages as [string, ...string[]]) : z.string();
  return z.object({ message, data });
}

function errorBody(codes: ErrorCode[]): z.ZodType {
  return z.object({
    message: z.string().describe("Human-readable; the spec's message where the spec has one."),
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).describe("Stable machine-readable name: branch on this."),
    details: z.record(z.string(), z.unknown()).optional().describe("What went wrong, e.g. zod's issues as {issues: [{path, message}]}."),
  });
}

/** Errors every route of its kind can answer, besides its own. */
function implicitErrors(doc: RouteDoc): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (doc.auth === "apiKey") codes.push("unauthenticated", "rate_limited");
  if (doc.auth === "admin") codes.push("unauthenticated");
  if (doc.body !== undefined) codes.push("payload_too_large");
  // Confirm answers every unusable body with the spec's own "Body has no valid orderId".
  if (doc.body !== undefined && doc.operationId !== "confirmOrder") codes.push("malformed_json", "invalid_request_body");
  if ((doc.params !== undefined || doc.query !== undefined) && doc.auth === "admin") codes.push("invalid_parameters");
  codes.push("server_error");
  return codes;
}

function describeCodes(codes: ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${ERRORS[code].message}`).join("; ");
}

function parameters(doc: RouteDoc, itty: string): JsonSchema[] {
  const names = [...itty.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const declared = Object.keys(doc.params?.shape ?? {});
  if (names.join() !== declared.join()) {
    throw new Error(`${doc.operationId}: path parameters ${names.join(",")} but the schema declares ${declared.join(",")}`);
  }
  const out: JsonSchema[] = [];
  for (const [location, shape] of [
    ["path", doc.params?.shape ?? {}],
    ["query", doc.query?.shape ?? {}],
  ] as const) {
    for (const [name, field] of Object.entries(shape as Record<string, z.ZodType>)) {
      const schema = inline(field, "input");
      const { description, ...rest } = schema;
      out.push({
        name,
        in: location,
        required: location === "path" || !field.safeParse(undefined).success,
        ...(typeof description === "string" ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
  [key: string]: unknown;
}

const DESCRIPTION = [
  "Orders for digital products paid from prepaid wallets. The three spec endpoints (/order/*) follow the interface document to the letter; everything else is documented here and in the README.",
  "",
  "- Client routes: `Authorization: Bearer <api key>`; a missing, unknown or revoked key is 403 `unauthenticated`. Keys are cached per isolate for up to 30 s, so a revocation takes effect within 30 s.",
  "- Operator routes (/admin/*): `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time; every change is validated and written to the audit log (GET /admin/audit).",
  '- Success: `{"message", "data"}`. Error: `{"message", "code", "details"?}`: branch on `code`. Every response carries `X-Request-Id`.',
  "- An unknown path is 404 `route_not_found`; a known path with another method is 405 `method_not_allowed` with an `Allow` header.",
  "- Amounts are JSON numbers rounded to the currency's ISO 4217 minor unit. Operator inputs accept amounts as decimal strings (exact) or numbers.",
].join("\n");

/** The document for the given route table. Throws when a route has no description. */
export function buildOpenApi(routes: readonly (readonly [string, string, ...unknown[]])[]): OpenApiDocument {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [schema, id] of SHARED_OUTPUT) outputs.add(schema, { id });
  const paths: Record<string, Record<string, unknown>> = {};
  const operations: { method: string; path: string; doc: RouteDoc; okSchema: z.ZodType | null }[] = [];
  for (const [method, itty] of routes) {
    const doc = ROUTE_DOCS[`${method} ${itty}`];
    if (doc === undefined) throw new Error(`route ${method} ${itty} has no description in ROUTE_DOCS`);
    const name = pascal(doc.operationId);
    if (doc.body !== undefined) inputs.add(doc.body, { id: `${name}Request` });
    const okSchema = doc.data === null ? null : envelope(doc.data, doc.messages);
    if (okSchema !== null) outputs.add(okSchema, { id: `${name}Response` });
    operations.push({ method, path: itty, doc, okSchema });
  }
  const uri = (id: string) => `#/components/schemas/${id}`;
  const options = { target: "draft-2020-12" as const, unrepresentable: "throw" as const, override: tidy, uri };
  const inputSchemas = z.toJSONSchema(inputs, { ...options, io: "input" }).schemas as Record<string, JsonSchema>;
  const outputSchemas = z.toJSONSchema(outputs, { ...options, io: "output" }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, schema] of [...Object.entries(outputSchemas), ...Object.entries(inputSchemas)].sort(([a], [b]) => a.localeCompare(b))) {
    if (schemas[id] !== undefined) throw new Error(`schema name ${id} is used twice`);
    schemas[id] = strip(schema);
  }

  for (const { method, path: itty, doc, okSchema } of operations) {
    const name = pascal(doc.operationId);
    const path = itty.replace(/:(\w+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
    responses["200"] = {
      description: doc.messages?.join(" | ") ?? doc.summary,
      headers: { ...requestId, ...(doc.headers ?? {}) },
      content: { "application/json": { schema: okSchema === null ? { type: "object", description: "An OpenAPI 3.1 document." } : { $ref: uri(`${name}Response`) } } },
    };
    const codes = [...new Set([...doc.errors, ...implicitErrors(doc)])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
    for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
      const headers: Record<string, unknown> = { ...requestId };
      if (status === 429) headers["Retry-After"] = { description: "Seconds to wait.", schema: { type: "string" } };
      responses[String(status)] = {
        description: describeCodes(statusCodes),
        headers,
        content: { "application/json": { schema: inline(errorBody(statusCodes), "output") } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description !== undefined ? { description: doc.description } : {}),
      tags: [doc.tag],
      security: doc.auth === "none" ? [] : [{ [doc.auth === "admin" ? "adminToken" : "apiKey"]: [] }],
    };
    const params = parameters(doc, itty);
    if (params.length > 0) operation.parameters = params;
    if (doc.body !== undefined) {
      const content: Record<string, unknown> = { "application/json": { schema: { $ref: uri(`${name}Request`) } } };
      if (doc.csv === true) {
        content["text/csv"] = { schema: { type: "string", description: "A header row naming value, pin and link, then one code per row." } };
      }
      operation.requestBody = { required: true, content };
    }
    operation.responses = responses;
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
  }

  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: OPENAPI_VERSION,
    info: { title: "Order service", version: API_VERSION, description: DESCRIPTION },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    tags: [...new Set(operations.map(({ doc }) => doc.tag))].map((name) => ({ name })),
    paths: sortedPaths,
    components: {
      schemas,
      headers: { RequestId: { description: "The request's id: the one sent, if well-formed, or a generated one.", schema: { type: "string" } } },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "A client API key (sk_live_... or, locally, sk_test_demo)." },
        adminToken: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN Worker secret (.dev.vars locally)." },
      },
    },
  };
}

let cached: string | null = null;

/** The document of this Worker's routes, as JSON text (built once per isolate). */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApi(ROUTES));
  return cached;
}

/** GET /openapi.json: public, no auth. */
export async function getOpenApi(_request: IRequest, _context: RequestContext): Promise<Response> {
  return new Response(openApiJson(), {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
