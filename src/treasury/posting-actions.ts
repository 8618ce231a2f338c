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
import { clientStatement } from "../clients/client-store";
import { fail, Refusal } from "../kernel/failures";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { pageOf, rowsToFetch } from "../kernel/paging";
import { Money, toAmountNumber } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "../wallets/ledger";
import { adjustmentKey, topUpKey } from "../wallets/ledger-keys";
import { WALLET_MOVE_SEAMS, WALLET_SEAMS } from "../wallets/seams";
import { historyEntries, type PlacedEntry } from "../wallets/wallet-history";
import { atWallet, currentBalance, firstPlacement, type Through } from "../wallets/wallet-moves";
import type { FundsResult, Placement, Posting, PostingResult, WalletObject } from "../wallets/wallet-object";
import {
  findWallet,
  historyOf,
  openWallet,
  placementOf,
  placedWallet,
  type RegisteredWallet,
} from "../wallets/wallet-registry-store";
import { adjustmentAmount, topUpAmount } from "../wallets/wallet-rules";
import { effectiveLimit, minorOf, POSTING_REQUEST_TTL_MS, WINDOW_MS } from "./approval-rules";
import {
  approvalLimitOf,
  claimWindow,
  insertPostingRequest,
  markPostingFailed,
  postingRequestByKey,
  type AskedPosting,
  type PostingRequest,
} from "./approval-store";
import { DUAL_CONTROL_SEAMS } from "./seams";
import { serviceMode } from "../kernel/service-mode";
import { answerableFor } from "../operators/colleague-rules";
import { colleagueOf } from "../operators/operators";

/** Who a posting's audit row names, and the request it came in: as the audit log takes it. */
export type PostingActor = Parameters<typeof auditLedgerEntryOnce>[1];

/**
 * A top-up or an adjustment as asked: the amount as given (checked here), the internal reason (the audit
 * log's and the operator's, never shown to the client), the client-facing note if any, and an idempotency
 * key.
 */
export interface PostingRequestInput {
  clientId: string;
  currency: string;
  amount: string | number;
  reason: string;
  note?: string | null;
  idempotencyKey: string;
}

export type { PlacedEntry } from "../wallets/wallet-history";

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
export async function requireWallet(db: D1Database, clientId: string, currency: string): Promise<RegisteredWallet> {
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

/** An operator's posting: who posts what to which wallet, under which key, approved by whom (or alone). */
interface OperatorPost {
  actor: PostingActor;
  clientId: string;
  currency: string;
  registered: RegisteredWallet;
  posting: Posting & { kind: LedgerKind };
  idempotencyKey: string;
  approval: Approval | null;
}

/**
 * Posts to the wallet and answers what it wrote; audited unless it was a replay (which wrote nothing).
 * Each I/O call goes through its seam (wallets/seams.ts). A failure anywhere is a 500 that is safe to
 * retry with the same idempotency key: the wallet writes one entry per key, and the audit row is written
 * once per entry (on the first post, or on the retry that finds the entry without its row).
 */
async function post(
  env: Env,
  { actor, clientId, currency, registered, posting, idempotencyKey, approval }: OperatorPost,
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
    } = await atWallet<PostingResult>(env, {
      clientId,
      currency,
      start: firstPlacement(registered),
      // A new credit announces itself to the client (wallet.funded, with the note and never the reason).
      call: (wallet) => wallet.post({ ...posting, announce: { clientId, currency } }),
      through: operatorPosting,
    }));
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
        ...(posting.note ? { note: posting.note } : {}),
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
 * Whether the wallet holds an entry under any of `keys` in any object it has been: a key posted before
 * postings made alone were recorded (or restored with a ledger), which no request may take on.
 */
async function walletHolds(
  env: Env,
  clientId: string,
  currency: string,
  registered: RegisteredWallet | null,
  keys: readonly string[],
): Promise<LedgerEntry | null> {
  if (registered === null) return null;
  for (const placement of historyOf(registered))
    for (const key of keys) {
      const entry = (await placedWallet(env, clientId, currency, placement).entry(key)) as LedgerEntry | null;
      if (entry !== null) return entry;
    }
  return null;
}

/** What a posting is, for the window and for its request if it has to wait. */
export interface Asking {
  kind: PostingRequest["kind"];
  /** The canonical amount (signed for an adjustment; a restore's balance). */
  amount: string;
  /** The wallet's keys this posting's idempotency key names. */
  keys: readonly string[];
  /** Stores the request it becomes when it has to wait (a restore keeps its export with it). */
  hold?: (asked: AskedPosting) => Promise<PostingRequest>;
}

/**
 * Where a posting asked for alone goes (docs/operator-api.md, Dual control). Its idempotency key already
 * stored: a posting made alone is posted again (a retry: the wallet writes it once), a request is answered
 * as it is (409 if the kind or amount differ). Otherwise, without a limit (the sandbox's currencies
 * without one) it is posted; with one, it is posted if every credential it counts against (its
 * requester's, and the requester's makers in the requester's first day) has moved no more than the limit
 * alone in the last 24 hours with it, which is recorded in the same statement as it is checked
 * (approval-store.ts, claimWindow), and otherwise it becomes a request for a second person. A request
 * under a key the wallet already holds (posted before postings were recorded, or restored) is refused
 * (409 idempotency_key_posted): approving it would approve what was posted alone.
 */
export async function throughWindow(
  env: Env,
  actor: PostingActor,
  request: Omit<PostingRequestInput, "amount">,
  asking: Asking,
  registered: RegisteredWallet | null,
): Promise<{ held: HeldPosting } | { claim: PostingRequest | null }> {
  const { clientId, currency, idempotencyKey } = request;
  const same = (stored: PostingRequest) =>
    stored.kind === asking.kind && new Money(stored.amount).equals(asking.amount);
  const balance = async () =>
    registered === null ? new Money(0) : new Money(await currentBalance(env, clientId, registered));
  const answerStored = async (stored: PostingRequest, replayed: boolean) => {
    if (!same(stored)) fail("idempotency_conflict", { idempotencyKey });
    if (stored.status === "posted") return { claim: stored };
    return { held: { held: true as const, clientId, currency, balance: await balance(), request: stored, replayed } };
  };
  const existing = await postingRequestByKey(env.DB, clientId, currency, idempotencyKey);
  if (existing !== null) return answerStored(existing, true);
  const limit = effectiveLimit(await approvalLimitOf(env.DB, currency), serviceMode(env) === "live");
  if (limit === null) return { claim: null };
  const now = Date.now();
  const requester = actorColumns(actor.actor);
  const asked: AskedPosting = {
    clientId,
    currency,
    kind: asking.kind,
    amount: asking.amount,
    reason: request.reason,
    note: request.note ?? null,
    idempotencyKey,
    requestedBy: requester.actor,
    requestedByName: requester.name,
    requestedAt: now,
    expiresAt: now + POSTING_REQUEST_TTL_MS,
  };
  const mover = await colleagueOf(env.DB, actor);
  const claim = { answerable: answerableFor(mover, now), since: now - WINDOW_MS };
  const claimed = await io(DUAL_CONTROL_SEAMS.claim, () =>
    claimWindow(env.DB, asked, {
      ...claim,
      minor: minorOf(asking.amount, currency),
      limitMinor: minorOf(limit, currency),
    }),
  );
  // Two asks with one key at once: the first stored wins, and the other is its retry (or a 409).
  if (claimed !== "full")
    return answerStored((await postingRequestByKey(env.DB, clientId, currency, idempotencyKey))!, false);
  const held = await walletHolds(env, clientId, currency, registered, asking.keys);
  if (held !== null)
    fail("idempotency_key_posted", {
      idempotencyKey,
      entry: { seq: held.seq, kind: held.kind, amount: toAmountNumber(held.amount) },
    });
  const stored = await (asking.hold ?? ((ask: AskedPosting) => insertPostingRequest(env.DB, actor, ask)))(asked);
  const replayed = stored.requestedAt !== now || stored.requestedBy !== requester.actor;
  return answerStored(stored, replayed);
}

/** Posts a posting made alone (or approved); a posting the wallet refuses for good no longer counts in a window. */
async function postClaimed(
  env: Env,
  actor: PostingActor,
  claim: PostingRequest | null,
  posting: () => Promise<PostingOutcome>,
): Promise<PostingOutcome> {
  try {
    return await posting();
  } catch (error) {
    if (claim !== null && error instanceof Refusal && error.failure.code === "idempotency_conflict")
      await io(DUAL_CONTROL_SEAMS.failed, () =>
        markPostingFailed(env.DB, actor, claim, "the wallet holds another posting under this key"),
      );
    throw error;
  }
}

/** A top-up or adjustment of an operator, its amount checked and its wallet found. */
interface OperatorPosting {
  kind: "top_up" | "adjustment";
  amount: string;
  /** The wallet the posting moves, when it is registered (a top-up may open it). */
  known: RegisteredWallet | null;
  /** The wallet to post to, once the posting may go ahead. */
  wallet: () => Promise<RegisteredWallet>;
}

/**
 * Posts a top-up or adjustment under its kind's key, the other kind's key kept exclusive: made alone
 * (no approval), it goes through its requester's window first, and waits for a second person past it.
 */
async function postOrHold(
  env: Env,
  actor: PostingActor,
  request: PostingRequestInput,
  { kind, amount, known, wallet }: OperatorPosting,
  approval: Approval | null,
): Promise<PostingAnswer> {
  const { clientId, currency, idempotencyKey } = request;
  const [own, other] =
    kind === "top_up"
      ? [topUpKey(idempotencyKey), adjustmentKey(idempotencyKey)]
      : [adjustmentKey(idempotencyKey), topUpKey(idempotencyKey)];
  let claim: PostingRequest | null = null;
  if (approval === null) {
    const routed = await throughWindow(env, actor, request, { kind, amount, keys: [own, other] }, known);
    if ("held" in routed) return routed.held;
    claim = routed.claim;
  }
  const registered = await wallet();
  const posting = {
    key: own,
    exclusiveWith: [other],
    kind,
    amount,
    reason: request.reason,
    note: request.note ?? null,
  };
  return {
    held: false,
    ...(await postClaimed(env, actor, claim, () =>
      post(env, { actor, clientId, currency, registered, posting, idempotencyKey, approval }),
    )),
  };
}

/**
 * Credits a client's wallet, opening it if it is new (400 invalid_request_body for a bad amount). The
 * idempotency key makes a repeated top-up add nothing; the same key with another amount is 409.
 */
export async function topUpWallet(
  env: Env,
  actor: PostingActor,
  request: PostingRequestInput,
  approval: Approval | null = null,
): Promise<PostingAnswer> {
  const { clientId, currency } = request;
  const amount = topUpAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  // A new wallet is placed in the client's region; a registered one stays where its object is.
  const wallet = async () => found.wallet ?? (await openWallet(env.DB, clientId, currency, found.region, Date.now()));
  return postOrHold(
    env,
    actor,
    request,
    { kind: "top_up", amount: amount.amount, known: found.wallet, wallet },
    approval,
  );
}

/**
 * A signed correction of an existing wallet with a reason: positive credits, negative debits; a debit
 * never takes the balance below zero (400 adjustment_below_zero).
 */
export async function adjustWallet(
  env: Env,
  actor: PostingActor,
  request: PostingRequestInput,
  approval: Approval | null = null,
): Promise<PostingAnswer> {
  const { clientId, currency } = request;
  const amount = adjustmentAmount(request.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const registered = await requireWallet(env.DB, clientId, currency);
  const posting = {
    kind: "adjustment" as const,
    amount: amount.amount,
    known: registered,
    wallet: async () => registered,
  };
  return postOrHold(env, actor, request, posting, approval);
}

/** A registered wallet's balance (404 client_not_found or wallet_unknown). */
export async function walletBalance(env: Env, clientId: string, currency: string): Promise<Money> {
  const registered = await requireWallet(env.DB, clientId, currency);
  return new Money(await currentBalance(env, clientId, registered));
}

/** The client's low-balance threshold of a registered wallet (null: none), for the console's wallet page. */
export async function walletThreshold(env: Env, clientId: string, currency: string): Promise<string | null> {
  const registered = await requireWallet(env.DB, clientId, currency);
  const { answer } = await atWallet<FundsResult>(env, {
    clientId,
    currency,
    start: placementOf(registered),
    call: (stub) => stub.funds(),
  });
  return answer.lowBalanceThreshold ?? null;
}

/** A page of a registered wallet's whole history, oldest first, after position `after`; `next` continues it. */
export async function ledgerPage(
  env: Env,
  clientId: string,
  currency: string,
  after: number,
  limit: number,
): Promise<{ entries: PlacedEntry[]; next: number | null }> {
  const registered = await requireWallet(env.DB, clientId, currency);
  const rows = await historyEntries(env, {
    clientId,
    currency,
    registered,
    position: after,
    count: rowsToFetch(limit),
  });
  const page = pageOf(rows, limit, (row) => row.position);
  return { entries: page.items.map((row) => row.entry), next: page.next };
}
