import { fail } from "../kernel/failures";
import { route, type Route } from "../http/route";
import { once } from "../kernel/once";
import { DEFAULT_PAGE_SIZE } from "../kernel/paging";
import { walletBalances } from "./wallet-moves";
import { walletCurrencies, type RegisteredWallet } from "./wallet-registry-store";
import type { OrderReferences } from "./wallet-statement";

// Only GET /openapi.json reads the answers' schemas and the examples: they load with the document. The
// ledger's and the statement's parameters (zod) and readers load with their first request.
const views = () => import("./wallet-schemas");
const books = once(() => Promise.all([import("./wallet-history"), import("./wallet-statement")]));
const examples = async () => (await import("./wallet-examples")).walletExamples;

/**
 * The calling client's wallet in `currency`: 404 wallet_unknown when it has none there, which is also what
 * another client's wallet is (only the caller's own are looked at).
 */
async function callersWallet(env: Env, clientId: string, currency: string): Promise<RegisteredWallet> {
  const wallet = (await walletCurrencies(env.DB, clientId)).find((registered) => registered.currency === currency);
  if (wallet === undefined) fail("wallet_unknown", { clientId, currency });
  return wallet;
}

/** Whether the request asks for JSON rather than the statement's CSV. */
function wantsJson(headers: Headers): boolean {
  const accept = headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/csv");
}

const MOVEMENTS_NOTE =
  "A movement is money in or out of the wallet: a top-up, an adjustment, an order's charge, a refund of a line that could not be fulfilled, the charge of a voided order paid back. Each names its order's `orderId` and your `reference`. A wallet moved to another region by the operator shows no movement for the move, and a marker that keeps a voided order from ever being charged moves no money and is not shown.";

/** GET /wallets/:currency/ledger, described. */
const ledgerRoute = (references: OrderReferences): Route =>
  route(
    {
      method: "GET",
      path: "/wallets/:currency/ledger",
      operationId: "getWalletLedger",
      example: async () => (await examples()).getWalletLedger,
      tag: "Wallets",
      summary: "The movements of one of your wallets, oldest first",
      description: `Every movement of the calling client's wallet in \`currency\`, oldest first, each with the balance right after it. Read from the wallet itself, so always current. ${MOVEMENTS_NOTE} Page with \`limit\` and \`after\` (the \`next\` of the previous page).`,
      auth: "apiKey",
      params: async () => (await views()).ClientWalletParams,
      query: async () => (await views()).ClientLedgerQuery,
      data: async () => (await views()).ClientLedgerPage,
      messages: ["Ledger"],
      checks: [
        { when: "The path's currency and the query's form", codes: ["invalid_parameters"] },
        {
          when: "The calling client has a wallet in that currency (another client's is answered as an unknown one)",
          codes: ["wallet_unknown"],
        },
      ],
    },
    /** The client's movements, oldest first, a page at a time. */
    async ({ params: { currency }, query, client, env, ok }) => {
      const wallet = await callersWallet(env, client.id, currency);
      const [{ movementsPage }, { movementView, orderIdsOf }] = await books();
      const page = await movementsPage(env, client.id, wallet, query.after ?? 0, query.limit ?? DEFAULT_PAGE_SIZE);
      const unnamed = orderIdsOf(page.movements);
      const found = unnamed.length === 0 ? new Map<string, string>() : await references(env, client.id, unnamed);
      return ok("Ledger", {
        currency: wallet.currency,
        movements: page.movements.map((movement) => movementView(movement, found)),
        next: page.next,
      });
    },
  );

/** GET /wallets/:currency/statement, described. */
const statementRoute = (references: OrderReferences): Route =>
  route(
    {
      method: "GET",
      path: "/wallets/:currency/statement",
      operationId: "getWalletStatement",
      example: async () => (await examples()).getWalletStatement,
      tag: "Wallets",
      summary: "A statement of one of your wallets for a period, as CSV",
      description: `The statement of the calling client's wallet in \`currency\` from \`from\` to \`to\` (ms since the epoch, both inclusive), as a CSV download (RFC 4180, CRLF): a header row, the opening balance (the balance just before \`from\`), one row per movement oldest first, and the closing balance, which is the opening balance plus the movements to the minor unit. ${MOVEMENTS_NOTE} A text cell that a spreadsheet would run as a formula (one starting with \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return, after any leading spaces) gets a leading apostrophe, so that it shows as text. With \`Accept: application/json\` the same statement comes as JSON. The rows are streamed as they are read; a download that breaks off midway ends without its closing balance.`,
      auth: "apiKey",
      params: async () => (await views()).ClientWalletParams,
      query: async () => (await views()).StatementQuery,
      data: async () => (await views()).StatementData,
      file: {
        mediaType: "text/csv",
        description:
          "A header row (time, kind, order_id, reference, sku, note, amount, balance_after); an `opening_balance` row; one row per movement, oldest first (times in ISO 8601, UTC); a `closing_balance` row.",
        json: true,
      },
      messages: ["Statement"],
      headers: {
        "Content-Disposition": {
          description: 'For the CSV: `attachment; filename="statement-<currency>-<from>-<to>.csv"`',
          schema: { type: "string" },
        },
      },
      checks: [
        { when: "The path's currency and the query's form (`from` not after `to`)", codes: ["invalid_parameters"] },
        {
          when: "The calling client has a wallet in that currency (another client's is answered as an unknown one)",
          codes: ["wallet_unknown"],
        },
      ],
    },
    /** The statement of a period, streamed as CSV (or JSON). */
    async ({ params: { currency }, query: period, client, env, headers }) => {
      const wallet = await callersWallet(env, client.id, currency);
      const [, { statementStream }] = await books();
      const json = wantsJson(headers);
      const body = statementStream(env, client.id, wallet, period, references, json ? "json" : "csv");
      return new Response(body, {
        headers: json
          ? { "content-type": "application/json; charset=utf-8" }
          : {
              "content-type": "text/csv; charset=utf-8",
              "content-disposition": `attachment; filename="statement-${wallet.currency}-${period.from}-${period.to}.csv"`,
            },
      });
    },
  );

/**
 * This file's routes, each with its description in GET /openapi.json; the operator's are in
 * src/treasury/wallet-admin-routes.ts. The references of orders beside their movements come from the orders
 * (`references`, handed in by src/app.ts).
 */
export const walletRoutes = (references: OrderReferences): Route[] => [
  route(
    {
      method: "GET",
      path: "/wallets",
      operationId: "listWallets",
      example: async () => (await examples()).listWallets,
      tag: "Wallets",
      summary: "The calling client's wallets and balances",
      description:
        "Every wallet of the calling client with its balance, by currency. Pay an order from one of them with `wallet` in POST /order/create.",
      auth: "apiKey",
      data: async () => (await views()).WalletList,
      messages: ["Wallets"],
      errors: [],
    },
    /** The calling client's balances per currency. */
    async ({ client, env, ok }) => ok("Wallets", { wallets: await walletBalances(env, client.id) }),
  ),
  ledgerRoute(references),
  statementRoute(references),
];
