/**
 * The wallet domain's fault seams (see kernel/faults.ts): every I/O call of the operator's wallet postings,
 * named here as data so that the fault-injection suite can check it has a case for each.
 */
export const WALLET_SEAMS = {
  /** The RPC call that posts a top-up or an adjustment to the wallet object. */
  operatorPost: "wallet.operator.post",
  /** The D1 insert of the audit row for the entry the wallet wrote. */
  operatorAudit: "wallet.operator.audit",
  /** The RPC call that reads the balance to answer the operator. */
  operatorBalance: "wallet.operator.balance",
} as const;

export type WalletSeam = (typeof WALLET_SEAMS)[keyof typeof WALLET_SEAMS];

export const ALL_WALLET_SEAMS: readonly WalletSeam[] = Object.values(WALLET_SEAMS);
