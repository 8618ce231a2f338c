/**
 * Sandbox-Outcome (the sandbox's create header): lines whose outcome the create scripted end that way,
 * whatever their SKU's supplier, so that an integration can meet a failed, partial or slow order at will.
 * No outside supplier is called for such a line: an issued line gets sandbox codes (derived from the line,
 * the same on every retry), a failed one fails at once (and is refunded like any failed line), a slow one
 * is "not yet" for its first SLOW_ATTEMPTS attempts (the order stays `processing`, retried after 1 s and
 * 2 s) and then issued. Each answer depends only on the line and the attempt, so a retried or crashed
 * processing run gets the same answers.
 */
import { sandboxSupplier } from "./sandbox-supplier";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/** Attempts a slow line answers "not yet" (an unknown outcome, asked again) to before it is issued. */
export const SLOW_ATTEMPTS = 2;

function scripted(request: IssueRequest): Promise<IssueOutcome> {
  const { line } = request;
  if (line.sandboxOutcome === "fail")
    return Promise.resolve({ kind: "failed", reason: "Sandbox-Outcome: this line was set to fail" });
  if (line.sandboxOutcome === "slow" && request.attempt <= SLOW_ATTEMPTS) {
    return Promise.resolve({ kind: "unknown", reason: "Sandbox-Outcome slow: the supplier has not answered yet" });
  }
  // Issued: sandbox codes, even for a SKU whose own sandbox config says fail.
  return sandboxSupplier.issue({ ...request, line: { ...line, product: { ...line.product, supplierConfig: {} } } });
}

/** `supplier`, with the lines a Sandbox-Outcome scripted answered by their script instead. */
export function withScriptedOutcomes(supplier: Supplier): Supplier {
  return {
    issue: (request) => (request.line.sandboxOutcome === undefined ? supplier.issue(request) : scripted(request)),
  };
}
