/**
 * The fault seams of an order's life: every I/O call the order object makes between two of its writes.
 * Each goes through `io()` (src/kernel/faults.ts) under one of these names; the fault-injection suite
 * (test/crash) has a case for every name here and fails for a name it does not cover.
 */
export const ORDER_SEAMS = {
  /** create: reserve inventory codes in D1. */
  reserveCodes: "order.reserve-codes",
  /** create: read the wallet's balance (an order that reserves no codes). */
  walletBalance: "order.wallet-balance",
  /** create: hold the order's amount and codes before reserving them (an order that reserves codes). */
  walletHold: "order.wallet-hold",
  /** a create refused after its hold (out of stock, or a retry with another body), and expiry of no order: let go of it. */
  walletRelease: "order.wallet-release",
  /** any write that changes the order's timers: set or delete the alarm. */
  setAlarm: "order.set-alarm",
  /** confirm: post the charge to the wallet. */
  walletCharge: "order.wallet-charge",
  /** settle: ask the wallet whether a cut-off confirm's charge landed. */
  chargeLookup: "order.wallet-charge-lookup",
  /** processing: one supplier call per line, per supplier kind. */
  supplierInventory: "order.supplier-inventory",
  supplierSandbox: "order.supplier-sandbox",
  supplierUpstream: "order.supplier-upstream",
  /** processing: credit back a failed line. */
  walletRefund: "order.wallet-refund",
  /** expiry, a refused create and the end of processing: give back codes the order still holds. */
  releaseCodes: "order.release-codes",
  /** expiry: void the order in the wallet, for good. */
  walletVoid: "order.wallet-void",
  /**
   * any wallet call that meets a moved wallet: deliver the transfer it answers with (its move, or a credit
   * it passed on) to its successor before going on there.
   */
  walletMoveIn: "order.wallet-move-in",
  /** outbox: hand stored webhook events to the queue. */
  queueSend: "order.queue-send",
  /** index: write the order's row to its client's books, its shard (after the answer, from the `index` timer). */
  booksWrite: "order.books-write",
  /** timers: record or clear a failing timer in D1 for the operator. */
  timerReport: "order.timer-report",
} as const;

export type OrderSeam = (typeof ORDER_SEAMS)[keyof typeof ORDER_SEAMS];

export function supplierSeam(kind: "inventory" | "sandbox" | "upstream"): OrderSeam {
  return kind === "inventory"
    ? ORDER_SEAMS.supplierInventory
    : kind === "sandbox"
      ? ORDER_SEAMS.supplierSandbox
      : ORDER_SEAMS.supplierUpstream;
}
