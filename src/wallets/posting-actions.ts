/**
 * What an operator does to a wallet, whichever way they asked (the /admin routes in wallet-admin-routes.ts,
 * or the console's wallet page): a top-up, an adjustment, the balance, a page of the ledger. Each change
 * is audited under the actor it is given, once per ledger entry. A posting above its currency's approval
 * limit is not posted: it is stored as a posting request that a different operator approves or rejects
 * (approval-actions.ts; docs/operator-api.md, Dual control). A wallet moved to another region
 * (wallet-moves.ts) is followed: postings walk from its first object, the balance is read where its money
 * is, and the ledger is its whole history, each entry with the wallet object it is in.
 */
import { actorColumns, auditLedgerEntryOnce } from "../audit/audit-store";
import { fail } from "../kernel/failures";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { Money, toAmountNumber } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";
import { adjustmentKey, topUpKey } from "./ledger-keys";
import { WALLET_MOVE_SEAMS, WALLET_SEAMS } from "./seams";
import { historyEntries, type PlacedEntry } from "./wallet-history";
import { atWallet, currentBalance, firstPlacement, type Through } from "./wallet-moves";
import type { Placement, Posting, PostingResult, WalletObject } from "./wallet-object";
import { findWallet, openWallet, type ClientStatement, type RegisteredWallet } from "./wallet-registry-store";
import { adjustmentAmount, topUpAmount } from "./wallet-rules";
import { needsApproval, POSTING_REQUEST_TTL_MS } from "./approval-rules";
import { approvalLimitOf, insertPostingRequest, postingRequestByKey, type PostingRequest } from "./approval-store";

/** Who a posting's audit row names, and the request it came in: as the audit log takes it. */
export type PostingActor = Parameters<typeof auditLedgerEntryOnce>[1];

/** A top-up or an adjustment as asked: the amount as given (checked here), a reason and an idempotency key. */
export interface PostingRequestInput {
  clientId: string;
  currency: string;
  amount: string | number;
  reason: string;
  idempotencyKey: string;
}

export type { PlacedEntry } from "./wallet-history";

/** A posting above the approval limit, stored as a request instead of posted (or found again on a retry). */
export interface HeldPosting {
  held: true;
  clientId: string;
  currency: string;
  /** The balance now: nothing was posted. */
  balance: Money;
  request: PostingRequest;
  replayed: boolean;
}

/** What asking for a top-up or an adjustment did: posted it, or held it for a second operator. */
export type PostingAnswer = (PostingOutcome & { held: false }) | HeldPosting;

/** The approved request a posting carries out: its audit row names the requester beside the approver. */
export interface Approval {
  requestId: number;
  requestedBy: string;
  requestedByName: string | null;
}

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
export function walletTarget(clientId: string, currency: string, placement: Placement): string {
  return placement.generation === 0
    ? `wallet:${clientId}:${currency}`
    : `wallet:${clientId}:${currency}:${placement.generation}`;
}

/** What an approved posting's audit row adds: the request it came from and who asked for it. */
function approvalColumns(approval: Approval | null): Record<string, unknown> {
  if (approval === null) return {};
  const { requestId, requestedBy, requestedByName } = approval;
  return { postingRequest: requestId, requestedBy, requestedByName };
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
  approval: Approval | null,
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
        ...approvalColumns(approval),
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
 * The request a posting with this key already is (the same posting asked again: 409 if its kind or amount
 * differ), or, for a new key above the currency's approval limit, the request it now becomes; null when
 * the posting may go ahead. The key is the request's from here on: approving it posts under that key, so
 * a posting is written once however often it is asked for or approved.
 */
async function heldForApproval(
  env: Env,
  actor: PostingActor,
  request: PostingRequestInput,
  kind: "top_up" | "adjustment",
  amount: string,
  registered: RegisteredWallet | null,
): Promise<HeldPosting | null> {
  const { clientId, currency, idempotencyKey } = request;
  const same = (stored: PostingRequest) => stored.kind === kind && new Money(stored.amount).equals(amount);
  const balance = async () =>
    registered === null ? new Money(0) : new Money(await currentBalance(env, clientId, registered));
  const existing = await postingRequestByKey(env.DB, clientId, currency, idempotencyKey);
  if (existing !== null) {
    if (!same(existing)) fail("idempotency_conflict", { idempotencyKey });
    return { held: true, clientId, currency, balance: await balance(), request: existing, replayed: true };
  }
  if (!needsApproval(amount, await approvalLimitOf(env.DB, currency))) return null;
  const now = Date.now();
  const requester = actorColumns(actor.actor);
  const stored = await insertPostingRequest(env.DB, actor, {
    clientId,
    currency,
    kind,
    amount,
    reason: request.reason,
    idempotencyKey,
    requestedBy: requester.actor,
    requestedByName: requester.name,
    requestedAt: now,
    expiresAt: now + POSTING_REQUEST_TTL_MS,
  });
  // Two asks with one key at once: the first stored wins, and the other is its replay (or a 409).
  if (!same(stored)) fail("idempotency_conflict", { idempotencyKey });
  const replayed = stored.requestedAt !== now || stored.requestedBy !== requester.actor;
  return { held: true, clientId, currency, balance: await balance(), request: stored, replayed };
}

/**
 * Credits a client's wallet, opening it if it is new (400 invalid_request_body for a bad amount). The
 * idempotency key makes a repeated top-up add nothing; the same key with another amount is 409.
 */
export async function topUpWallet(
  env: Env,
  clientStatement: ClientStatement,
  actor: PostingActor,
  request: PostingRequestInput,
  approval: Approval | null = null,
): Promise<PostingAnswer> {
  const { clientId, currency, idempotencyKey } = request;
  const amount = topUpAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (approval === null) {
    const held = await heldForApproval(env, actor, request, "top_up", amount.amount, found.wallet);
    if (held !== null) return held;
  }
  // A new wallet is placed in the client's region; a registered one stays where its object is.
  const registered = found.wallet ?? (await openWallet(env.DB, clientId, currency, found.region, Date.now()));
  const posting = {
    key: topUpKey(idempotencyKey),
    exclusiveWith: [adjustmentKey(idempotencyKey)],
    kind: "top_up" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return {
    held: false,
    ...(await post(env, actor, clientId, currency, registered, posting, idempotencyKey, approval)),
  };
}

/**
 * A signed correction of an existing wallet with a reason: positive credits, negative debits; a debit
 * never takes the balance below zero (400 adjustment_below_zero).
 */
export async function adjustWallet(
  env: Env,
  clientStatement: ClientStatement,
  actor: PostingActor,
  request: PostingRequestInput,
  approval: Approval | null = null,
): Promise<PostingAnswer> {
  const { clientId, currency, idempotencyKey } = request;
  const amount = adjustmentAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const registered = await requireWallet(env.DB, clientStatement, clientId, currency);
  if (approval === null) {
    const held = await heldForApproval(env, actor, request, "adjustment", amount.amount, registered);
    if (held !== null) return held;
  }
  const posting = {
    key: adjustmentKey(idempotencyKey),
    exclusiveWith: [topUpKey(idempotencyKey)],
    kind: "adjustment" as const,
    amount: amount.amount,
    reason: request.reason,
  };
  return {
    held: false,
    ...(await post(env, actor, clientId, currency, registered, posting, idempotencyKey, approval)),
  };
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
