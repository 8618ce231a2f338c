/**
 * Requests and responses of the operator API. Requests are strict objects: an unknown field is a 400, so
 * that a typo ("quote" for "quotes") is refused instead of silently ignored.
 */
import { z } from "zod";
import { AdjustmentMode, SupplierKind } from "../catalogue/schemas";
import { Currency, CurrencyCode, NonNegativeDecimal, PositiveDecimal, Sku } from "../catalogue/product-schemas";
import { OrderState, OrderView } from "../orders/schemas";
import { ClientIdParam, WalletView } from "../wallets/schemas";
import { WebhookMessageSchema } from "../webhooks/schemas";

const Label = z.string().max(100);

export const PageQuery = z.object({
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page."),
  limit: z.coerce.number().int().min(1).max(500).optional().describe("Page size, 1..500, default 100."),
});

// Clients and keys -----------------------------------------------------------------------------------------

// Path and query parameters carry an example for the document (the same validation as ClientIdParam and Sku).
const ClientIdPath = ClientIdParam.meta({ examples: ["acme"] });
const SkuPath = Sku.meta({ examples: ["EU-VOUCHER"] });

export const ClientParams = z.object({ clientId: ClientIdPath });
export const KeyParams = z.object({
  clientId: ClientIdPath,
  keyId: z.string().regex(/^key_[0-9a-f]{16}$/, "a key id like key_0123456789abcdef").meta({ examples: ["key_328bd1c026147932"] }),
});

export const CreateClientRequest = z.strictObject({
  id: ClientIdParam.optional().describe("Chosen by the operator; generated (cli_...) when absent."),
  name: z.string().min(1).max(200),
  keyLabel: Label.optional().describe("Label of the first API key."),
});

export const ClientView = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  disabledAt: z.number().int().nullable(),
});

export const ApiKeyView = z.object({
  keyId: z.string().describe("key_ and the first 16 hex digits of the key's SHA-256: names a key without revealing it."),
  label: z.string(),
  createdAt: z.number().int(),
  revokedAt: z.number().int().nullable(),
});

export const CreateClientData = z.object({
  client: ClientView,
  apiKey: z.string().describe("sk_live_...: shown once, only its SHA-256 is stored."),
  key: ApiKeyView,
  webhookSecret: z.string().describe("whsec_...: the client's Standard Webhooks signing secret (see `webhook-signature`). Shown once; the API never returns it again."),
});

export const ClientList = z.object({ clients: z.array(ClientView), next: z.string().nullable() });

export const ClientDetail = z.object({ client: ClientView, keys: z.array(ApiKeyView), wallets: z.array(WalletView) });

export const IssueKeyRequest = z.strictObject({ label: Label.optional() });

export const IssuedKeyData = z.object({
  clientId: z.string(),
  apiKey: z.string().describe("sk_live_...: shown once."),
  key: ApiKeyView,
  revokedKeyIds: z.array(z.string()).describe("Keys revoked by a rotation (empty when a key is only added)."),
});

export const RevokedKeyData = z.object({ clientId: z.string(), key: ApiKeyView });

export const WebhookSecretData = z.object({
  clientId: z.string(),
  webhookSecret: z.string().describe("The new secret; deliveries from now on are signed with it."),
});

// Catalogue -------------------------------------------------------------------------------------------------

export const SkuParams = z.object({ sku: SkuPath });

const ProductFields = {
  name: z.string().min(1).max(200),
  currency: Currency,
  country: z.string().regex(/^[A-Z]{2}$/, "an ISO 3166-1 alpha-2 code like US"),
  region: z.string().min(1).max(100),
  supplier: SupplierKind,
  supplierConfig: z.record(z.string(), z.unknown()).optional().describe("Supplier settings, e.g. {\"fail\": true} for a sandbox SKU."),
  active: z.boolean().optional().describe("Default true: an upsert (re-)enables the SKU unless it says false."),
};

/** PUT /admin/products/:sku: the whole SKU (a full replacement, not a patch). */
export const UpsertProductRequest = z.discriminatedUnion("productType", [
  z.strictObject({
    productType: z.literal("fixed"),
    ...ProductFields,
    quotes: z.array(PositiveDecimal).min(1).max(100).describe("The allowed quotes (face values)."),
  }),
  z.strictObject({
    productType: z.literal("range"),
    ...ProductFields,
    minQuote: PositiveDecimal,
    maxQuote: PositiveDecimal,
  }),
]);
export type UpsertProductRequest = z.infer<typeof UpsertProductRequest>;

export const DealParams = z.object({ clientId: ClientIdPath, sku: SkuPath });

const AdjustmentInput = z.strictObject({ amount: NonNegativeDecimal, adjustmentMode: AdjustmentMode });

/**
 * PUT /admin/clients/:clientId/deals/:sku. A percentage is of the line's face value (0..100); a fixed
 * amount is per unit, in the product's currency. Absent fee or discount: zero.
 */
export const UpsertDealRequest = z.strictObject({
  dealState: z.enum(["active", "none"]).optional().describe("Default active."),
  fee: AdjustmentInput.optional(),
  discount: AdjustmentInput.optional(),
});

export const AdminDealView = z.object({
  clientId: z.string(),
  sku: z.string(),
  dealState: z.enum(["active", "none"]),
  fee: z.object({ amount: z.number(), adjustmentMode: AdjustmentMode }),
  discount: z.object({ amount: z.number(), adjustmentMode: AdjustmentMode }),
  updatedAt: z.number().int(),
});

export const DealList = z.object({ deals: z.array(AdminDealView) });

// Inventory -------------------------------------------------------------------------------------------------

export const CodeInput = z.strictObject({
  value: PositiveDecimal.describe("The code's face value: one of a fixed SKU's quotes or within a range SKU's bounds."),
  pin: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/, "printable ASCII, no leading, trailing or double spaces"),
  link: z.url({ protocol: /^https?$/ }).max(2048),
});

/**
 * POST /admin/products/:sku/codes as application/json. The same upload as text/csv has a header row naming
 * the columns value, pin and link (in any order), then one code per row.
 */
export const UploadCodesRequest = z.strictObject({ codes: z.array(CodeInput).min(1).max(10_000) });

export const ValueStock = z.object({
  value: z.number(),
  available: z.number().int(),
  reserved: z.number().int(),
  sold: z.number().int(),
});

export const CodeStock = z.object({ sku: z.string(), byValue: z.array(ValueStock) });

export const UploadCodesData = z.object({
  sku: z.string(),
  added: z.number().int(),
  stock: z.array(ValueStock).describe("Code counts per value after the upload."),
});

/** `details` of a 409 duplicate_codes: every pin that is repeated in the upload or already stored. */
export const DuplicateCodesDetails = z.object({
  duplicates: z.array(
    z.object({
      pin: z.string(),
      reason: z.enum(["repeated_in_upload", "already_stored"]),
      indexes: z
        .array(z.number().int())
        .describe("0-based positions in the upload, as in `codes.<index>` of validation issues (CSV: data row index + 1 is the row after the header)."),
    }),
  ),
});

// Exchange rates --------------------------------------------------------------------------------------------

export const RateParams = z.object({ base: Currency.meta({ examples: ["USD"] }), target: Currency.meta({ examples: ["EUR"] }) });

export const SetRateRequest = z.strictObject({
  rate: PositiveDecimal.describe("1 unit of base (the wallet's currency) buys `rate` units of target (the product's)."),
});

export const AdminRateView = z.object({
  baseCurrency: CurrencyCode,
  targetCurrency: CurrencyCode,
  rate: z.number(),
  updatedAt: z.number().int(),
});

export const RateList = z.object({ rates: z.array(AdminRateView) });

// Orders ----------------------------------------------------------------------------------------------------

const OrderId = z.string().min(1).max(256).meta({ examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"] });

export const OrderParams = z.object({ orderId: OrderId });

export const OrderLookupQuery = z.object({ clientId: ClientIdPath, reference: z.string().min(1).max(256).meta({ examples: ["po-2026-0042"] }) });

export const AdminOrderData = z.object({
  clientId: z.string(),
  reference: z.string(),
  state: OrderState,
  order: OrderView.describe("The order as its client sees it (GET /order/get)."),
  record: z.record(z.string(), z.unknown()).describe("The stored order record: lines with supplier status and failure reasons, amounts as decimal strings."),
});

// Audit -----------------------------------------------------------------------------------------------------

export const AuditQuery = PageQuery.extend({
  target: z.string().min(1).max(300).optional().describe("Only entries about this target, e.g. client:acme or product:SKU-1."),
});

export const AuditEntryView = z.object({
  id: z.number().int(),
  at: z.number().int(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  requestId: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export const AuditPage = z.object({ entries: z.array(AuditEntryView), next: z.string().nullable() });

// Dead-lettered webhooks ------------------------------------------------------------------------------------

export const DeadLetterQuery = z.object({
  clientId: ClientIdParam.optional().describe("Only this client's dead letters."),
  status: z.enum(["pending", "replayed", "all"]).optional().describe("Default pending (not replayed yet)."),
  limit: z.coerce.number().int().min(1).max(200).optional().describe("Page size, 1..200, default 50."),
  before: z.coerce.number().int().min(1).optional().describe("Cursor: the `nextBefore` of the previous page (newest first)."),
});

export const DeadLetterParams = z.object({ id: z.coerce.number().int().min(1).meta({ description: "The dead letter's id.", examples: [1] }) });

export const DeadLetterView = z.object({
  id: z.number().int(),
  eventId: z.string(),
  clientId: z.string(),
  url: z.string(),
  message: WebhookMessageSchema.describe("The queue message a replay sends again: the same event id, so receivers dedupe."),
  attempts: z.number().int().nullable().describe("Delivery attempts made; null when the Queue dead-lettered the message by itself."),
  lastError: z.string(),
  failedAt: z.number().int(),
  replayedAt: z.number().int().nullable(),
});

export const DeadLetterPage = z.object({
  deadLetters: z.array(DeadLetterView),
  nextBefore: z.number().int().nullable().describe("Pass as `before` for the next page; null on the last page."),
});

export const ReplayedDeadLetter = z.object({ deadLetter: DeadLetterView });
