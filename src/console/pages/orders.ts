/**
 * GET /console/orders: the order search over the client's books (client, state, SKU, created from/to,
 * a client's reference prefix), newest first, a page at a time, each order linking to its page, with the
 * same filters as a CSV download (orders-export.ts); an order by its id; and the stuck list. It reads
 * what GET /admin/orders/search reads (src/order-index/order-search.ts): one client's books, or every
 * client's in bounded steps (a day of more shards than a page opens asks for the client).
 *
 * The books hold every order in every state, each written by the order itself within seconds of each
 * change; the page says how current they are (their newest order, and the open orders as the shards last
 * published their figures, within the hour). An order
 * whose row is not written yet (created a moment ago) may be missing, so when a client and a reference are
 * given and no listed order has exactly that reference, the order object named by them is asked as well
 * (the exact lookup the operator API has) and shown above the results.
 */
import { openOrdersSince } from "../../books/directory-store";
import { DAY_MS as BOOKS_DAY_MS, dayOf } from "../../books/shard-rules";
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../../kernel/paging";
import { ClientIdParam, Sku } from "../../kernel/primitives";
import { IndexedState } from "../../order-index/order-search-admin-schemas";
import { objectIdOf, orderObjectName } from "../../orders/order-id";
import { cursorText, parseCursor, type IndexCursor, type IndexFilter } from "../../order-index/order-index-store";
import type { OrderRecord } from "../../orders/order-record";
import { filterProblem, searchOrders, SEARCH_PAGE_SIZE, TooManyShards } from "../../order-index/order-search";
import { listTimerFailures } from "../../orders/timer-failure-store";
import { input } from "./parts";
import { amount, when } from "../format";
import { FormError, seeOther } from "../forms";
import { html, path, withQuery, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The order a client created with `reference`, or null. */
async function orderOfReference(env: Env, clientId: string, reference: string): Promise<OrderRecord | null> {
  return (await env.ORDERS.get(
    env.ORDERS.idFromName(orderObjectName(clientId, reference)),
  ).record()) as OrderRecord | null;
}

/** The search's fields as given (trimmed), for the form and the links. */
export interface OrderSearchFields {
  clientId: string;
  state: string;
  sku: string;
  createdFrom: string;
  createdTo: string;
  reference: string;
}

/** A problem with one field, shown beside it. */
export interface FieldProblem {
  field: keyof OrderSearchFields | "after" | "orderId";
  text: string;
}

/**
 * The index filter of a query string, and what is wrong with any field (a date that is not a date, a
 * reference prefix without its client). The dates are days (UTC): "to" takes in the whole of its day.
 */
export function orderFiltersOf(url: URL): { fields: OrderSearchFields; filter: IndexFilter; problems: FieldProblem[] } {
  const text = (name: string) => (url.searchParams.get(name) ?? "").trim().slice(0, 300);
  const fields: OrderSearchFields = {
    clientId: text("clientId"),
    state: text("state"),
    sku: text("sku"),
    createdFrom: text("createdFrom"),
    createdTo: text("createdTo"),
    reference: text("reference"),
  };
  const filter: IndexFilter = {};
  const problems: FieldProblem[] = [];
  if (fields.clientId !== "") {
    if (ClientIdParam.safeParse(fields.clientId).success) filter.clientId = fields.clientId;
    else problems.push({ field: "clientId", text: "A client id is letters, digits, _ and -." });
  }
  if (fields.state !== "") {
    const state = IndexedState.safeParse(fields.state);
    if (state.success) filter.state = state.data;
    else problems.push({ field: "state", text: "Pick one of the states listed." });
  }
  if (fields.sku !== "") {
    if (Sku.safeParse(fields.sku).success) filter.sku = fields.sku;
    else problems.push({ field: "sku", text: "A SKU is letters, digits, '.', '_' and '-'." });
  }
  const day = (name: "createdFrom" | "createdTo") => {
    const value = fields[name];
    if (value === "") return undefined;
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(ms)) problems.push({ field: name, text: "A date like 2026-11-25." });
    return Number.isNaN(ms) ? undefined : ms;
  };
  const from = day("createdFrom");
  const to = day("createdTo");
  if (from !== undefined) filter.createdFrom = from;
  if (to !== undefined) filter.createdTo = to + DAY_MS - 1;
  if (fields.reference !== "") {
    filter.reference = fields.reference;
    const problem = filterProblem(filter);
    if (problem !== null) problems.push({ field: "reference", text: "Give the client id with a reference prefix." });
  }
  return { fields, filter, problems };
}

function searched(fields: OrderSearchFields): boolean {
  return Object.values(fields).some((value) => value !== "");
}

/** The stuck list (its own paging: `stuckAfter`). */
async function stuckList(env: Env, url: URL): Promise<Html> {
  const after = (url.searchParams.get("stuckAfter") ?? "").trim().slice(0, 200);
  const rows = await listTimerFailures(env.DB, after === "" ? null : after, rowsToFetch(DEFAULT_PAGE_SIZE));
  const page = pageOf(rows, DEFAULT_PAGE_SIZE, (row) => row.orderId);
  if (page.items.length === 0) return html`<p>No order is stuck.</p>`;
  return html`<table><caption>Stuck orders: a timer failing 3 times or more in a row, or supplier lines of unknown outcome</caption>
    <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Timer</th><th scope="col" class="num">Failures</th>
    <th scope="col">Last error</th><th scope="col">Since</th><th scope="col">Next attempt</th></tr></thead>
    <tbody>${page.items.map(
      (
        row,
      ) => html`<tr><td><a href="${path("/console/orders", row.orderId)}">${row.orderId}</a></td><td>${row.clientId}</td>
        <td>${row.timer}${row.skus.length > 0 ? html` (${row.skus.join(", ")})` : ""}</td><td class="num">${row.failures}</td>
        <td>${row.lastError}</td><td>${when(row.firstFailedAt)}</td><td>${when(row.nextAttemptAt)}</td></tr>`,
    )}</tbody></table>
    ${page.next !== null ? html`<p><a href="${withQuery("/console/orders", { stuckAfter: page.next })}">More stuck orders</a></p>` : ""}`;
}

/** One row of the results: the order as the index lists it, linking to its page. */
interface ResultRow {
  id: string;
  clientId: string;
  reference: string;
  state: string;
  wallet: string;
  total: string;
  /** Null for an order found by its reference outside the index: the page of the order says. */
  charged: string | null;
  refunded: string | null;
  skus: string[];
  createdAt: number;
}

function money(value: string | null, currency: string): string {
  return value === null ? "—" : amount(value, currency);
}

function resultsTable(caption: string, rows: ResultRow[]): Html {
  return html`<table><caption>${caption}</caption>
    <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Reference</th><th scope="col">State</th>
    <th scope="col" class="num">Total</th><th scope="col" class="num">Charged</th><th scope="col" class="num">Refunded</th>
    <th scope="col">SKUs</th><th scope="col">Created</th></tr></thead>
    <tbody>${rows.map(
      (row) => html`<tr><td><a href="${path("/console/orders", row.id)}" class="mono">${row.id.slice(0, 16)}…</a></td>
        <td>${row.clientId}</td><td>${row.reference}</td><td>${row.state}</td>
        <td class="num">${amount(row.total, row.wallet)}</td><td class="num">${money(row.charged, row.wallet)}</td>
        <td class="num">${money(row.refunded, row.wallet)}</td><td>${row.skus.join(", ")}</td><td>${when(row.createdAt)}</td></tr>`,
    )}</tbody></table>`;
}

/**
 * An order created a moment ago may not have written its row yet: with a client and a reference and no
 * listed order of exactly that reference, the object they name is asked and shown above the results.
 */
async function exactReference(env: Env, filter: IndexFilter, listed: string[]): Promise<Html | ""> {
  if (filter.clientId === undefined || filter.reference === undefined || listed.includes(filter.reference)) return "";
  const exact = await orderOfReference(env, filter.clientId, filter.reference);
  if (exact === null) return "";
  return html`<section aria-labelledby="exact-title"><h3 id="exact-title">Found by its exact reference</h3>
    <p>This order is not in the index yet (its row is written within seconds of its create).</p>
    ${resultsTable("The order with exactly this reference", [
      {
        id: exact.id,
        clientId: exact.clientId,
        reference: exact.reference,
        state: exact.state,
        wallet: exact.wallet,
        total: exact.charge,
        charged: null,
        refunded: null,
        skus: [...new Set(exact.lines.map((line) => line.sku))],
        createdAt: exact.createdAt,
      },
    ])}</section>`;
}

/** What is wrong with a field, beside it. */
function problemText(problems: FieldProblem[], field: FieldProblem["field"]): Html | "" {
  const problem = problems.find((item) => item.field === field);
  return problem === undefined ? "" : html`<p id="field-${field}-error" class="error">${problem.text}</p>`;
}

/** A field's attributes when it has a problem, tying it to the problem's words. */
function invalid(problems: FieldProblem[], field: FieldProblem["field"]): Html | "" {
  return problems.some((item) => item.field === field)
    ? html`aria-invalid="true" aria-describedby="field-${field}-error"`
    : "";
}

function searchForm(fields: OrderSearchFields, problems: FieldProblem[]): Html {
  const search = (name: keyof OrderSearchFields, label: string, type = "text", hint?: string) => {
    const problem = problems.find((item) => item.field === name);
    const error = problem === undefined ? null : new FormError(name, problem.text);
    return input(name, label, { type, hint, value: fields[name], error, required: false });
  };
  const states = IndexedState.options.map(
    (state) => html`<option value="${state}" ${fields.state === state ? html`selected` : ""}>${state}</option>`,
  );
  return html`<form method="get" action="/console/orders" class="card" role="search" aria-label="Search orders">
      <h2>Search orders</h2>
      ${search("clientId", "Client id")}
      <div class="field"><label for="field-state">State</label>
        <select id="field-state" name="state" ${invalid(problems, "state")}><option value="">any</option>${states}</select>${problemText(problems, "state")}</div>
      ${search("sku", "SKU")}
      ${search("createdFrom", "Created from", "date", "The first day, UTC.")}
      ${search("createdTo", "Created to", "date", "The last day, UTC (the whole day).")}
      ${search("reference", "Reference starts with", "text", "Needs the client id.")}
      ${problemText(problems, "after")}
      <button type="submit">Search</button>
    </form>`;
}

function idForm(orderId: string, problems: FieldProblem[]): Html {
  return html`<form method="get" action="/console/orders" class="card" role="search" aria-label="Find an order by id">
      <h2>By order id</h2>
      <div class="field">
        <label for="field-orderId">Order id</label>
        <input id="field-orderId" name="orderId" value="${orderId}" required ${invalid(problems, "orderId")} />
        ${problemText(problems, "orderId")}
      </div>
      <button type="submit">Open the order</button>
    </form>`;
}

/** The search's results (nothing when nothing was searched); a search too wide is a problem of the client id. */
async function results(env: Env, search: OrderSearch): Promise<Html> {
  const { fields, filter, after, problems } = search;
  if (!searched(fields) || problems.length > 0) return html``;
  const found = await searchOrders(env, filter, after, SEARCH_PAGE_SIZE).catch((error: unknown) => {
    if (!(error instanceof TooManyShards)) throw error;
    problems.push({
      field: "clientId",
      text: "Too many clients have orders on one of these days: give the client id.",
    });
    return null;
  });
  if (found === null) return html``;
  const listed: ResultRow[] = found.rows;
  const next = found.next === null ? null : cursorText(found.next);
  const exactBlock =
    after === null
      ? await exactReference(
          env,
          filter,
          listed.map((row) => row.reference),
        )
      : "";
  return html`<section aria-labelledby="results-title"><h2 id="results-title">Results</h2>
      ${exactBlock}
      ${
        listed.length === 0
          ? html`<p>No order in the index matches${after !== null ? " after the last page" : ""}.</p>`
          : resultsTable(`Orders in the index, newest first (${listed.length} on this page)`, listed)
      }
      <p>
        ${next !== null ? html`<a href="${withQuery("/console/orders", { ...fields, after: next })}">Next page</a> · ` : ""}
        <a href="${withQuery("/console/orders/export", { ...fields })}" download>Download CSV</a> (every order these filters select)
      </p></section>`;
}

/** A search as the query string gives it: its fields, the index filter, the page it starts after, and its problems. */
interface OrderSearch {
  orderId: string;
  fields: OrderSearchFields;
  filter: IndexFilter;
  after: IndexCursor | null;
  problems: FieldProblem[];
}

async function draw({ env, operator, url }: PageContext, search: OrderSearch): Promise<Html> {
  const found = await results(env, search);
  const body = html`
    <p class="notice">The search reads the clients' books (the order index), which hold every order in every state:
      each order writes its row within a few seconds of each change (under 10 s), with no step of yours. Open
      orders are counted as the books last published their figures (within the hour).
      ${freshnessText(await booksFreshness(env), Date.now())}</p>
    ${searchForm(search.fields, search.problems)}
    ${found}
    ${idForm(search.orderId, search.problems)}
    <section aria-labelledby="stuck-title"><h2 id="stuck-title">Stuck orders</h2>${await stuckList(env, url)}</section>`;
  return layout({ title: "Orders", operator, current: "/console/orders", body });
}

export async function get(ctx: PageContext) {
  const { env, url } = ctx;
  // An order by its id: its page, as before.
  const orderId = (url.searchParams.get("orderId") ?? "").trim().slice(0, 200);
  if (orderId !== "" && objectIdOf(env.ORDERS, orderId) !== null) return seeOther(path("/console/orders", orderId));
  const { fields, filter, problems } = orderFiltersOf(url);
  const afterText = (url.searchParams.get("after") ?? "").trim().slice(0, 200);
  const after = afterText === "" ? null : parseCursor(afterText);
  if (afterText !== "" && after === null)
    problems.push({ field: "after", text: "That page link is not one this page made: search again." });
  if (orderId !== "")
    problems.push({ field: "orderId", text: "Not an order id (they look like ord_ and 64 hex digits)." });
  return draw(ctx, { orderId, fields, filter, after, problems });
}

/**
 * How current the books are: the creation time of their newest order (a page of one across clients; null
 * when the newest day is too wide to read so) and the open orders of the last 31 days as last published.
 */
async function booksFreshness(env: Env): Promise<{ newestCreatedAt: number | null; open: number }> {
  const newest = await searchOrders(env, {}, null, 1).catch((error: unknown) => {
    if (error instanceof TooManyShards) return { rows: [{ createdAt: error.day * BOOKS_DAY_MS }] };
    throw error;
  });
  const open = await openOrdersSince(env.DB, dayOf(Date.now()) - 30);
  return { newestCreatedAt: newest.rows[0]?.createdAt ?? null, open };
}

/** How current the index is, in words: its newest order and the orders it holds as still open. */
export function freshnessText(freshness: { newestCreatedAt: number | null; open: number }, now: number): Html {
  if (freshness.newestCreatedAt === null) return html`It holds no order yet.`;
  const seconds = Math.max(0, Math.round((now - freshness.newestCreatedAt) / 1000));
  const ago =
    seconds < 120
      ? `${seconds} s ago`
      : seconds < 7200
        ? `${Math.round(seconds / 60)} min ago`
        : `${Math.round(seconds / 3600)} h ago`;
  return html`Its newest order was created ${ago} (${when(freshness.newestCreatedAt)}); ${freshness.open} ${freshness.open === 1 ? "order is" : "orders are"} still open in it.`;
}
