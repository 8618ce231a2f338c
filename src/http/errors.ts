/**
 * Every error the service answers with. The messages of the order endpoints are part of the client contract
 * and never change; the code is the stable machine-readable name a client should branch on.
 */
export const ERRORS = {
  invalid_request_body: { status: 400, message: "Invalid request body" },
  malformed_json: { status: 400, message: "Request body is not valid JSON" },
  product_list_malformed: { status: 400, message: "Your product list is not formatted well" },
  product_list_too_big: { status: 400, message: "Requested product list is bigger than allowed" },
  quote_mismatch: { status: 400, message: "The entered quote doesn't match the SKU." },
  quote_out_of_range: { status: 400, message: "The entered quote is not in range" },
  insufficient_funds: { status: 400, message: "You have insufficient funds in your wallet to create this order" },
  // Not in the interface: the balance covers this order, but not together with the client's other open
  // orders that hold codes (a client never holds stock it could not pay for).
  balance_held: { status: 400, message: "Your open orders already hold this wallet's balance" },
  // The client API's 400 for an order that names a wallet currency the client has no wallet in: a bad request,
  // not a missing resource. The operator API's 404 for an unknown wallet is wallet_unknown below. Both
  // codes are public and stay as they are.
  wallet_not_found: { status: 400, message: "No wallet in currency" },
  invalid_order_id: { status: 400, message: "Body has no valid orderId" },
  invalid_order_query: { status: 400, message: "Query has no valid orderId" },
  invalid_webhook_url: { status: 400, message: "webhookUrl is not allowed" },
  unauthenticated: { status: 403, message: "Authentication credentials are missing or invalid" },
  // An operator token whose role does not reach the route's (docs/operator-api.md, the role table).
  forbidden: { status: 403, message: "Your role does not allow this" },
  // A key of the other environment (sk_test_ against live, sk_live_ against the sandbox); the message
  // names the environment the key belongs to (docs/sandbox.md).
  wrong_environment: { status: 403, message: "This API key belongs to another environment" },
  // The sandbox's create header (Sandbox-Outcome): a value it does not know, or sent to live.
  invalid_sandbox_outcome: { status: 400, message: "Invalid Sandbox-Outcome header" },
  sandbox_outcome_in_live: { status: 400, message: "The Sandbox-Outcome header is accepted only in the sandbox" },
  product_not_found: { status: 404, message: "One or more product in the sent list are not found." },
  order_not_found: { status: 404, message: "Not Found" },
  route_not_found: { status: 404, message: "Not Found" },
  client_not_found: { status: 404, message: "Client not found" },
  method_not_allowed: { status: 405, message: "Method Not Allowed" },
  order_already_confirmed: { status: 409, message: "Order already confirmed" },
  reference_already_used: { status: 409, message: "Reference already used" },
  idempotency_conflict: { status: 409, message: "Idempotency key already used with another request" },
  payload_too_large: { status: 413, message: "Request body is too large" },
  order_expired: { status: 419, message: "Expired" },
  rate_limited: { status: 429, message: "Too many requests" },
  exchange_not_supported: { status: 500, message: "Your requested exchange is not supported" },
  out_of_stock: { status: 500, message: "Requested item is out of stock" },
  server_error: { status: 500, message: "Server error; try again later" },
  // Operator API and client catalogue.
  invalid_parameters: { status: 400, message: "Invalid path or query parameters" },
  adjustment_below_zero: { status: 400, message: "Adjustment would take the balance below zero" },
  ledger_chain_broken: { status: 400, message: "Ledger entries do not chain" },
  api_key_not_found: { status: 404, message: "API key not found" },
  sku_not_found: { status: 404, message: "SKU not found" },
  // The operator API's 404: /admin/wallets/:clientId/:currency names a wallet that was never opened.
  wallet_unknown: { status: 404, message: "Wallet not found" },
  deal_not_found: { status: 404, message: "Deal not found" },
  dead_letter_not_found: { status: 404, message: "Dead letter not found" },
  operator_not_found: { status: 404, message: "Operator not found" },
  client_exists: { status: 409, message: "Client already exists" },
  duplicate_codes: { status: 409, message: "Duplicate codes" },
  sku_has_unsold_codes: { status: 409, message: "SKU has unsold or reserved codes" },
  sku_changed: { status: 409, message: "SKU changed during the upload" },
  dead_letter_already_replayed: { status: 409, message: "Dead letter already replayed" },
  wallet_not_empty: { status: 409, message: "Wallet already has ledger entries" },
  operator_revoked: { status: 409, message: "Operator is revoked" },
  unsupported_media_type: { status: 415, message: "Unsupported Media Type" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * A failure as plain data, so that it crosses a Durable Object RPC boundary intact (thrown errors lose
 * their fields there).
 */
export interface Failure {
  ok: false;
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export function failure(code: ErrorCode, details?: Record<string, unknown>, message?: string): Failure {
  const spec = ERRORS[code];
  return { ok: false, status: spec.status, code, message: message ?? spec.message, ...(details ? { details } : {}) };
}

/** Thrown inside the Worker to end a request with a failure; the router turns it into the error body. */
export class ApiError extends Error {
  constructor(readonly failure: Failure, readonly headers: Record<string, string> = {}) {
    super(failure.message);
  }
}

export function fail(code: ErrorCode, details?: Record<string, unknown>, message?: string): never {
  throw new ApiError(failure(code, details, message));
}
