import { adminCaller } from "../http/admin-auth";
import type { AdminCaller } from "../http/route";
import { parseBody, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { Money, toAmountNumber } from "../pricing/money";
import { ledgerEntryView, type LedgerEntry, type LedgerKind } from "./ledger";
import { adjustmentKey, topUpKey } from "./ledger-keys";
import type { Posting, PostingResult } from "./wallet-object";
import { findWallet, openWallet, walletStub, type ClientStatement, type Region } from "./wallet-registry";
import { WALLET_SEAMS } from "./seams";
import { adjustmentAmount, topUpAmount } from "./wallet-rules";
import { io } from "../kernel/faults";
import { logFailure } from "../kernel/log";
import { auditLedgerEntryOnce } from "../audit/audit-log";
import { AdjustmentRequest, LedgerPage, LedgerQuery, TopUpRequest, WalletBalanceData, WalletPathParams, WalletPostingData } from "./admin-schemas";
import { walletExamples } from "./wallet-examples";

/**
 * 404 client_not_found or wallet_unknown unless the client exists and has the wallet registered; answers
 * the region the wallet's object is opened with.
 */
async function requireWallet(db: D1Database, clientStatement: ClientStatement, clientId: string, currency: string): Promise<Region | null> {
  const found = await findWallet(db, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  if (!found.wallet) fail("wallet_unknown", { clientId, currency });
  return found.region;
}

/**
 * Posts to the wallet and answers what it wrote; audited unless it was a replay (which wrote nothing).
 * Each I/O call goes through its seam (wallets/seams.ts). A failure anywhere answers 500 and is safe to
 * retry with the same idempotency key: the wallet writes one entry per key, and the audit row is written
 * once per entry (on the first post, or on the retry that finds the entry without its row).
 */
async function postAndAnswer(
  env: Env,
  actor: AdminCaller,
  clientId: string,
  currency: string,
  region: Region | null,
  posting: Posting & { kind: LedgerKind },
  idempotencyKey: string,
  messages: { done: string; replayed: string },
): Promise<Response> {
  const wallet = walletStub(env, clientId, currency, region);
  const retry = { reason: "the posting may or may not have been written; retry with the same idempotency key" };
  let result: PostingResult;
  try {
    result = await io(WALLET_SEAMS.operatorPost, async (): Promise<PostingResult> => (await wallet.post(posting)) as PostingResult);
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
  return ok(result.replayed ? messages.replayed : messages.done, {
    clientId,
    currency,
    balance: toAmountNumber(balance),
    entry: ledgerEntryView(entry),
    replayed: result.replayed,
  });
}

/**
 * POST /admin/wallets/:clientId/:currency/top-ups: credits a client's wallet, opening it if it is new.
 * The idempotency key makes a retried top-up add nothing; the same key with another amount is 409.
 */
const topUpWallet = (clientStatement: ClientStatement): Handler => async (request, context) => {
  const actor = adminCaller(context);
  const { env } = context;
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const body = await parseBody(TopUpRequest, request, env);
  const amount = topUpAmount(body.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (!found.client) fail("client_not_found", { clientId });
  // A new wallet is placed in the client's region; a registered one stays where its object is.
  const region = found.wallet ? found.region : await openWallet(env.DB, clientId, currency, found.region, Date.now());
  return postAndAnswer(
    env,
    actor,
    clientId,
    currency,
    region,
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
  const actor = adminCaller(context);
  const { env } = context;
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const body = await parseBody(AdjustmentRequest, request, env);
  const amount = adjustmentAmount(body.amount, currency);
  if (!amount.ok) fail("invalid_request_body", { reason: amount.reason });
  const region = await requireWallet(env.DB, clientStatement, clientId, currency);
  return postAndAnswer(
    env,
    actor,
    clientId,
    currency,
    region,
    { key: adjustmentKey(body.idempotencyKey), exclusiveWith: [topUpKey(body.idempotencyKey)], kind: "adjustment", amount: amount.amount, reason: body.reason },
    body.idempotencyKey,
    { done: "Wallet adjusted", replayed: "Adjustment already applied" },
  );
};

/** GET /admin/wallets/:clientId/:currency: the balance. */
const getWallet = (clientStatement: ClientStatement): Handler => async (request, context) => {
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const region = await requireWallet(context.env.DB, clientStatement, clientId, currency);
  const balance = new Money(await walletStub(context.env, clientId, currency, region).balance());
  return ok("Wallet", { clientId, currency, balance: toAmountNumber(balance) });
};

/** GET /admin/wallets/:clientId/:currency/ledger?after=&limit=: ledger entries in order, a page at a time. */
const getLedger = (clientStatement: ClientStatement): Handler => async (request, context) => {
  const { clientId, currency } = parseParams(WalletPathParams, request);
  const query = parseQuery(LedgerQuery, request);
  const region = await requireWallet(context.env.DB, clientStatement, clientId, currency);
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const entries = (await walletStub(context.env, clientId, currency, region).entries(query.after ?? 0, rowsToFetch(limit))) as LedgerEntry[];
  const page = pageOf(entries, limit, (entry) => entry.seq);
  return ok("Ledger", { clientId, currency, entries: page.items.map(ledgerEntryView), next: page.next });
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
    role: "operator",
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
    role: "operator",
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
    role: "viewer",
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
    description: "Every entry of the wallet (top-ups, adjustments, order charges, refunds and voids), oldest first, each with the balance after it. Page with `after` (the `next` of the previous page) and `limit`.",
    auth: "admin",
    role: "viewer",
    params: WalletPathParams,
    query: LedgerQuery,
    data: LedgerPage,
    messages: ["Ledger"],
    errors: ["client_not_found", "wallet_unknown"],
  },
];
