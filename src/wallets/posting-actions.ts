/**
 * What an operator does to a wallet, whichever way they asked (the /admin routes in wallet-admin-routes.ts,
 * or the console's wallet page): a top-up, an adjustment, the balance, a page of the ledger. Each change
 * is audited under the actor it is given, once per ledger entry. A wallet moved to another region
 * (wallet-moves.ts) is followed: postings walk from its first object, the balance is read where its money
 * is, and the ledger is its whole history, each entry with the wallet object it is in.
 */
import { auditLedgerEntryOnce } from "../audit/audit-store";
import { fail } from "../kernel/failures";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { Money, toAmountNumber } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";
import { adjustmentKey, topUpKey } from "./ledger-keys";
import { WALLET_MOVE_SEAMS, WALLET_SEAMS } from "./seams";
import { atWallet, currentBalance, firstPlacement, type Through } from "./wallet-moves";
import type { Placement, Posting, PostingResult, WalletObject } from "./wallet-object";
import {
  findWallet,
  historyOf,
  openWallet,
  placedWallet,
  type ClientStatement,
  type RegisteredWallet,
} from "./wallet-registry-store";
import { adjustmentAmount, topUpAmount } from "./wallet-rules";

/** Who a posting's audit row names, and the request it came in: as the audit log takes it. */
export type PostingActor = Parameters<typeof auditLedgerEntryOnce>[1];

/** A top-up or an adjustment as asked: the amount as given (checked here), a reason and an idempotency key. */
export interface PostingRequest {
  clientId: string;
  currency: string;
  amount: string | number;
  reason: string;
  idempotencyKey: string;
}

/** A ledger entry and the wallet object it is in (a moved wallet is a new object each time). */
export type PlacedEntry = LedgerEntry & { wallet: Placement };

/** What a posting wrote (or, replayed, had written for that key) and the balance after it. */
export interface PostingOutcome {
  clientId: string;
  currency: string;
  balance: Money;
  entry: PlacedEntry;
  replayed: boolean;
}

/**
 * 404 client_not_found or wallet_unknown unless the client exists and has the wallet registered; answers
 * the registered wallet (where its object is, and the objects it has been).
 */
export async function requireWallet(
  db: D1Database,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
): Promise<RegisteredWallet> {
  const found = await findWallet(db, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (found.wallet === null) fail("wallet_unknown", { clientId, currency });
  return found.wallet;
}

/** An operator posting's wallet calls through their seams: the posts, and the transfers a walk delivers. */
const operatorPosting: Through = (step, run) =>
  io(step === "call" ? WALLET_SEAMS.operatorPost : WALLET_MOVE_SEAMS.moveIn, run);

/** The audit target of a wallet's entries: a moved wallet's later objects each number their own entries. */
function walletTarget(clientId: string, currency: string, placement: Placement): string {
  return placement.generation === 0
    ? `wallet:${clientId}:${currency}`
    : `wallet:${clientId}:${currency}:${placement.generation}`;
}

/**
 * Posts to the wallet and answers what it wrote; audited unless it was a replay (which wrote nothing).
 * Each I/O call goes through its seam (wallets/seams.ts). A failure anywhere is a 500 that is safe to
 * retry with the same idempotency key: the wallet writes one entry per key, and the audit row is written
 * once per entry (on the first post, or on the retry that finds the entry without its row).
 */
async function post(
  env: Env,
  actor: PostingActor,
  clientId: string,
  currency: string,
  registered: RegisteredWallet,
  posting: Posting & { kind: LedgerKind },
  idempotencyKey: string,
): Promise<PostingOutcome> {
  const retry = { reason: "the posting may or may not have been written; retry with the same idempotency key" };
  let result: PostingResult;
  let placement: Placement;
  let wallet: DurableObjectStub<WalletObject>;
  try {
    // From the wallet's first object on: one that has moved answers a key it knows (a retry from before
    // the move finds its entry) and sends anything else on to its successor.
    ({
      answer: result,
      placement,
      wallet,
    } = await atWallet<PostingResult>(
      env,
      clientId,
      currency,
      firstPlacement(registered),
      (wallet) => wallet.post(posting),
      operatorPosting,
    ));
  } catch (error) {
    logFailure(error, { step: WALLET_SEAMS.operatorPost, requestId: actor.requestId, clientId });
    fail("server_error", retry);
  }
  if (!result.ok) {
    if (result.code === "idempotency_conflict") fail("idempotency_conflict", { idempotencyKey });
    if (result.code === "insufficient_funds")
      fail("adjustment_below_zero", { balance: toAmountNumber(result.balance) });
    // order_voided answers only order charges, which no operator posts.
    logFailure(`unexpected ${result.code}`, { step: WALLET_SEAMS.operatorPost, requestId: actor.requestId, clientId });
    fail("server_error", retry);
  }
  const entry = result.entry;
  const target = walletTarget(clientId, currency, placement);
  try {
    await io(WALLET_SEAMS.operatorAudit, () =>
      auditLedgerEntryOnce(env.DB, actor, `wallet.${posting.kind}`, target, {
        idempotencyKey,
        amount: posting.amount,
        reason: posting.reason,
        seq: entry.seq,
      }),
    );
  } catch (error) {
    logFailure(error, { step: WALLET_SEAMS.operatorAudit, requestId: actor.requestId, clientId });
    fail("server_error", retry);
  }
  let balance: Money;
  try {
    balance = new Money(await io(WALLET_SEAMS.operatorBalance, () => wallet.balance()));
  } catch (error) {
    logFailure(error, { step: WALLET_SEAMS.operatorBalance, requestId: actor.requestId, clientId });
    fail("server_error", retry);
  }
  return { clientId, currency, balance, entry: { ...entry, wallet: placement }, replayed: result.replayed };
}

/**
 * Credits a client's wallet, opening it if it is new (400 invalid_request_body for a bad amount). The
 * idempotency key makes a repeated top-up add nothing; the same key with another amount is 409.
 */
export async function topUpWallet(
  env: Env,
  clientStatement: ClientStatement,
  actor: PostingActor,
  request: PostingRequest,
): Promise<PostingOutcome> {
  const { clientId, currency, idempotencyKey } = request;
  const amount = topUpAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  // A new wallet is placed in the client's region; a registered one stays where its object is.
  const registered = found.wallet ?? (await openWallet(env.DB, clientId, currency, found.region, Date.now()));
  const posting = {
    key: topUpKey(idempotencyKey),
    exclusiveWith: [adjustmentKey(idempotencyKey)],
    kind: "top_up" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return post(env, actor, clientId, currency, registered, posting, idempotencyKey);
}

/**
 * A signed correction of an existing wallet with a reason: positive credits, negative debits; a debit
 * never takes the balance below zero (400 adjustment_below_zero).
 */
export async function adjustWallet(
  env: Env,
  clientStatement: ClientStatement,
  actor: PostingActor,
  request: PostingRequest,
): Promise<PostingOutcome> {
  const { clientId, currency, idempotencyKey } = request;
  const amount = adjustmentAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const registered = await requireWallet(env.DB, clientStatement, clientId, currency);
  const posting = {
    key: adjustmentKey(idempotencyKey),
    exclusiveWith: [topUpKey(idempotencyKey)],
    kind: "adjustment" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return post(env, actor, clientId, currency, registered, posting, idempotencyKey);
}

/** A registered wallet's balance (404 client_not_found or wallet_unknown). */
export async function walletBalance(
  env: Env,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
): Promise<Money> {
  const registered = await requireWallet(env.DB, clientStatement, clientId, currency);
  return new Money(await currentBalance(env, clientId, registered));
}

/**
 * A position in a wallet's whole history, as one integer: the entry's seq within its object, plus its
 * object's generation times this. A wallet that never moved has generation 0, so its positions are its
 * seqs, as before moves existed; an object would need 10^12 entries to reach the next generation's.
 */
const GENERATION_STRIDE = 1_000_000_000_000;

/** Up to `count` entries of the wallet's history after `position`: its objects' ledgers, oldest first. */
async function historyEntries(
  env: Env,
  clientId: string,
  currency: string,
  registered: RegisteredWallet,
  position: number,
  count: number,
): Promise<{ entry: PlacedEntry; position: number }[]> {
  const fromGeneration = Math.floor(position / GENERATION_STRIDE);
  const rows: { entry: PlacedEntry; position: number }[] = [];
  for (const wallet of historyOf(registered)) {
    if (wallet.generation < fromGeneration || rows.length >= count) continue;
    const afterSeq = wallet.generation === fromGeneration ? position % GENERATION_STRIDE : 0;
    const entries = (await placedWallet(env, clientId, currency, wallet).entries(
      afterSeq,
      count - rows.length,
    )) as LedgerEntry[];
    rows.push(
      ...entries.map((entry) => ({
        entry: { ...entry, wallet },
        position: wallet.generation * GENERATION_STRIDE + entry.seq,
      })),
    );
  }
  return rows;
}

/** A page of a registered wallet's whole history, oldest first, after position `after`; `next` continues it. */
export async function ledgerPage(
  env: Env,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
  after: number,
  limit: number,
): Promise<{ entries: PlacedEntry[]; next: number | null }> {
  const registered = await requireWallet(env.DB, clientStatement, clientId, currency);
  const rows = await historyEntries(env, clientId, currency, registered, after, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.position);
  return { entries: page.items.map((row) => row.entry), next: page.next };
}
