/**
 * The HTTP side of the service's failures: the status each code is answered with (the codes, their
 * messages and the Refusal that carries one are the domain's, src/kernel/failures.ts). The statuses of the
 * order endpoints are part of the client contract and never change. Only the http layer, the routes files
 * and the composition root import this file (scripts/check-imports.mjs): a store or an action refuses
 * with the kernel's `fail()` and knows no status.
 */
import { FAILURES, Refusal, failure, type Failure, type FailureCode } from "../kernel/failures";

export { failure, type Failure };
export type ErrorCode = FailureCode;

/** The status of each code's answer; a code without one is a compile error. */
export const HTTP_STATUS = {
  invalid_request_body: 400,
  malformed_json: 400,
  product_list_malformed: 400,
  product_list_too_big: 400,
  quote_mismatch: 400,
  quote_out_of_range: 400,
  insufficient_funds: 400,
  balance_held: 400,
  held_codes_limit: 400,
  open_orders_limit: 400,
  // 400 rather than 404: the client named a wallet it has none in (the operator's wallet_unknown is the 404).
  wallet_not_found: 400,
  invalid_order_id: 400,
  invalid_order_query: 400,
  invalid_webhook_url: 400,
  unauthenticated: 403,
  // An operator token whose role does not reach the route's (docs/operator-api.md, the role table).
  forbidden: 403,
  wrong_environment: 403,
  insufficient_scope: 403,
  ip_not_allowed: 403,
  invalid_sandbox_outcome: 400,
  sandbox_outcome_in_live: 400,
  product_not_found: 404,
  order_not_found: 404,
  route_not_found: 404,
  client_not_found: 404,
  method_not_allowed: 405,
  order_already_confirmed: 409,
  reference_already_used: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  order_expired: 419,
  rate_limited: 429,
  // The interface answers these two with 500 although the service is not at fault: kept for the contract.
  exchange_not_supported: 500,
  out_of_stock: 500,
  server_error: 500,
  invalid_parameters: 400,
  adjustment_below_zero: 400,
  ledger_chain_broken: 400,
  api_key_not_found: 404,
  sku_not_found: 404,
  wallet_unknown: 404,
  webhook_endpoint_not_found: 404,
  webhook_endpoint_limit: 409,
  deal_not_found: 404,
  dead_letter_not_found: 404,
  operator_not_found: 404,
  client_exists: 409,
  duplicate_codes: 409,
  sku_has_unsold_codes: 409,
  sku_changed: 409,
  dead_letter_already_replayed: 409,
  wallet_not_empty: 409,
  posting_request_not_found: 404,
  posting_request_closed: 409,
  decider_not_allowed: 403,
  idempotency_key_posted: 409,
  limit_request_not_found: 404,
  limit_request_closed: 409,
  operator_revoked: 409,
  api_key_revoked: 409,
  unsupported_media_type: 415,
  export_not_found: 404,
  export_not_finished: 409,
} as const satisfies Record<FailureCode, number>;

/** Each code with its status and message, as the document and the error bodies show them. */
export const ERRORS = Object.fromEntries(
  (Object.keys(FAILURES) as FailureCode[]).map((code) => [
    code,
    { status: HTTP_STATUS[code], message: FAILURES[code] },
  ]),
) as { [Code in FailureCode]: { status: (typeof HTTP_STATUS)[Code]; message: (typeof FAILURES)[Code] } };

/** A refusal that also sets headers on its answer (429's Retry-After): the http layer's own. */
export class RefusalWithHeaders extends Refusal {
  constructor(
    failure: Failure,
    readonly headers: Record<string, string>,
  ) {
    super(failure);
  }
}
