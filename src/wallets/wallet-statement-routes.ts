/**
 * The client's own ledger and statements: GET /wallets/:currency/ledger (the operator ledger's shape) and
 * GET /wallets/:currency/statement (CSV). Both read the wallet's ledger through its page read (the wallet
 * object decides which entries a ledger view shows). A currency the client has no wallet in, which
 * includes any other client's wallet, is the same 404 wallet_unknown.
 */
import type { IRequest } from "itty-router";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { csvLine, cell, textCell } from "../kernel/csv-out";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../kernel/paging";
import { Money, minorUnits, toAmountNumber } from "../pricing/money";
import type { LedgerEntry } from "./ledger";
import { findWallet, walletStub, type ClientStatement, type Region } from "./wallet-registry";

const schemas = () => import("./statement-schemas");
const params = () => import("../http/params");
const examples = async () => (await import("./statement-examples")).statementExamples;

/** The client's references of its orders among `orderIds` (the orders' index, handed in by src/app.ts). */
export type OrderReferences = (env: Env, clientId: string, orderIds: readonly string[]) => Promise<Map<string, string>>;

/** The calling client and the wallet currency of the path; 404 wallet_unknown unless the client holds it. */
async function ownWallet(request: IRequest, { env, authenticate }: RequestContext, clientStatement: ClientStatement): Promise<{ clientId: string; currency: string; region: Region | null }> {
  const client = await authenticate();
  const [{ ClientWalletParams }, { parseParams }] = await Promise.all([schemas(), params()]);
  const { currency } = parseParams(ClientWalletParams, request);
  const found = await findWallet(env.DB, clientStatement, client.id, currency);
  if (!found.wallet) fail("wallet_unknown", { clientId: client.id, currency });
  return { clientId: client.id, currency, region: found.region };
}

function ledgerEntryView(entry: LedgerEntry) {
  return { ...entry, amount: toAmountNumber(entry.amount), balanceAfter: toAmountNumber(entry.balanceAfter) };
}

/** GET /wallets/:currency/ledger?after=&limit=: the client's own ledger, oldest first. */
const getOwnLedger =
  (clientStatement: ClientStatement) =>
  async (request: IRequest, context: RequestContext): Promise<Response> => {
    const { clientId, currency, region } = await ownWallet(request, context, clientStatement);
    const [{ LedgerQuery }, { parseQuery }] = await Promise.all([schemas(), params()]);
    const query = parseQuery(LedgerQuery, request);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const entries = (await walletStub(context.env, clientId, currency, region).entries(query.after ?? 0, rowsToFetch(limit))) as LedgerEntry[];
    const page = pageOf(entries, limit, (entry) => entry.seq);
    return ok("Ledger", { clientId, currency, entries: page.items.map(ledgerEntryView), next: page.next });
  };

/** The balance before `from` and the movements from `from` to `to` (inclusive), walking the ledger in pages. */
export async function statementOf(
  wallet: { entries(after: number, limit: number): Promise<LedgerEntry[]> },
  from: number,
  to: number,
  pageSize = 500,
): Promise<{ opening: Money; movements: LedgerEntry[]; closing: Money }> {
  let opening = new Money(0);
  const movements: LedgerEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await wallet.entries(after, pageSize);
    for (const entry of page) {
      if (entry.createdAt < from) opening = new Money(entry.balanceAfter);
      else if (entry.createdAt <= to) movements.push(entry);
    }
    if (page.length < pageSize || page[page.length - 1]!.createdAt > to) break;
    after = page[page.length - 1]!.seq;
  }
  let closing = opening;
  for (const entry of movements) closing = closing.plus(entry.amount);
  return { opening, movements, closing };
}

/** The statement as CSV: the opening balance, one row per movement, the closing balance. */
export function statementCsv(currency: string, from: number, to: number, statement: { opening: Money; movements: LedgerEntry[]; closing: Money }, references: Map<string, string>): string {
  const places = minorUnits(currency);
  const amount = (value: Money | string) => cell(new Money(value).toFixed(places));
  const time = (ms: number) => cell(new Date(ms).toISOString());
  let csv = csvLine(["row", "time", "kind", "orderId", "reference", "reason", "amount", "balanceAfter", "currency"]);
  csv += csvLine(["opening", time(from), "", "", "", "", "", amount(statement.opening), currency]);
  for (const entry of statement.movements) {
    const reference = entry.orderId === null ? "" : textCell(references.get(entry.orderId) ?? "");
    csv += csvLine(["movement", time(entry.createdAt), cell(entry.kind), cell(entry.orderId ?? ""), reference, textCell(entry.reason ?? ""), amount(entry.amount), amount(entry.balanceAfter), currency]);
  }
  csv += csvLine(["closing", time(to), "", "", "", "", "", amount(statement.closing), currency]);
  return csv;
}

/** GET /wallets/:currency/statement?from=&to=: the client's own statement for a period, as CSV. */
const getStatement =
  (clientStatement: ClientStatement, orderReferences: OrderReferences) =>
  async (request: IRequest, context: RequestContext): Promise<Response> => {
    const { clientId, currency, region } = await ownWallet(request, context, clientStatement);
    const [{ StatementQuery }, { parseQuery }] = await Promise.all([schemas(), params()]);
    const { from, to } = parseQuery(StatementQuery, request);
    if (from > to) fail("invalid_parameters", { issues: [{ path: "to", message: "to is before from" }] });
    const statement = await statementOf(walletStub(context.env, clientId, currency, region) as unknown as { entries(after: number, limit: number): Promise<LedgerEntry[]> }, from, to);
    const orderIds = statement.movements.flatMap((entry) => (entry.orderId === null ? [] : [entry.orderId]));
    const references = await orderReferences(context.env, clientId, orderIds);
    return new Response(statementCsv(currency, from, to, statement, references), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="statement-${currency}-${from}-${to}.csv"`,
      },
    });
  };

/** The client's ledger and statement routes; clients are looked up with `clientStatement`, references with `orderReferences`. */
export const walletStatementRoutes = (clientStatement: ClientStatement, orderReferences: OrderReferences): Route[] => [
  {
    method: "GET",
    path: "/wallets/:currency/ledger",
    handler: getOwnLedger(clientStatement),
    operationId: "getLedger",
    example: async () => (await examples()).getLedger,
    tag: "Wallets",
    summary: "Your wallet's ledger, oldest first, a page at a time",
    description:
      "Every movement of money in your wallet in `currency` (top-ups, adjustments, order charges, refunds, and a charge credited back when an order expired), oldest first, each with the balance after it, in the operator ledger's shape. Page with `after` (the `next` of the previous page) and `limit`. A currency you hold no wallet in is 404 wallet_unknown.",
    auth: "apiKey",
    params: async () => (await schemas()).ClientWalletParams,
    query: async () => (await schemas()).LedgerQuery,
    data: async () => (await schemas()).LedgerPage,
    messages: ["Ledger"],
    errors: ["wallet_unknown", "invalid_parameters"],
  },
  {
    method: "GET",
    path: "/wallets/:currency/statement",
    handler: getStatement(clientStatement, orderReferences),
    operationId: "getStatement",
    example: async () => (await examples()).getStatement,
    tag: "Wallets",
    summary: "Your wallet's statement for a period, as CSV",
    description:
      "A CSV statement of your wallet in `currency` from `from` to `to` (Unix ms, inclusive): a header line, an `opening` row with the balance before the period, one `movement` row per ledger movement in it (time, kind, order id, your reference, reason, amount, balance after), and a `closing` row. Opening plus the movements equals closing, to the minor unit. Amounts have the currency's minor units; times are ISO 8601 UTC. A reference or reason that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`. A currency you hold no wallet in is 404 wallet_unknown.",
    auth: "apiKey",
    params: async () => (await schemas()).ClientWalletParams,
    query: async () => (await schemas()).StatementQuery,
    data: null,
    csvAnswer: "A header line (row, time, kind, orderId, reference, reason, amount, balanceAfter, currency), the `opening` row, one `movement` row per ledger movement, the `closing` row.",
    errors: ["wallet_unknown", "invalid_parameters"],
  },
];
