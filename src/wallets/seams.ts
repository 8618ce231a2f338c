/**
 * The wallet domain's fault seams (see kernel/faults.ts): every I/O call of the operator's wallet postings
 * and of moving a client's wallets, named here as data so that the fault-injection suite can check it has
 * a case for each.
 */
export const WALLET_SEAMS = {
  /** The RPC call that posts a top-up or an adjustment to the wallet object. */
  operatorPost: "wallet.operator.post",
  /** The D1 insert of the audit row for the entry the wallet wrote. */
  operatorAudit: "wallet.operator.audit",
  /** The RPC call that reads the balance to answer the operator. */
  operatorBalance: "wallet.operator.balance",
} as const;

/** The wallet's events (wallet-events.ts): its alarm's hand-over of waiting events to the client's books. */
export const WALLET_EVENT_SEAMS = {
  hand: "wallet.events.hand",
} as const;

/** The steps of moving a client's wallets to another region (wallet-moves.ts). */
export const WALLET_MOVE_SEAMS = {
  /** The D1 batch that sets the client's region, records the moves under way and the audit row. */
  start: "wallet.move.start",
  /** The RPC call that moves the old wallet out (marks it moved, its balance and holds a transfer). */
  moveOut: "wallet.move.out",
  /** Each RPC call that delivers a transfer to the wallet it is for (an operator's walk included). */
  moveIn: "wallet.move.in",
  /** The D1 update that points the registry at the new wallet. */
  register: "wallet.move.register",
} as const;

export type WalletSeam =
  (typeof WALLET_SEAMS)[keyof typeof WALLET_SEAMS] | (typeof WALLET_MOVE_SEAMS)[keyof typeof WALLET_MOVE_SEAMS];

/** The seams an operator's top-up or adjustment passes. */
export const OPERATOR_POSTING_SEAMS: readonly WalletSeam[] = Object.values(WALLET_SEAMS);

export const ALL_WALLET_SEAMS: readonly WalletSeam[] = [...OPERATOR_POSTING_SEAMS, ...Object.values(WALLET_MOVE_SEAMS)];
