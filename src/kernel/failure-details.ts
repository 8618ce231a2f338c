/**
 * The `details` of each failure code as the document describes them, an example of each error body, and
 * whether a client should retry. Read off every place that fails with a code (grep `fail("` and
 * `failure("`); a code missing here answers without details. The conformance tests (test/openapi) check
 * real error answers against these. Only the API document's builder loads this module, on its first
 * request: its zod shapes are not built at start-up (scripts/check-startup.mjs).
 */
import * as z from "zod";
import { FAILURES, type FailureCode } from "./failures";

const Issues = z
  .array(
    z.object({
      path: z.string().describe("Dotted path of the field, `(body)` for the body itself."),
      message: z.string(),
    }),
  )
  .describe("zod's validation issues: which field and what is wrong with it.");

/** invalid_request_body and invalid_parameters: zod's issues, or a reason for a check beyond the shape. */
const InvalidInput = z
  .object({
    issues: Issues.optional(),
    count: z
      .number()
      .int()
      .optional()
      .describe("How many issues there were, when only the first 100 are listed (code uploads)."),
    reason: z.string().optional().describe("What is wrong, for a check beyond the schema (e.g. a CSV row)."),
    index: z.number().int().optional().describe("0-based CSV data row."),
    missing: z.array(z.string()).optional().describe("CSV columns the header lacks."),
    unknown: z.array(z.string()).optional().describe("CSV columns the header has but the upload does not know."),
  })
  .describe("Either `issues` (the request does not fit its schema) or `reason` (it fits but is refused).");

const Reason = z.object({ reason: z.string() });
const Line = z.object({ sku: z.string(), index: z.number().int().describe("0-based position in productList.") });

interface DetailsDoc {
  /** The schema of `details`; undefined: the code never carries details. */
  schema?: z.ZodType;
  /** Whether every answer with this code carries details. */
  always?: boolean;
  /** An example answer's details and, where it differs from the code's message, its message. */
  example?: Record<string, unknown>;
  message?: string;
}

export const ERROR_DETAILS: Record<FailureCode, DetailsDoc> = {
  invalid_request_body: {
    schema: InvalidInput,
    example: { issues: [{ path: "productList.0.quantity", message: "Too small: expected number to be >=1" }] },
  },
  malformed_json: { schema: Reason, always: true, example: { reason: "body is empty" } },
  product_list_malformed: {
    schema: z.object({
      reason: z.enum(["productList is empty", "duplicate sku"]),
      sku: z.string().optional().describe("The repeated SKU."),
    }),
    always: true,
    example: { reason: "duplicate sku", sku: "DEMO-EU-FIXED" },
  },
  product_list_too_big: {
    schema: z.object({
      limit: z.enum(["skus", "quantityPerSku", "totalQuantity"]).describe("Which limit the list exceeds."),
      max: z.number().int(),
      requested: z.number().int(),
      sku: z.string().optional().describe("The line over the per-SKU limit."),
    }),
    always: true,
    example: { limit: "quantityPerSku", max: 5, sku: "DEMO-EU-FIXED", requested: 6 },
  },
  quote_mismatch: { schema: Line, always: true, example: { sku: "DEMO-EU-FIXED", index: 0 } },
  quote_out_of_range: { schema: Line, always: true, example: { sku: "DEMO-US-RANGE", index: 1 } },
  insufficient_funds: {
    schema: z.object({
      balance: z.number().describe("The wallet's balance now."),
      required: z.number().describe("What the order costs, in the wallet's currency."),
    }),
    always: true,
    example: { balance: 12.5, required: 61.02 },
  },
  balance_held: {
    schema: z.object({
      balance: z.number().describe("The wallet's balance now."),
      held: z
        .number()
        .describe("What the client's other open orders that hold codes hold of it until they are confirmed or expire."),
      required: z.number().describe("What this order costs, in the wallet's currency."),
    }),
    always: true,
    example: { balance: 50, held: 40, required: 20 },
  },
  held_codes_limit: {
    schema: z.object({
      held: z.number().int().describe("How many codes the client's other open orders in this wallet hold."),
      limit: z.number().int().describe("The most codes a wallet's open orders may hold together (MAX_HELD_CODES)."),
      requested: z.number().int().describe("How many codes this order would reserve."),
    }),
    always: true,
    example: { held: 95, limit: 100, requested: 10 },
  },
  open_orders_limit: {
    schema: z.object({
      open: z.number().int().describe("How many open (created, unconfirmed) orders the client has in this wallet."),
      limit: z
        .number()
        .int()
        .describe(
          "The most it may have at once now: MAX_OPEN_ORDERS, halved for every EXPIRED_ORDERS_BACKOFF_STEP of its orders in a row that expired unconfirmed, never below 1.",
        ),
      expiredInARow: z
        .number()
        .int()
        .describe(
          "The client's orders in this wallet that expired unconfirmed since its last confirmed one (within a day of each other).",
        ),
    }),
    always: true,
    example: { open: 50, limit: 50, expiredInARow: 23 },
  },
  wallet_not_found: {
    schema: z.object({ wallet: z.string() }),
    always: true,
    example: { wallet: "GBP" },
    message: "No wallet in currency GBP",
  },
  invalid_order_id: {
    schema: z.object({ issues: Issues.optional(), reason: z.string().optional() }),
    example: { issues: [{ path: "orderId", message: "Invalid input: expected string, received undefined" }] },
  },
  invalid_order_query: {
    schema: z.object({ issues: Issues }),
    always: true,
    example: { issues: [{ path: "orderId", message: "Invalid input: expected string, received undefined" }] },
  },
  invalid_webhook_url: {
    schema: Reason,
    always: true,
    example: { reason: "scheme must be https" },
    message: "webhookUrl is not allowed: scheme must be https",
  },
  unauthenticated: {},
  forbidden: {
    schema: z.object({
      role: z.enum(["viewer", "operator", "admin"]).describe("The caller's role."),
      needed: z.enum(["viewer", "operator", "admin"]).describe("The least role the route needs."),
    }),
    always: true,
    example: { role: "viewer", needed: "operator" },
  },
  invalid_sandbox_outcome: {
    schema: Reason,
    always: true,
    example: { reason: "partial needs at least two lines: the last fails, the others succeed" },
  },
  sandbox_outcome_in_live: {},
  wrong_environment: {
    schema: z.object({
      keyEnvironment: z
        .enum(["sandbox", "live"])
        .describe("The environment the key's prefix names: `sk_test_` the sandbox, `sk_live_` live."),
      environment: z.enum(["sandbox", "live"]).describe("The environment that answered."),
    }),
    always: true,
    example: { keyEnvironment: "sandbox", environment: "live" },
    message:
      "This API key belongs to another environment: sk_test_… keys are for the sandbox; the live environment takes sk_live_… keys",
  },
  insufficient_scope: {
    schema: z.object({
      needed: z.enum(["orders:write", "orders:read", "books:read"]).describe("The scope the route needs."),
      scopes: z
        .array(z.enum(["orders:write", "orders:read", "books:read"]))
        .describe("The scopes the key holds (every one for a key issued with all scopes)."),
    }),
    always: true,
    example: { needed: "orders:write", scopes: ["books:read"] },
  },
  ip_not_allowed: {
    schema: z.object({
      address: z
        .string()
        .nullable()
        .describe("The request's address as Cloudflare saw it (CF-Connecting-IP); null when the request had none."),
    }),
    always: true,
    example: { address: "203.0.113.9" },
  },
  product_not_found: { schema: Line, always: true, example: { sku: "DEMO-NOPE", index: 0 } },
  order_not_found: {},
  route_not_found: {},
  client_not_found: { schema: z.object({ clientId: z.string() }), always: true, example: { clientId: "acme" } },
  method_not_allowed: {
    schema: z.object({ allow: z.string().describe("The methods the path has, as in the Allow header.") }),
    always: true,
    example: { allow: "GET" },
  },
  order_already_confirmed: {
    schema: z.object({ state: z.string().describe("The order's state now.") }),
    always: true,
    example: { state: "successful" },
  },
  reference_already_used: {
    schema: z.object({ orderId: z.string().describe("The order that has this reference.") }),
    always: true,
    example: { orderId: "ord_0f3c9a6e1b2d4c5f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f" },
  },
  idempotency_conflict: {
    schema: z.object({ idempotencyKey: z.string() }),
    always: true,
    example: { idempotencyKey: "topup-2026-11-22-1" },
  },
  payload_too_large: { schema: z.object({ maxBytes: z.number().int() }), always: true, example: { maxBytes: 65536 } },
  order_expired: {},
  rate_limited: {},
  exchange_not_supported: {
    schema: Line.extend({
      from: z.string().describe("The wallet's currency."),
      to: z.string().describe("The product's currency."),
    }),
    always: true,
    example: { sku: "DEMO-JP-RANGE", index: 0, from: "GBP", to: "JPY" },
  },
  out_of_stock: {
    schema: z.object({
      sku: z.string(),
      quote: z.number(),
      quantity: z.number().int().describe("How many codes the line asked for."),
    }),
    always: true,
    example: { sku: "DEMO-US-SOLDOUT", quote: 10, quantity: 1 },
  },
  server_error: {
    schema: Reason,
    example: { reason: "the wallet did not confirm the posting; retry with the same idempotency key" },
  },
  invalid_parameters: {
    schema: InvalidInput,
    always: true,
    example: { issues: [{ path: "currency", message: 'Invalid option: expected one of "EUR"|"GBP"|"JPY"|"USD"' }] },
  },
  ledger_chain_broken: {
    schema: z.object({ reason: z.string().describe("The first entry that breaks the chain, and how.") }),
    always: true,
    example: { reason: "entries[1]: balanceAfter 100.3 is not 100.1 + 2000.2" },
  },
  wallet_not_empty: {
    schema: z.object({ clientId: z.string(), currency: z.string(), reason: z.string() }),
    always: true,
    example: { clientId: "acme", currency: "USD", reason: "the wallet has 3 entries" },
  },
  adjustment_below_zero: {
    schema: z.object({ balance: z.number().describe("The wallet's balance now.") }),
    always: true,
    example: { balance: 20 },
  },
  api_key_not_found: {
    schema: z.object({ clientId: z.string(), keyId: z.string() }),
    always: true,
    example: { clientId: "acme", keyId: "key_0123456789abcdef" },
  },
  api_key_revoked: {
    schema: z.object({ clientId: z.string(), keyId: z.string() }),
    always: true,
    example: { clientId: "acme", keyId: "key_0123456789abcdef" },
  },
  sku_not_found: { schema: z.object({ sku: z.string() }), always: true, example: { sku: "EU-VOUCHER" } },
  wallet_unknown: {
    schema: z.object({ clientId: z.string(), currency: z.string() }),
    always: true,
    example: { clientId: "acme", currency: "EUR" },
  },
  deal_not_found: {
    schema: z.object({ clientId: z.string(), sku: z.string() }),
    always: true,
    example: { clientId: "acme", sku: "EU-VOUCHER" },
  },
  dead_letter_not_found: { schema: z.object({ id: z.number().int() }), always: true, example: { id: 7 } },
  operator_not_found: {
    schema: z.object({ operatorId: z.string() }),
    always: true,
    example: { operatorId: "opr_5c1f0e2a9b7d4e61" },
  },
  operator_revoked: {
    schema: z.object({ operatorId: z.string() }),
    always: true,
    example: { operatorId: "opr_5c1f0e2a9b7d4e61" },
  },
  posting_request_not_found: { schema: z.object({ id: z.number().int() }), always: true, example: { id: 12 } },
  posting_request_closed: {
    schema: z.object({
      id: z.number().int(),
      status: z.enum(["pending", "approved", "rejected", "failed", "expired"]).describe("The request's state now."),
    }),
    always: true,
    example: { id: 12, status: "expired" },
  },
  decider_not_allowed: {
    schema: z.object({ id: z.number().int(), reason: z.string() }),
    always: true,
    example: { id: 12, reason: "the operator who asked cannot decide it" },
  },
  idempotency_key_posted: {
    schema: z.object({
      idempotencyKey: z.string(),
      entry: z
        .object({ seq: z.number().int(), kind: z.string(), amount: z.number() })
        .describe("The entry the wallet holds under the key (a top-up or adjustment's)."),
    }),
    always: true,
    example: { idempotencyKey: "bank-2026-11-26-0042", entry: { seq: 14, kind: "top_up", amount: 800 } },
  },
  limit_request_not_found: { schema: z.object({ id: z.number().int() }), always: true, example: { id: 3 } },
  export_not_found: { schema: z.object({ id: z.number().int() }), always: true, example: { id: 7 } },
  export_not_finished: {
    schema: z.object({ id: z.number().int(), chunks: z.number().int().describe("The chunks written so far.") }),
    always: true,
    example: { id: 7, chunks: 3 },
  },
  limit_request_closed: {
    schema: z.object({
      id: z.number().int(),
      status: z.enum(["pending", "approved", "rejected", "expired"]).describe("The request's state now."),
    }),
    always: true,
    example: { id: 3, status: "expired" },
  },
  client_exists: { schema: z.object({ clientId: z.string() }), always: true, example: { clientId: "acme" } },
  duplicate_codes: {
    schema: z.object({
      duplicates: z.array(
        z.object({
          pin: z.string(),
          reason: z.enum(["repeated_in_upload", "already_stored"]),
          indexes: z
            .array(z.number().int())
            .describe("0-based positions in the upload (CSV: data row index + 1 is the row after the header)."),
        }),
      ),
    }),
    always: true,
    example: { duplicates: [{ pin: "EU25-0001-AAAA", reason: "already_stored", indexes: [0] }] },
  },
  sku_has_unsold_codes: {
    schema: z.object({
      sku: z.string(),
      changed: z
        .array(z.enum(["currency", "productType", "supplier"]))
        .describe("What the request would change that codes on sale or reserved forbid."),
      unsold: z.number().int().describe("Codes on sale (not reserved, not sold)."),
      reserved: z.number().int().describe("Codes held by orders not yet fulfilled."),
    }),
    always: true,
    example: { sku: "EU-VOUCHER", changed: ["currency"], unsold: 120, reserved: 3 },
  },
  sku_changed: {
    schema: z.object({
      sku: z.string(),
      changed: z
        .array(z.enum(["currency", "productType", "supplier"]))
        .describe("What changed between the upload's check of its codes and its write."),
    }),
    always: true,
    example: { sku: "EU-VOUCHER", changed: ["currency"] },
  },
  dead_letter_already_replayed: { schema: z.object({ id: z.number().int() }), always: true, example: { id: 7 } },
  webhook_endpoint_not_found: {
    schema: z.object({ endpointId: z.string() }),
    always: true,
    example: { endpointId: "we_7d3f9a1c2b4e4d6f8a0b1c2d3e4f5a6b" },
  },
  webhook_endpoint_limit: {
    schema: z.object({ limit: z.number().int() }),
    always: true,
    example: { limit: 10 },
  },
  unsupported_media_type: {
    schema: z.object({ accepted: z.array(z.string()), given: z.string() }),
    always: true,
    example: { accepted: ["application/json", "text/csv"], given: "text/plain" },
  },
};

/** Whether a client should send the same request again: only where the cause can pass. */
export const RETRY: Partial<Record<FailureCode, string>> = {
  rate_limited: "Retry after the Retry-After seconds.",
  server_error: "Retry with backoff; a create or confirm replayed with the same reference or orderId is safe.",
  exchange_not_supported: "Final: do not retry until the operator sets the rate.",
  out_of_stock: "Final for this request: retry only after stock has been added, or with another quote or quantity.",
};

/** The example error body of a code. */
export function errorExample(code: FailureCode): {
  message: string;
  code: FailureCode;
  details?: Record<string, unknown>;
} {
  const doc = ERROR_DETAILS[code];
  return {
    message: doc.message ?? FAILURES[code],
    code,
    ...(doc.example !== undefined ? { details: doc.example } : {}),
  };
}
