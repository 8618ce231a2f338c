import { adminActor, type Actor } from "../http/admin-auth";
import { parseBody, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { Money, toAmountNumber } from "../pricing/money";
import type { LedgerEntry, LedgerKind } from "./ledger";
import { adjustmentKey, topUpKey } from "./ledger-keys";
import type { Placement, Posting, PostingResult, WalletObject } from "./wallet-object";
import { findWallet, historyOf, openWallet, placedWallet, type ClientStatement, type RegisteredWallet } from "./wallet-registry";
import { WALLET_MOVE_SEAMS, WALLET_SEAMS } from "./seams";
import { atWallet, currentBalance, firstPlacement, type Through } from "./wallet-moves";
import { adjustmentAmount, topUpAmount } from "./wallet-rules";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { auditLedgerEntryOnce } from "../audit/audit-log";
import { AdjustmentRequest, LedgerPage, LedgerQuery, TopUpRequest, WalletBalanceData, WalletPathParams, WalletPostingData } from "./admin-schemas";
import { walletExamples } from "./wallet-examples";

function ledgerEntryView(entry: LedgerEntry, wallet: Placement) {
  return { ...entry, amount: toAmountNumber(entry.amount), balanceAfter: toAmountNumber(entry.balanceAfter), wallet };
}

/**
 * 404 client_not_found or wallet_unknown unless the client exists and has the wallet registered; answers
 * the registered wallet (where its object is, and the objects it has been).
 */
async function requireWallet(db: D1Database, clientStatement: ClientStatement, clientId: string, currency: string): Promise<RegisteredWallet> {
  const found = await findWallet(db, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (found.wallet === null) fail("wallet_unknown", { clientId, currency });
  return found.wallet;
}

/** An operator posting's wallet calls through their seams: the posts, and the transfers a walk delivers. */
const operatorPosting: Through = (step, run) => io(step === "call" ? WALLET_SEAMS.operatorPost : WALLET_MOVE_SEAMS.moveIn, run);

/** The audit target of a wallet's entries: a moved wallet's later objects each number their own entries. */
function walletTarget(clientId: string, currency: string, placement: Placement): string {
  return placement.generation === 0 ? `wallet:${clientId}:${currency}` : `wallet:${clientId}:${currency}:${placement.generation}`;
}

/**
 * Posts to the wallet and answers what it wrote; audited unless it was a replay (which wrote nothing).
 * Each I/O call goes through its seam (wallets/seams.ts). A failure anywhere answers 500 and is safe to
 * retry with the same idempotency key: the wallet writes one entry per key, and the audit row is written
 * once per entry (on the first post, or on the retry that finds the entry without its row).
 */
async function postAndAnswer(
  env: Env,
  actor: Actor,
  clientId: string,
  currency: string,
  registered: RegisteredWallet,
  posting: Posting & { kind: LedgerKind },
  idempotencyKey: string,
  messages: { done: string; replayed: string },
): Promise<Response> {
  const retry = { reason: "the posting may or may not have been written; retry with the same idempotency key" };
  let result: PostingResult;
  let placement: Placement;
  let wallet: DurableObjectStub<WalletObject>;
  try {
    // From the wallet's first object on: one that has moved answers a key it knows (a retry from before
    // the move finds its entry) and sends anything else on to its successor.
    ({ answer: result, placement, wallet } = await atWallet<PostingResult>(env, clientId, currency, firstPlacement(registered), (wallet) => wallet.post(posting), operatorPosting));
  } catch (error) {
    logFailure(error, { step: WALLET_SEAMS.operatorPost, requestId: actor.requestId, clientId });
    fail("server_error", retry);
  }
  if (!result.ok) {
    if (result.code === "idempotency_conflict") fail("idempotency_conflict", { idempotencyKey });
    if (result.code === "insufficient_funds") fail("adjustment_below_zero", { balance: toAmountNumber(result.balance) });
    // order_voided answers only order charges, which no operator route posts.
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
  return ok(result.replayed ? messages.replayed : messages.done, {
    clientId,
    currency,
    balance: toAmountNumber(balance),
    entry: ledgerEntryView(entry, placement),
    replayed: result.replayed,
  });
}

/**
 * POST /admin/wallets/:clientId/:currency/top-ups: credits a client's wallet, opening it if it is new.
 * The idempotency key makes a retried top-up add nothing; the same key with another amount is 409.
 */
const topUpWallet = (clientStatement: ClientStatement): Handler => async (request, context) => {
  const actor = await adminActor(request, context);
  const { env } = context;
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const body = await parseBody(TopUpRequest, request, env);
  const amount = topUpAmount(body.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  // A new wallet is placed in the client's region; a registered one stays where its object is.
  const registered = found.wallet ?? (await openWallet(env.DB, clientId, currency, found.region, Date.now()));
  return postAndAnswer(
    env,
    actor,
    clientId,
    currency,
    registered,
    { key: topUpKey(body.idempotencyKey), exclusiveWith: [adjustmentKey(body.idempotencyKey)], kind: "top_up", amount: amount.amount, reason: body.reason },
    body.idempotencyKey,
    { done: "Wallet topped up", replayed: "Top-up already applied" },
  );
};

/**
 * POST /admin/wallets/:clientId/:currency/adjustments: a signed correction of an existing wallet with a
 * reason. Positive credits, negative debits; a debit never takes the balance below zero (400).
 */
const adjustWallet = (clientStatement: ClientStatement): Handler => async (request, context) => {
  const actor = await adminActor(request, context);
  const { env } = context;
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const body = await parseBody(AdjustmentRequest, request, env);
  const amount = adjustmentAmount(body.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const registered = await requireWallet(env.DB, clientStatement, clientId, currency);
  return postAndAnswer(
    env,
    actor,
    clientId,
    currency,
    registered,
    { key: adjustmentKey(body.idempotencyKey), exclusiveWith: [topUpKey(body.idempotencyKey)], kind: "adjustment", amount: amount.amount, reason: body.reason },
    body.idempotencyKey,
    { done: "Wallet adjusted", replayed: "Adjustment already applied" },
  );
};

/** GET /admin/wallets/:clientId/:currency: the balance. */
const getWallet = (clientStatement: ClientStatement): Handler => async (request, context) => {
  await adminActor(request, context);
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const registered = await requireWallet(context.env.DB, clientStatement, clientId, currency);
  const balance = new Money(await currentBalance(context.env, clientId, registered));
  return ok("Wallet", { clientId, currency, balance: toAmountNumber(balance) });
};

/**
 * A position in a wallet's whole history, as one integer: the entry's seq within its object, plus its
 * object's generation times this. A wallet that never moved has generation 0, so its positions are its
 * seqs, as before moves existed; an object would need 10^12 entries to reach the next generation's.
 */
const GENERATION_STRIDE = 1_000_000_000_000;

/** Up to `count` entries of the wallet's history after `position`: its objects' ledgers, oldest first. */
async function historyEntries(env: Env, clientId: string, currency: string, registered: RegisteredWallet, position: number, count: number) {
  const fromGeneration = Math.floor(position / GENERATION_STRIDE);
  const rows: { entry: LedgerEntry; wallet: Placement; position: number }[] = [];
  for (const wallet of historyOf(registered)) {
    if (wallet.generation < fromGeneration || rows.length >= count) continue;
    const afterSeq = wallet.generation === fromGeneration ? position % GENERATION_STRIDE : 0;
    const entries = (await placedWallet(env, clientId, currency, wallet).entries(afterSeq, count - rows.length)) as LedgerEntry[];
    rows.push(...entries.map((entry) => ({ entry, wallet, position: wallet.generation * GENERATION_STRIDE + entry.seq })));
  }
  return rows;
}

/** GET /admin/wallets/:clientId/:currency/ledger?after=&limit=: ledger entries in order, a page at a time. */
const getLedger = (clientStatement: ClientStatement): Handler => async (request, context) => {
  await adminActor(request, context);
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const query = parseQuery(LedgerQuery, request);
  const registered = await requireWallet(context.env.DB, clientStatement, clientId, currency);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await historyEntries(context.env, clientId, currency, registered, query.after ?? 0, rowsToFetch(limit));
  const page = pageOf(rows, limit, (row) => row.position);
  return ok("Ledger", { clientId, currency, entries: page.items.map((row) => ledgerEntryView(row.entry, row.wallet)), next: page.next });
};

/**
 * The operator's wallet routes, each with its description in GET /openapi.json; clients are looked up with
 * `clientStatement`. The client's GET /wallets is in wallet-routes.ts.
 */
export const walletAdminRoutes = (clientStatement: ClientStatement): Route[] => [
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/top-ups",
    handler: topUpWallet(clientStatement),
    operationId: "adminTopUpWallet",
    example: walletExamples.adminTopUpWallet,
    tag: "Admin: wallets",
    summary: "Credit a wallet (opens it if new)",
    description: "One ledger entry per idempotency key, ever: a replay adds nothing and answers the first entry (`replayed: true`); the same key with another amount is 409.",
    auth: "admin",
    params: WalletPathParams,
    body: TopUpRequest,
    data: WalletPostingData,
    messages: ["Wallet topped up", "Top-up already applied"],
    errors: ["client_not_found", "idempotency_conflict"],
  },
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/adjustments",
    handler: adjustWallet(clientStatement),
    operationId: "adminAdjustWallet",
    example: walletExamples.adminAdjustWallet,
    tag: "Admin: wallets",
    summary: "Correct a wallet by a signed amount, with a reason",
    description: "Positive credits, negative debits; a debit never takes the balance below zero (400 adjustment_below_zero). One ledger entry per idempotency key, ever.",
    auth: "admin",
    params: WalletPathParams,
    body: AdjustmentRequest,
    data: WalletPostingData,
    messages: ["Wallet adjusted", "Adjustment already applied"],
    errors: ["adjustment_below_zero", "client_not_found", "wallet_unknown", "idempotency_conflict"],
  },
  {
    method: "GET",
    path: "/admin/wallets/:clientId/:currency",
    handler: getWallet(clientStatement),
    operationId: "adminGetWallet",
    example: walletExamples.adminGetWallet,
    tag: "Admin: wallets",
    summary: "A wallet's balance",
    description: "The balance of one wallet of a client; 404 wallet_unknown when the client has no wallet in that currency.",
    auth: "admin",
    params: WalletPathParams,
    data: WalletBalanceData,
    messages: ["Wallet"],
    errors: ["client_not_found", "wallet_unknown"],
  },
  {
    method: "GET",
    path: "/admin/wallets/:clientId/:currency/ledger",
    handler: getLedger(clientStatement),
    operationId: "adminGetLedger",
    example: walletExamples.adminGetLedger,
    tag: "Admin: wallets",
    summary: "A wallet's ledger, oldest first, a page at a time",
    description:
      "Every entry of the wallet (top-ups, adjustments, order charges, refunds, voids and moves), oldest first, each with the balance after it and the `wallet` object it is in. A wallet moved to another region (POST /admin/clients/{clientId}/region) shows its old object's entries, ending with the `move_out` of its balance, then the new object's, starting with the `move_in` under the same key. Page with `after` (the `next` of the previous page) and `limit`.",
    auth: "admin",
    params: WalletPathParams,
    query: LedgerQuery,
    data: LedgerPage,
    messages: ["Ledger"],
    errors: ["client_not_found", "wallet_unknown"],
  },
];
