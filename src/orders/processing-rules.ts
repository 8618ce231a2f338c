/**
 * The pure rules of processing an order: a line after a supplier attempt, when a pending line is tried
 * again, the invoice status after refunds and the end state. The processing flow (processing-flow.ts) drives them.
 */
import type { IssueOutcome } from "../fulfilment/supplier";
import { cappedBackoff } from "../kernel/backoff";
import type { OrderLine, OrderRecord } from "./order-record";
import type { InvoiceStatus } from "./order-view-schemas";
import { outcomeOf } from "./transitions";

/**
 * A line after one supplier attempt at `now`: issued, failed for good (the supplier said nothing was
 * issued), or pending with its outcome unknown since the first attempt that left it so. An unknown
 * outcome never fails a line, however long it lasts: the codes may exist (docs/fulfilment.md).
 */
export function applyOutcome(line: OrderLine, outcome: IssueOutcome, now: number): OrderLine {
  const attempts = line.attempts + 1;
  // A settled line carries no unknownSince (nor does one that was never unknown), nor needsOperator.
  const { unknownSince, needsOperator: _needed, ...settled } = line;
  if (outcome.kind === "issued") {
    return {
      ...settled,
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
  if (outcome.kind === "failed") return { ...settled, attempts, status: "failed", failureReason: outcome.reason };
  return {
    ...settled,
    attempts,
    failureReason: outcome.reason,
    unknownSince: unknownSince ?? now,
    ...(outcome.needsOperator ? { needsOperator: true as const } : {}),
  };
}

/**
 * Delay before attempt `attempt + 1` after `attempt` left the line unknown: 1 s, 2 s, 4 s … capped at
 * 5 minutes, the same after the budget ran out (the line keeps being asked until an answer settles it).
 * No jitter: each order has its own alarm, so retries of different orders don't move in lockstep anyway.
 */
export function backoffMs(attempt: number): number {
  return cappedBackoff(attempt, 1000, UNKNOWN_RETRY_CAP_MS);
}

export const UNKNOWN_RETRY_CAP_MS = 5 * 60_000;

/** When a pending line that has been tried `attempts` times may be tried again. */
export function nextAttemptAt(line: OrderLine, now: number): number {
  return line.attempts === 0 ? now : now + backoffMs(line.attempts);
}

/** The default of UPSTREAM_UNKNOWN_BUDGET_SECONDS: six hours. */
export const DEFAULT_UNKNOWN_BUDGET_SECONDS = 6 * 3600;

/**
 * The var UPSTREAM_UNKNOWN_BUDGET_SECONDS in ms. A value that is not a number ≥ 0 counts as the default,
 * so that a typo cannot keep a stuck line off the operator's list.
 */
export function unknownBudgetMs(value: string | undefined): number {
  const seconds = value === undefined || value.trim() === "" ? NaN : Number(value);
  return (Number.isFinite(seconds) && seconds >= 0 ? seconds : DEFAULT_UNKNOWN_BUDGET_SECONDS) * 1000;
}

/**
 * The pending lines whose outcome has been unknown for `budgetMs` or more at `now`, or whose last answer
 * needs a person (refused credentials), longest first: the operator's stuck list shows them (the order
 * keeps asking meanwhile, and stays `processing`).
 */
export function linesPastBudget(lines: readonly OrderLine[], budgetMs: number, now: number): OrderLine[] {
  return lines
    .filter(
      (line) =>
        line.status === "pending" &&
        typeof line.unknownSince === "number" &&
        (now - line.unknownSince >= budgetMs || line.needsOperator === true),
    )
    .sort((a, b) => a.unknownSince! - b.unknownSince!);
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
