import { route, type Route } from "../http/route";
import { DEFAULT_PAGE_SIZE } from "../kernel/paging";
import { toAmountNumber } from "../pricing/money";
import { ledgerEntryView } from "../wallets/ledger";
import { adjustWallet, ledgerPage, topUpWallet, walletBalance, type PostingAnswer } from "./posting-actions";
import { postingRequestView } from "./approval-views";
import {
  AdjustmentRequest,
  LedgerPage,
  LedgerQuery,
  TopUpRequest,
  WalletBalanceData,
  WalletPathParams,
  WalletPostingData,
} from "../wallets/wallet-admin-schemas";
import { walletExamples } from "../wallets/wallet-examples";

/**
 * A posting's answer: its entry, or the posting request it became beyond what its requester may move
 * alone, with the message of each (`done` and `replayed` are the route's own).
 */
function postingAnswer<M extends string>(outcome: PostingAnswer, messages: { done: M; replayed: M }) {
  const { clientId, currency, balance, replayed } = outcome;
  if (outcome.held)
    return {
      message: replayed ? ("Posting request already made" as const) : ("Posting awaits approval" as const),
      data: {
        clientId,
        currency,
        balance: toAmountNumber(balance),
        entry: null,
        request: postingRequestView(outcome.request, Date.now()),
        replayed,
      },
    };
  return {
    message: replayed ? messages.replayed : messages.done,
    data: {
      clientId,
      currency,
      balance: toAmountNumber(balance),
      entry: ledgerEntryView(outcome.entry),
      request: null,
      replayed,
    },
  };
}

/** The wallet's reads (balance, ledger), described for GET /openapi.json. */
const readRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/wallets/:clientId/:currency",
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
    /** GET /admin/wallets/:clientId/:currency: the balance. */
    async ({ params: { clientId, currency }, env, ok }) => {
      const balance = await walletBalance(env, clientId, currency);
      return ok("Wallet", { clientId, currency, balance: toAmountNumber(balance) });
    },
  ),
  route(
    {
      method: "GET",
      path: "/admin/wallets/:clientId/:currency/ledger",
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
    /** GET /admin/wallets/:clientId/:currency/ledger?after=&limit=: ledger entries in order, a page at a time. */
    async ({ params: { clientId, currency }, query, env, ok }) => {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const page = await ledgerPage(env, clientId, currency, query.after ?? 0, limit);
      return ok("Ledger", { clientId, currency, entries: page.entries.map(ledgerEntryView), next: page.next });
    },
  ),
];

/** POST /admin/wallets/:clientId/:currency/top-ups, described for GET /openapi.json. */
const topUpRoute: Route = route(
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/top-ups",
    operationId: "adminTopUpWallet",
    example: walletExamples.adminTopUpWallet,
    tag: "Admin: wallets",
    summary: "Credit a wallet (opens it if new)",
    description:
      "One ledger entry per idempotency key, ever: a replay adds nothing and answers the first entry (`replayed: true`); the same key with another amount is 409. Dual control: what one credential moves alone in a currency in any 24 hours is at most the currency's approval limit (GET /admin/approval-limits; in live, a currency without one makes every posting wait). Beyond what is left of it nothing is posted: the answer's `request` is a posting request that another person approves (POST /admin/posting-requests/{id}/approve) within 24 hours, and `entry` is null; a request under a key the wallet already holds an entry for is 409 idempotency_key_posted. `reason` stays inside (the operators' ledger and the audit log); the optional `note` is what the client's own ledger and statement show.",
    auth: "admin",
    role: "operator",
    params: WalletPathParams,
    body: TopUpRequest,
    data: WalletPostingData,
    messages: ["Wallet topped up", "Top-up already applied", "Posting awaits approval", "Posting request already made"],
    errors: ["client_not_found", "idempotency_conflict", "idempotency_key_posted"],
  },
  /**
   * Credits a client's wallet, opening it if it is new. The idempotency key makes a retried top-up add
   * nothing; the same key with another amount is 409.
   */
  async ({ params, body, caller, env, ok }) => {
    const outcome = await topUpWallet(env, caller, { ...params, ...body });
    const answer = postingAnswer(outcome, { done: "Wallet topped up", replayed: "Top-up already applied" });
    return ok(answer.message, answer.data);
  },
);

/** POST /admin/wallets/:clientId/:currency/adjustments, described for GET /openapi.json. */
const adjustRoute: Route = route(
  {
    method: "POST",
    path: "/admin/wallets/:clientId/:currency/adjustments",
    operationId: "adminAdjustWallet",
    example: walletExamples.adminAdjustWallet,
    tag: "Admin: wallets",
    summary: "Correct a wallet by a signed amount, with a reason",
    description:
      "Positive credits, negative debits; a debit never takes the balance below zero (400 adjustment_below_zero). One ledger entry per idempotency key, ever. Its absolute value counts in the caller's 24-hour window as a top-up does, and beyond what is left of it the adjustment waits for another person (`request`, `entry` null). `reason` stays inside; the optional `note` is what the client sees.",
    auth: "admin",
    role: "operator",
    params: WalletPathParams,
    body: AdjustmentRequest,
    data: WalletPostingData,
    messages: [
      "Wallet adjusted",
      "Adjustment already applied",
      "Posting awaits approval",
      "Posting request already made",
    ],
    errors: [
      "adjustment_below_zero",
      "client_not_found",
      "wallet_unknown",
      "idempotency_conflict",
      "idempotency_key_posted",
    ],
  },
  /**
   * A signed correction of an existing wallet with a reason. Positive credits, negative debits; a debit
   * never takes the balance below zero (400).
   */
  async ({ params, body, caller, env, ok }) => {
    const outcome = await adjustWallet(env, caller, { ...params, ...body });
    const answer = postingAnswer(outcome, { done: "Wallet adjusted", replayed: "Adjustment already applied" });
    return ok(answer.message, answer.data);
  },
);

/**
 * The operator's wallet routes, each with its description in GET /openapi.json; a wallet's client is read
 * from the clients' store (treasury is listed below clients). The client's GET /wallets is in wallet-routes.ts.
 */
export const walletAdminRoutes: Route[] = [topUpRoute, adjustRoute, ...readRoutes];
