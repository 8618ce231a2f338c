import { adminCaller } from "../http/admin-auth";
import { parseBody, parseParams, parseQuery } from "../http/params";
import { DEFAULT_PAGE_SIZE } from "../kernel/paging";
import { ok } from "../http/responses";
import type { Handler, Route } from "../http/route";
import { toAmountNumber } from "../pricing/money";
import { ledgerEntryView } from "./ledger";
import { adjustWallet, ledgerPage, topUpWallet, walletBalance, type PostingOutcome } from "./posting-actions";
import type { ClientStatement } from "./wallet-registry-store";
import {
  AdjustmentRequest,
  LedgerPage,
  LedgerQuery,
  TopUpRequest,
  WalletBalanceData,
  WalletPathParams,
  WalletPostingData,
} from "./wallet-admin-schemas";
import { walletExamples } from "./wallet-examples";

function postingAnswer(outcome: PostingOutcome, messages: { done: string; replayed: string }): Response {
  const { clientId, currency, balance, entry, replayed } = outcome;
  return ok(replayed ? messages.replayed : messages.done, {
    clientId,
    currency,
    balance: toAmountNumber(balance),
    entry: ledgerEntryView(entry),
    replayed,
  });
}

/**
 * POST /admin/wallets/:clientId/:currency/top-ups: credits a client's wallet, opening it if it is new.
 * The idempotency key makes a retried top-up add nothing; the same key with another amount is 409.
 */
const topUp =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const actor = adminCaller(context);
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const body = await parseBody(TopUpRequest, request, context.env);
    const outcome = await topUpWallet(context.env, clientStatement, actor, { clientId, currency, ...body });
    return postingAnswer(outcome, { done: "Wallet topped up", replayed: "Top-up already applied" });
  };

/**
 * POST /admin/wallets/:clientId/:currency/adjustments: a signed correction of an existing wallet with a
 * reason. Positive credits, negative debits; a debit never takes the balance below zero (400).
 */
const adjust =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const actor = adminCaller(context);
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const body = await parseBody(AdjustmentRequest, request, context.env);
    const outcome = await adjustWallet(context.env, clientStatement, actor, { clientId, currency, ...body });
    return postingAnswer(outcome, { done: "Wallet adjusted", replayed: "Adjustment already applied" });
  };

/** GET /admin/wallets/:clientId/:currency: the balance. */
const getWallet =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const balance = await walletBalance(context.env, clientStatement, clientId, currency);
    return ok("Wallet", { clientId, currency, balance: toAmountNumber(balance) });
  };

/** GET /admin/wallets/:clientId/:currency/ledger?after=&limit=: ledger entries in order, a page at a time. */
const getLedger =
  (clientStatement: ClientStatement): Handler =>
  async (request, context) => {
    const { clientId, currency } = parseParams(WalletPathParams, request);
    const query = parseQuery(LedgerQuery, request);
    const page = await ledgerPage(
      context.env,
      clientStatement,
      clientId,
      currency,
      query.after ?? 0,
      query.limit ?? DEFAULT_PAGE_SIZE,
    );
    return ok("Ledger", { clientId, currency, entries: page.entries.map(ledgerEntryView), next: page.next });
  };

/**
 * The operator's wallet routes, each with its description in GET /openapi.json; clients are looked up with
 * `clientStatement`. The client's GET /wallets is in wallet-routes.ts.
 */
export const walletAdminRoutes = (clientStatement: ClientStatement): Route[] => [
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/top-ups",
    handler: topUp(clientStatement),
    operationId: "adminTopUpWallet",
    example: walletExamples.adminTopUpWallet,
    tag: "Admin: wallets",
    summary: "Credit a wallet (opens it if new)",
    description:
      "One ledger entry per idempotency key, ever: a replay adds nothing and answers the first entry (`replayed: true`); the same key with another amount is 409.",
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
    handler: adjust(clientStatement),
    operationId: "adminAdjustWallet",
    example: walletExamples.adminAdjustWallet,
    tag: "Admin: wallets",
    summary: "Correct a wallet by a signed amount, with a reason",
    description:
      "Positive credits, negative debits; a debit never takes the balance below zero (400 adjustment_below_zero). One ledger entry per idempotency key, ever.",
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
    description:
      "The balance of one wallet of a client; 404 wallet_unknown when the client has no wallet in that currency.",
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
    description:
      "Every entry of the wallet (top-ups, adjustments, order charges, refunds, voids and moves), oldest first, each with the balance after it and the `wallet` object it is in. A wallet moved to another region (POST /admin/clients/{clientId}/region) shows its old object's entries, ending with the `move_out` of its balance, then the new object's, starting with the `move_in` under the same key. Page with `after` (the `next` of the previous page) and `limit`.",
    auth: "admin",
    role: "viewer",
    params: WalletPathParams,
    query: LedgerQuery,
    data: LedgerPage,
    messages: ["Ledger"],
    errors: ["client_not_found", "wallet_unknown"],
  },
];
