/**
 * Moving a wallet to another region, and finding a wallet that moved. A Durable Object stays where it was
 * first created, so a wallet moves by becoming another object (its next generation, wallet-registry-store.ts):
 *
 * 1. the registry row records the move under way (`moving_to`, set with the client's region);
 * 2. the old object moves out in one step: it is marked moved, and its whole balance and its open
 *    orders' holds leave it as a `move_out` entry under the move's key (postings.ts, moveOut);
 * 3. the new object takes them in as a `move_in` entry under the same key (moveIn);
 * 4. the registry row points at the new object.
 *
 * Each step is idempotent, so a move cut off anywhere is finished by the next request, and between 2 and
 * 3 the money is in transit, recorded by the old wallet's `move_out`: whoever meets the moved wallet (an
 * order's charge, hold or void, an operator posting, a balance read) is answered `wallet_moved` with the
 * transfer, delivers it (a replay changes nothing) and goes on at the successor. A moved wallet still
 * takes the credits of orders it charged (refunds, a void's credit-back) and passes each on at once as a
 * transfer of its own, which its caller delivers the same way.
 */
import { toAmountNumber } from "../pricing/money";
import { moveKey } from "./ledger-keys";
import {
  isWalletMoved,
  type MoveInResult,
  type OrderVoid,
  type Placement,
  type Posting,
  type PostingResult,
  type Transfer,
  type WalletMoved,
} from "./postings";
import type { FundsResult, WalletObject } from "./wallet-object";
import {
  finishMove,
  historyOf,
  movingWallets,
  placedWallet,
  placementOf,
  walletCurrencies,
  type RegisteredWallet,
} from "./wallet-registry-store";

/** A chain of moves longer than this is a bug (a wallet would have to move this often between two calls). */
const MAX_HOPS = 16;

/**
 * How a caller runs each wallet call of a walk: through its fault seams (kernel/faults.ts), one for the
 * calls themselves and one for delivering transfers.
 */
export type Through = <T>(step: "call" | "move-in", run: () => Promise<T>) => Promise<T>;
const direct: Through = (_step, run) => run();

/** Delivers a transfer to its wallet, and on along the chain while the receiver passes it on. */
export async function deliverTransfer(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  currency: string,
  transfer: Transfer,
  through: Through = direct,
): Promise<void> {
  let next: Transfer | null = transfer;
  for (let hops = 0; next !== null; hops += 1) {
    if (hops > MAX_HOPS)
      throw new Error(`wallet ${clientId}/${currency}: transfer ${transfer.key} passed on more than ${MAX_HOPS} times`);
    const sent: Transfer = next;
    const taken = (await through(
      "move-in",
      async () =>
        (await placedWallet(env, clientId, currency, sent.to).moveIn(
          sent,
          `moved from ${clientId}/${currency}`,
        )) as MoveInResult,
    )) as MoveInResult;
    if (!taken.ok) throw new Error(`wallet ${clientId}/${currency}: transfer ${sent.key} refused (${taken.code})`);
    next = taken.forward;
  }
}

/** A call to a client's wallet in a currency, from its object at `start`, through a seam (`through`). */
export interface WalletCall {
  clientId: string;
  currency: string;
  start: Placement;
  call: (wallet: DurableObjectStub<WalletObject>) => Promise<unknown>;
  through?: Through;
}

/**
 * Calls the wallet at `start` and, while it answers that it moved, delivers its transfer and calls its
 * successor instead. Answers the first other answer, and the placement and stub of the wallet that gave it.
 */
export async function atWallet<T>(
  env: Pick<Env, "WALLETS">,
  { clientId, currency, start, call, through = direct }: WalletCall,
): Promise<{ answer: Exclude<T, WalletMoved>; placement: Placement; wallet: DurableObjectStub<WalletObject> }> {
  let placement = start;
  for (let hops = 0; ; hops += 1) {
    const wallet = placedWallet(env, clientId, currency, placement);
    const answer = (await through("call", () => call(wallet))) as T;
    if (!isWalletMoved(answer)) return { answer: answer as Exclude<T, WalletMoved>, placement, wallet };
    if (hops >= MAX_HOPS) throw new Error(`wallet ${clientId}/${currency}: moved more than ${MAX_HOPS} times`);
    await deliverTransfer(env, clientId, currency, answer.transfer, through);
    placement = answer.transfer.to;
  }
}

/** The wallet's balance where its money is: at its current object, or the one a move under way took it to. */
export async function currentBalance(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  wallet: RegisteredWallet,
  through: Through = direct,
): Promise<string> {
  const { answer } = await atWallet<FundsResult>(env, {
    clientId,
    currency: wallet.currency,
    start: placementOf(wallet),
    call: (stub) => stub.funds(),
    through,
  });
  return answer.balance;
}

/** The client's wallets (the D1 registry) with their balances (each wallet object), by currency. */
export async function walletBalances(
  env: Pick<Env, "DB" | "WALLETS">,
  clientId: string,
): Promise<{ currency: string; balance: number; lowBalanceThreshold?: string }[]> {
  return Promise.all(
    (await walletCurrencies(env.DB, clientId)).map(async (wallet) => {
      const { answer } = await atWallet<FundsResult>(env, {
        clientId,
        currency: wallet.currency,
        start: placementOf(wallet),
        call: (stub) => stub.funds(),
      });
      const alert = answer.lowBalanceThreshold === undefined ? {} : { lowBalanceThreshold: answer.lowBalanceThreshold };
      return { currency: wallet.currency, balance: toAmountNumber(answer.balance), ...alert };
    }),
  );
}

/** The first object of the wallet's history: where a posting's key may have been used first. */
export function firstPlacement(wallet: RegisteredWallet): Placement {
  return historyOf(wallet)[0]!;
}

/** What one wallet's move did: from which object to which, and the balance it carried. */
export interface WalletMove {
  currency: string;
  from: Placement;
  to: Placement;
  amount: string;
}

/** The seams a move's steps go through (wallets/seams.ts), handed in by the caller. */
export interface MoveSeams {
  moveOut: Through;
  moveIn: Through;
  register: Through;
}

/**
 * Finishes every move under way of the client's wallets (registry rows with `moving_to`): moves each
 * wallet out of its object, delivers everything it transferred to its successor (the move, and any
 * credit it passed on since), and points the registry at the successor. Safe to run again at any point.
 */
export async function finishMoves(
  env: Pick<Env, "DB" | "WALLETS">,
  clientId: string,
  seams: MoveSeams,
): Promise<WalletMove[]> {
  const moves: WalletMove[] = [];
  for (const wallet of await movingWallets(env.DB, clientId)) {
    const from = placementOf(wallet);
    const to: Placement = { generation: wallet.generation + 1, region: wallet.movingTo };
    const key = moveKey(clientId, wallet.currency, to.generation);
    const reason = `moved to ${wallet.movingTo}`;
    const old = placedWallet(env, clientId, wallet.currency, from);
    const sent = (await seams.moveOut("call", () => old.moveOut({ key, to, reason }))) as Transfer[];
    for (const transfer of sent) await deliverTransfer(env, clientId, wallet.currency, transfer, seams.moveIn);
    await seams.register("call", () => finishMove(env.DB, clientId, wallet.currency, wallet.generation));
    moves.push({ currency: wallet.currency, from, to, amount: sent[0]!.amount });
  }
  return moves;
}

/**
 * Posts an order's credit (a refund) to the wallet that holds its charge and, if that wallet has moved and
 * passed the credit on, delivers it to the successor. Answers the posting's result.
 */
export async function postCredit(
  env: Pick<Env, "WALLETS">,
  {
    clientId,
    currency,
    at,
    posting,
    through = direct,
  }: Omit<WalletCall, "start" | "call"> & {
    at: Placement;
    posting: Posting;
  },
): Promise<PostingResult> {
  const { answer } = await atWallet<PostingResult>(env, {
    clientId,
    currency,
    start: at,
    call: (wallet) => wallet.post(posting),
    through,
  });
  if (answer.ok && answer.forward) await deliverTransfer(env, clientId, currency, answer.forward, through);
  return answer;
}

/**
 * Voids an order in the wallet it was created or charged against and in every wallet that wallet moved to
 * since (a charge that met the move went on to the successor), delivering any credit-back a moved wallet
 * passed on. Each void is idempotent, so a walk cut off anywhere is simply walked again.
 */
export async function voidOrderAlong(
  env: Pick<Env, "WALLETS">,
  {
    clientId,
    currency,
    start,
    orderId,
    reason,
    through = direct,
  }: Omit<WalletCall, "call"> & {
    orderId: string;
    reason: string;
  },
): Promise<void> {
  let at: Placement | null = start;
  for (let hops = 0; at !== null; hops += 1) {
    if (hops > MAX_HOPS) throw new Error(`wallet ${clientId}/${currency}: moved more than ${MAX_HOPS} times`);
    const wallet = placedWallet(env, clientId, currency, at);
    const voided = (await through(
      "call",
      async () => (await wallet.voidOrder(orderId, reason)) as OrderVoid,
    )) as OrderVoid;
    if (voided.forward) await deliverTransfer(env, clientId, currency, voided.forward, through);
    at = voided.successor ?? null;
  }
}
