/**
 * What an operator does to a wallet, whichever way they asked (the /admin routes in wallet-admin-routes.ts,
 * or the console's wallet page): a top-up, an adjustment, the balance, a page of the ledger. Each change
 * is audited under the actor it is given, once per ledger entry.
 */
import { auditLedgerEntryOnce } from "../audit/audit-log";
import { fail } from "../http/errors";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { Money, toAmountNumber } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";
import { adjustmentKey, topUpKey } from "./ledger-keys";
import { WALLET_SEAMS } from "./seams";
import type { Posting, PostingResult } from "./wallet-object";
import { findWallet, openWallet, walletStub, type ClientStatement, type Region } from "./wallet-registry";
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

/** What a posting wrote (or, replayed, had written for that key) and the balance after it. */
export interface PostingOutcome {
  clientId: string;
  currency: string;
  balance: Money;
  entry: LedgerEntry;
  replayed: boolean;
}

/**
 * 404 client_not_found or wallet_unknown unless the client exists and has the wallet registered; answers
 * the region the wallet's object is opened with.
 */
export async function requireWallet(
  db: D1Database,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
): Promise<Region | null> {
  const found = await findWallet(db, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (!found.wallet) fail("wallet_unknown", { clientId, currency });
  return found.region;
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
  region: Region | null,
  posting: Posting & { kind: LedgerKind },
  idempotencyKey: string,
): Promise<PostingOutcome> {
  const wallet = walletStub(env, clientId, currency, region);
  const retry = { reason: "the posting may or may not have been written; retry with the same idempotency key" };
  let result: PostingResult;
  try {
    result = await io(
      WALLET_SEAMS.operatorPost,
      async (): Promise<PostingResult> => (await wallet.post(posting)) as PostingResult,
    );
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
  const target = `wallet:${clientId}:${currency}`;
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
  return { clientId, currency, balance, entry, replayed: result.replayed };
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
  const region = found.wallet ? found.region : await openWallet(env.DB, clientId, currency, found.region, Date.now());
  const posting = {
    key: topUpKey(idempotencyKey),
    exclusiveWith: [adjustmentKey(idempotencyKey)],
    kind: "top_up" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return post(env, actor, clientId, currency, region, posting, idempotencyKey);
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
  const region = await requireWallet(env.DB, clientStatement, clientId, currency);
  const posting = {
    key: adjustmentKey(idempotencyKey),
    exclusiveWith: [topUpKey(idempotencyKey)],
    kind: "adjustment" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return post(env, actor, clientId, currency, region, posting, idempotencyKey);
}

/** A registered wallet's balance (404 client_not_found or wallet_unknown). */
export async function walletBalance(
  env: Env,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
): Promise<Money> {
  const region = await requireWallet(env.DB, clientStatement, clientId, currency);
  return new Money(await walletStub(env, clientId, currency, region).balance());
}

/** A page of a registered wallet's ledger, oldest first, after entry `after`; `next` continues it. */
export async function ledgerPage(
  env: Env,
  clientStatement: ClientStatement,
  clientId: string,
  currency: string,
  after: number,
  limit: number,
): Promise<{ entries: LedgerEntry[]; next: number | null }> {
  const region = await requireWallet(env.DB, clientStatement, clientId, currency);
  const entries = (await walletStub(env, clientId, currency, region).entries(
    after,
    rowsToFetch(limit),
  )) as LedgerEntry[];
  const page = pageOf(entries, limit, (entry) => entry.seq);
  return { entries: page.items, next: page.next };
}
