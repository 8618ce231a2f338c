/**
 * The sandbox helpers' fault seams (see kernel/faults.ts): every I/O call of a self-serve top-up, named
 * here as data so that the fault-injection suite can check it has a case for each. Expire-now runs the
 * order's own expiry, whose seams are the order's (src/orders/seams.ts).
 */
export const SANDBOX_SEAMS = {
  /** The D1 insert that registers the wallet if it is new. */
  topUpOpenWallet: "sandbox.top-up.open-wallet",
  /** The RPC call that posts the top-up to the wallet object. */
  topUpPost: "sandbox.top-up.post",
  /** The RPC call that reads the balance for the answer. */
  topUpBalance: "sandbox.top-up.balance",
} as const;

export type SandboxSeam = (typeof SANDBOX_SEAMS)[keyof typeof SANDBOX_SEAMS];

export const ALL_SANDBOX_SEAMS: readonly SandboxSeam[] = Object.values(SANDBOX_SEAMS);
