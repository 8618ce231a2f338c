/**
 * The pure rules of processing an order: a line after a supplier attempt, when a pending line is tried
 * again, the invoice status after refunds and the end state. The order object (order-object.ts) drives them.
 */
import type { IssueOutcome } from "../fulfilment/supplier";
import { cappedBackoff } from "../kernel/backoff";
import type { OrderLine, OrderRecord } from "./order-record";
import type { InvoiceStatus } from "./view-schemas";
import { outcomeOf } from "./transitions";

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

/**
 * Delay before attempt `attempt + 1` after `attempt` failed: 1 s, 2 s, 4 s … capped at a minute. No
 * jitter: each order has its own alarm, so retries of different orders don't move in lockstep anyway.
 */
export function backoffMs(attempt: number): number {
  return cappedBackoff(attempt, 1000, 60_000);
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
