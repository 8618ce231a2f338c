/**
 * Every failure the service can answer with, in the domain's words: a stable machine-readable code and its
 * message. The messages of the order endpoints are part of the client contract and never change; the
 * code is what a client should branch on. Pure rules return these as plain data; stores and actions refuse
 * with `fail()`, which throws a Refusal. Which HTTP status a code is answered with is the http layer's
 * business (src/http/errors.ts, mapped once by the router), so nothing here knows HTTP. What each code's
 * details hold, an example and the retry advice are beside this file (failure-details.ts), loaded only by
 * the API document: they are zod shapes, which start-up does not evaluate.
 */
export const FAILURES = {
  invalid_request_body: "Invalid request body",
  malformed_json: "Request body is not valid JSON",
  product_list_malformed: "Your product list is not formatted well",
  product_list_too_big: "Requested product list is bigger than allowed",
  quote_mismatch: "The entered quote doesn't match the SKU.",
  quote_out_of_range: "The entered quote is not in range",
  insufficient_funds: "You have insufficient funds in your wallet to create this order",
  // Not in the interface: the balance covers this order, but not together with the client's other open
  // orders that hold codes (a client never holds stock it could not pay for).
  balance_held: "Your open orders already hold this wallet's balance",
  // Not in the interface: the client's open orders already hold as many codes as the operator allows one
  // wallet's open orders to hold (MAX_HELD_CODES), whatever they cost (an order free under a deal counts).
  held_codes_limit: "Your open orders already hold as many codes as allowed",
  // Not in the interface: the client already has as many open (created, unconfirmed) orders in this wallet
  // as it may hold at once (MAX_OPEN_ORDERS, halved while its orders keep expiring unconfirmed).
  open_orders_limit: "You have as many open orders as allowed: confirm one or let it expire",
  // The client API's failure for an order that names a wallet currency the client has no wallet in: a bad
  // request, not a missing resource. The operator API's unknown wallet is wallet_unknown below. Both codes
  // are public and stay as they are.
  wallet_not_found: "No wallet in currency",
  invalid_order_id: "Body has no valid orderId",
  invalid_order_query: "Query has no valid orderId",
  invalid_webhook_url: "webhookUrl is not allowed",
  unauthenticated: "Authentication credentials are missing or invalid",
  forbidden: "Your role does not allow this",
  // A key of the other environment (sk_test_ against live, sk_live_ against the sandbox); the message
  // names the environment the key belongs to (docs/sandbox.md).
  wrong_environment: "This API key belongs to another environment",
  // A key without the scope the route needs, or used from outside its IP allow-list (docs/api.md, Keys and scopes).
  insufficient_scope: "This API key does not have the scope this route needs",
  ip_not_allowed: "This API key may not be used from this address",
  // The sandbox's create header (Sandbox-Outcome): a value it does not know, or sent to live.
  invalid_sandbox_outcome: "Invalid Sandbox-Outcome header",
  sandbox_outcome_in_live: "The Sandbox-Outcome header is accepted only in the sandbox",
  product_not_found: "One or more product in the sent list are not found.",
  order_not_found: "Not Found",
  route_not_found: "Not Found",
  client_not_found: "Client not found",
  method_not_allowed: "Method Not Allowed",
  order_already_confirmed: "Order already confirmed",
  reference_already_used: "Reference already used",
  idempotency_conflict: "Idempotency key already used with another request",
  payload_too_large: "Request body is too large",
  order_expired: "Expired",
  rate_limited: "Too many requests",
  exchange_not_supported: "Your requested exchange is not supported",
  out_of_stock: "Requested item is out of stock",
  server_error: "Server error; try again later",
  // Operator API and client catalogue.
  invalid_parameters: "Invalid path or query parameters",
  adjustment_below_zero: "Adjustment would take the balance below zero",
  ledger_chain_broken: "Ledger entries do not chain",
  api_key_not_found: "API key not found",
  sku_not_found: "SKU not found",
  // The operator API's unknown wallet: /admin/wallets/:clientId/:currency names a wallet never opened.
  wallet_unknown: "Wallet not found",
  deal_not_found: "Deal not found",
  dead_letter_not_found: "Dead letter not found",
  operator_not_found: "Operator not found",
  client_exists: "Client already exists",
  duplicate_codes: "Duplicate codes",
  sku_has_unsold_codes: "SKU has unsold or reserved codes",
  sku_changed: "SKU changed during the upload",
  dead_letter_already_replayed: "Dead letter already replayed",
  wallet_not_empty: "Wallet already has ledger entries",
  operator_revoked: "Operator is revoked",
  api_key_revoked: "API key is revoked",
  // Dual control (docs/operator-api.md): a posting request, and who may decide it.
  posting_request_not_found: "Posting request not found",
  posting_request_closed: "Posting request is no longer open",
  decider_not_allowed: "This caller may not decide this request",
  // A posting request under an idempotency key the wallet already holds an entry for (posted alone before,
  // or restored): approving it would approve what was never approved.
  idempotency_key_posted: "Idempotency key already names a posting in this wallet",
  // A limit request (raising or removing a currency's approval limit) and who may decide it.
  limit_request_not_found: "Limit request not found",
  limit_request_closed: "Limit request is no longer open",
  unsupported_media_type: "Unsupported Media Type",
  // An export across clients (a background job writing its CSV in chunks) and its file.
  export_not_found: "Export not found",
  export_not_finished: "Export is not finished yet",
  // Account webhook endpoints (docs/api.md, "Account webhooks"): another client's is not found either.
  webhook_endpoint_not_found: "Webhook endpoint not found",
  webhook_endpoint_limit: "You have as many webhook endpoints as allowed",
} as const satisfies Record<string, string>;

export type FailureCode = keyof typeof FAILURES;

/**
 * A failure as plain data, so that it crosses a Durable Object RPC boundary intact (thrown errors lose
 * their fields there). It carries no HTTP status: the edge maps `code` to one.
 */
export interface Failure {
  ok: false;
  code: FailureCode;
  message: string;
  details?: Record<string, unknown>;
}

export function failure(code: FailureCode, details?: Record<string, unknown>, message?: string): Failure {
  return { ok: false, code, message: message ?? FAILURES[code], ...(details ? { details } : {}) };
}

/**
 * A refusal: the domain declines a request, for the reason its failure names. Thrown by stores, actions and
 * routes alike; the router answers it with the code's status and the error body, the console with the form
 * field and words its one table of refusals gives. Anything else thrown is a 500.
 */
export class Refusal extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

/** Refuse with `code`: throws a Refusal carrying the code, its details and its message. */
export function fail(code: FailureCode, details?: Record<string, unknown>, message?: string): never {
  throw new Refusal(failure(code, details, message));
}
