/**
 * What a supplier reads of an order line: structurally a part of the order's line (src/orders/order-record.ts),
 * declared here so that suppliers know nothing of orders.
 */
export interface SupplierLine {
  sku: string;
  /** The face value of one code, a decimal string in the product's currency. */
  quote: string;
  quantity: number;
  product: { currency: string; supplierConfig: Record<string, unknown> };
  /** Set in the sandbox by the create header Sandbox-Outcome: how this line ends, whatever its supplier. */
  sandboxOutcome?: ScriptedOutcome;
}

/** A line's outcome as Sandbox-Outcome scripts it: issued, failed, or issued after a wait (src/fulfilment/sandbox-outcome.ts). */
export type ScriptedOutcome = "issue" | "fail" | "slow";

/** What one line asks of its supplier. The same request may be made again after a crash or a retry. */
export interface IssueRequest {
  orderId: string;
  /** Stable per order line: a supplier that sees it twice must hand out the same codes. */
  idempotencyKey: string;
  line: SupplierLine;
  attempt: number;
}

export interface IssuedCode {
  pin: string;
  link: string;
}

/**
 * What one attempt tells about the line (the upstream contract: docs/fulfilment.md). Only `issued` and
 * `failed` are answers; `unknown` means codes may have been issued or be on their way, so the line is
 * asked again with the same idempotency key and never refunded on it.
 */
export type IssueOutcome =
  | { kind: "issued"; codes: IssuedCode[] }
  /**
   * No answer that settles the line (a timeout, "in progress", 5xx, an unreadable body): ask again.
   * `needsOperator`: asking again cannot help until a person acts (the supplier refuses the service's
   * credentials), so the line is on the operator's stuck list at once rather than after its budget.
   */
  | { kind: "unknown"; reason: string; needsOperator?: true }
  /** Nothing was issued for this line, and nothing will be: the line fails now and is refunded. */
  | { kind: "failed"; reason: string };

export interface Supplier {
  issue(request: IssueRequest): Promise<IssueOutcome>;
}

export function lineIdempotencyKey(orderId: string, sku: string): string {
  return `${orderId}:${sku}`;
}
