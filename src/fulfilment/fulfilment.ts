import type { OrderLine, OrderRecord } from "../orders/order-record";
import { outcomeOf } from "../orders/transitions";
import type { InvoiceStatus } from "../orders/schemas";
import { backoffMs, type IssueOutcome } from "./supplier";

/** A line after one supplier attempt: issued, failed for good, or waiting for its next attempt. */
export function applyOutcome(line: OrderLine, outcome: IssueOutcome, maxAttempts: number): OrderLine {
  const attempts = line.attempts + 1;
  if (outcome.kind === "issued") {
    return {
      ...line,
      attempts,
      status: "fulfilled",
      failureReason: null,
      redeem: {
        pins: outcome.codes.map((code) => code.pin),
        links: outcome.codes.map((code) => code.link),
        currency: line.product.currency,
        value: line.quote,
      },
    };
  }
  if (outcome.kind === "failed" || attempts >= maxAttempts) {
    return { ...line, attempts, status: "failed", failureReason: outcome.reason };
  }
  return { ...line, attempts, failureReason: outcome.reason };
}

/** When a pending line that has been tried `attempts` times may be tried again. */
export function nextAttemptAt(line: OrderLine, now: number): number {
  return line.attempts === 0 ? now : now + backoffMs(line.attempts);
}

/** The invoice status once refunds are known. */
export function invoiceStatusAfter(lines: OrderLine[]): InvoiceStatus {
  const failed = lines.filter((line) => line.status === "failed").length;
  if (failed === 0) return "paid";
  return failed === lines.length ? "refunded" : "partially_refunded";
}

export function finalState(order: OrderRecord) {
  return outcomeOf(order.lines.map((line) => line.status));
}
