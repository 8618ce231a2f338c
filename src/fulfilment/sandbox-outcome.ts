/**
 * Sandbox-Outcome (the sandbox's create header): lines whose outcome the create scripted end that way,
 * whatever their SKU's supplier, so that an integration can meet a failed, partial or slow order at will.
 * A failed line fails at once (and is refunded like any failed line; an inventory line's reserved codes go
 * back on sale with the end of processing), a slow one is "not yet" for its first SLOW_ATTEMPTS attempts
 * (the order stays `processing`, retried after 1 s and 2 s) and then issued. An issued line of an inventory
 * SKU sells the codes its order reserved, as in live, so that the stock moves and the codes table holds
 * what the redeem shows (the reconciliation checks it as any other: docs/sandbox.md); any other issued line
 * gets sandbox codes (derived from the line, the same on every retry) and no outside supplier is called.
 * Each answer depends only on the line, the attempt and the order's own codes, so a retried or crashed
 * processing run gets the same answers.
 */
import type { SupplierKind } from "../catalogue/catalogue-schemas";
import { sandboxSupplier } from "./sandbox-supplier";
import type { IssueOutcome, IssueRequest, Supplier } from "./supplier";

/** Attempts a slow line answers "not yet" (an unknown outcome, asked again) to before it is issued. */
export const SLOW_ATTEMPTS = 2;

/** Sandbox codes, even for a SKU whose own sandbox config says fail. */
const sandboxCodes: Supplier = {
  issue: (request) =>
    sandboxSupplier.issue({
      ...request,
      line: { ...request.line, product: { ...request.line.product, supplierConfig: {} } },
    }),
};

function scripted(request: IssueRequest, issuer: Supplier): Promise<IssueOutcome> {
  const { line } = request;
  if (line.sandboxOutcome === "fail")
    return Promise.resolve({ kind: "failed", reason: "Sandbox-Outcome: this line was set to fail" });
  if (line.sandboxOutcome === "slow" && request.attempt <= SLOW_ATTEMPTS) {
    return Promise.resolve({ kind: "unknown", reason: "Sandbox-Outcome slow: the supplier has not answered yet" });
  }
  return issuer.issue(request);
}

/**
 * `supplier` (of `kind`), with the lines a Sandbox-Outcome scripted answered by their script instead: issued
 * by the inventory's own supplier for an inventory SKU, with sandbox codes for any other.
 */
export function withScriptedOutcomes(supplier: Supplier, kind: SupplierKind): Supplier {
  const issuer = kind === "inventory" ? supplier : sandboxCodes;
  return {
    issue: (request) =>
      request.line.sandboxOutcome === undefined ? supplier.issue(request) : scripted(request, issuer),
  };
}
