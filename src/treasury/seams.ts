/**
 * The treasury's fault seams (see kernel/faults.ts): the writes of dual control, named here as data so that
 * its tests go through each. The seams of an operator's posting call to the wallet, and of the wallet's
 * moves, are the wallet's (src/wallets/seams.ts).
 */
/**
 * Dual control's writes beyond a posting's own (approval-actions.ts, posting-actions.ts, the restore):
 * each between two other I/O calls, each with a test through it in test/treasury/.
 */
export const DUAL_CONTROL_SEAMS = {
  /** The D1 insert that records a posting made alone in its requester's window, if it fits. */
  claim: "wallet.window.claim",
  /** The D1 batch that decides a posting request (approved or rejected) with its audit row. */
  decide: "wallet.approval.decide",
  /** The D1 update that records the entry an approved posting wrote. */
  record: "wallet.approval.record",
  /** The D1 batch that marks a posting the wallet refused for good as failed, with its audit row. */
  failed: "wallet.approval.failed",
  /** The D1 batch that decides a limit request and, approved, sets the limit, with its audit row. */
  limit: "wallet.limit.decide",
  /** The D1 batch that stores a restore request and its export. */
  restoreRequest: "wallet.restore.request",
} as const;
