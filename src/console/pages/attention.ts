/**
 * GET /console, the home page: Needs attention. Stuck orders, dead letters waiting, SKUs below their
 * low-stock threshold and wallets below their low-balance threshold (src/attention/attention.ts, the same
 * read as GET /admin/attention), each row linking to the page where it is fixed; and the form that sets a
 * wallet's low-balance threshold (an operator's; a SKU's is on its catalogue page); and the mismatches of
 * the last reconciliation run, with when it ran and a link to run it now.
 */
import { needsAttention, type NewOperator } from "../../attention/attention";
import { setWalletThreshold } from "../../attention/threshold-actions";
import { WalletThresholdRequest } from "../../attention/attention-admin-schemas";
import { roleAllows } from "../../operators/roles";
import { WalletPathParams } from "../../wallets/wallet-admin-schemas";
import { auditedBy } from "../actor";
import { when } from "../format";
import { field, FormError, formRequest, readForm, seeOther } from "../forms";
import { html, htmlResponse, path, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { shownOnForm } from "../refusals";
import { formProblem, input, noticeOf, refusedByRole } from "./parts";
import { mismatchTable, runSummary } from "./reconciliation";
import { glance } from "./figure-charts";

/** Where each row is fixed: the pages of the console that act on it. */
const orderPage = (orderId: string) => path("/console/orders", orderId);
const walletPage = (clientId: string, currency: string) => path("/console/wallets", clientId, currency);
const skuPage = (sku: string) => path("/console/catalogue", sku);

/** The threshold form: drawn again beside what it was refused for, with the values sent. */
interface ThresholdForm {
  refused: FormError | null;
  values: Map<string, string>;
}

function thresholdForm(ctx: PageContext, { refused, values }: ThresholdForm): Html {
  if (!roleAllows(ctx.operator.role, "operator")) return html``;
  return html`<form method="post" action="/console" class="card" aria-labelledby="threshold-heading">
      <h3 id="threshold-heading">Set a wallet's low-balance threshold</h3>
      ${formProblem(refused)}
      ${input("clientId", "Client id", { value: values.get("clientId"), error: refused })}
      ${input("currency", "Currency", { value: values.get("currency"), error: refused, hint: "Three letters, e.g. USD" })}
      ${input("threshold", "Threshold", {
        value: values.get("threshold"),
        error: refused,
        required: false,
        hint: "Listed above while the balance is below this. Leave empty to remove the threshold.",
      })}
      <button type="submit">Save threshold</button>
    </form>`;
}

/**
 * Operators made in live this week (none in the sandbox): a new operator is a credential one person could
 * have made to approve their own postings, so everyone sees each one and who made it.
 */
function newOperatorsSection(operators: NewOperator[]): Html {
  if (operators.length === 0) return html``;
  const rows = operators.map(
    (row) => html`<tr><td>${row.name}</td><td class="mono">${row.id}</td><td>${row.role}</td>
      <td>${row.createdBy ?? "unknown"}</td><td>${when(row.createdAt)}</td></tr>`,
  );
  return html`<section aria-labelledby="operators-heading"><h2 id="operators-heading">Operators created this week (${operators.length})</h2>
    <table><caption class="hint">Each is another credential: check that it is a person you know, made by someone who may. The audit log has each as <span class="mono">operator.create</span>.</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Role</th><th scope="col">Made by</th><th scope="col">When</th></tr></thead>
      <tbody>${rows}</tbody></table></section>`;
}

type Attention = Awaited<ReturnType<typeof needsAttention>>;
type Nothing = (what: string) => ReturnType<typeof html>;

/** The orders whose timers keep failing, each linking to its page. */
function stuckTable(stuckOrders: Attention["stuckOrders"], nothing: Nothing) {
  return stuckOrders.orders.length === 0
    ? nothing("stuck orders")
    : html`<table>
          <caption class="hint">Orders whose timers keep failing; each keeps retrying on its own.</caption>
          <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Timer</th><th scope="col" class="num">Failures</th><th scope="col">Last error</th><th scope="col">Next attempt</th></tr></thead>
          <tbody>${stuckOrders.orders.map(
            (row) => html`<tr>
              <td><a href="${orderPage(row.orderId)}" class="mono">${row.orderId.slice(0, 16)}…</a></td>
              <td>${row.clientId}</td><td>${row.timer}${row.skus.length > 0 ? html` (${row.skus.join(", ")})` : ""}</td>
              <td class="num">${row.failures}</td><td>${row.lastError}</td><td>${when(row.nextAttemptAt)}</td></tr>`,
          )}</tbody></table>
          ${stuckOrders.more ? html`<p><a href="/console/orders">Every stuck order</a></p>` : ""}`;
}

/** The orders that ended failed or partial this week, from the books' exceptions. */
function failedTable(failedOrders: Attention["failedOrders"], nothing: Nothing) {
  return failedOrders.orders.length === 0
    ? nothing("orders that ended failed or partial this week")
    : html`<table>
          <caption class="hint">Orders that ended failed or partial in the last 7 days: their failed lines were refunded to the wallet.</caption>
          <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Reference</th><th scope="col">State</th><th scope="col">Failed lines</th><th scope="col">Ended</th></tr></thead>
          <tbody>${failedOrders.orders.map(
            (row) => html`<tr>
              <td><a href="${orderPage(row.orderId)}" class="mono">${row.orderId.slice(0, 16)}…</a></td>
              <td>${row.clientId}</td><td>${row.reference}</td><td>${row.state}</td>
              <td>${row.lines.map((line, index) => html`${index > 0 ? ", " : ""}${line.quantity} × ${line.sku} (${line.supplier})`)}</td>
              <td>${when(row.foundAt)}</td></tr>`,
          )}</tbody></table>`;
}

async function draw(ctx: PageContext, form: ThresholdForm = { refused: null, values: new Map() }) {
  const { operator, url } = ctx;
  const [data, charts] = await Promise.all([needsAttention(ctx.env), glance(ctx)]);
  const nothing = (what: string) => html`<p>No ${what}.</p>`;

  const stuck = stuckTable(data.stuckOrders, nothing);
  const failed = failedTable(data.failedOrders, nothing);

  const letters =
    data.deadLetters.deadLetters.length === 0
      ? nothing("dead letters waiting")
      : html`<table>
          <caption class="hint">Webhooks that failed every attempt and have not been replayed.</caption>
          <thead><tr><th scope="col">Dead letter</th><th scope="col">Client</th><th scope="col">Event</th><th scope="col">Last error</th><th scope="col">Failed</th></tr></thead>
          <tbody>${data.deadLetters.deadLetters.map(
            (row) => html`<tr>
              <td><a href="/console/dead-letters#dead-letter-${row.id}">Replay #${row.id}</a></td>
              <td>${row.clientId}</td><td>${row.message.event.type}</td><td>${row.lastError}</td><td>${when(row.failedAt)}</td></tr>`,
          )}</tbody></table>
          ${data.deadLetters.more ? html`<p><a href="/console/dead-letters">Every dead letter waiting</a></p>` : ""}`;

  const stock =
    data.lowStock.length === 0
      ? nothing("SKUs below their low-stock threshold")
      : html`<table>
          <thead><tr><th scope="col">SKU</th><th scope="col">Name</th><th scope="col" class="num">Available</th><th scope="col" class="num">Threshold</th><th scope="col">Available per value</th></tr></thead>
          <tbody>${data.lowStock.map(
            (row) => html`<tr>
              <td><a href="${skuPage(row.sku)}">${row.sku}</a></td><td>${row.name}</td>
              <td class="num">${row.available}</td><td class="num">${row.threshold}</td>
              <td>${row.byValue.map((value, index) => html`${index > 0 ? ", " : ""}${value.value}: ${value.available}`)}</td></tr>`,
          )}</tbody></table>`;

  const wallets =
    data.lowBalance.length === 0
      ? nothing("wallets below their low-balance threshold")
      : html`<table>
          <thead><tr><th scope="col">Wallet</th><th scope="col" class="num">Balance</th><th scope="col" class="num">Threshold</th></tr></thead>
          <tbody>${data.lowBalance.map(
            (row) => html`<tr>
              <td><a href="${walletPage(row.clientId, row.currency)}">${row.clientId} ${row.currency}</a></td>
              <td class="num">${row.balance}</td><td class="num">${row.threshold}</td></tr>`,
          )}</tbody></table>`;

  const run = data.reconciliation;
  const shown = run?.mismatches.slice(0, 50) ?? [];
  const reconciliation = html`${runSummary(run)}
    ${shown.length === 0 ? nothing("reconciliation mismatches") : mismatchTable(shown)}
    <p><a href="/console/reconciliation">${run !== null && run.mismatchCount > shown.length ? "Every stored mismatch, and run it now" : "Run the reconciliation now"}</a></p>`;

  const body = html`
    ${noticeOf(url, { threshold: "Threshold saved." })}
    <section aria-labelledby="stuck-heading"><h2 id="stuck-heading">Stuck orders (${data.stuckOrders.orders.length}${data.stuckOrders.more ? "+" : ""})</h2>${stuck}</section>
    <section aria-labelledby="failed-heading"><h2 id="failed-heading">Failed and partial orders (${data.failedOrders.orders.length}${data.failedOrders.more ? "+" : ""})</h2>${failed}</section>
    <section aria-labelledby="letters-heading"><h2 id="letters-heading">Dead letters waiting (${data.deadLetters.deadLetters.length}${data.deadLetters.more ? "+" : ""})</h2>${letters}</section>
    <section aria-labelledby="stock-heading"><h2 id="stock-heading">Low stock (${data.lowStock.length})</h2>${stock}</section>
    <section aria-labelledby="wallets-heading"><h2 id="wallets-heading">Low balances (${data.lowBalance.length})</h2>${wallets}${thresholdForm(ctx, form)}</section>
    ${newOperatorsSection(data.newOperators)}
    <section aria-labelledby="reconciliation-heading"><h2 id="reconciliation-heading">Reconciliation mismatches (${run?.mismatchCount ?? 0})</h2>${reconciliation}</section>${charts}`;
  return layout({ title: "Needs attention", operator, current: "/console", body });
}

export function get(ctx: PageContext) {
  return draw(ctx);
}

const WALLET_WORDS = {
  clientId: "A client id and a three-letter currency are needed.",
  currency: "A client id and a three-letter currency are needed.",
};
const THRESHOLD_WORDS = { threshold: "The threshold is a positive amount like 250 or 99.50." };

/** POST /console: sets (or, empty, removes) a wallet's low-balance threshold. */
export async function post(ctx: PageContext) {
  if (!roleAllows(ctx.operator.role, "operator")) return refusedByRole(ctx, "operator");
  let values = new Map<string, string>();
  try {
    values = await readForm(ctx.request);
    const clientId = field(values, "clientId", { required: false });
    const currency = field(values, "currency", { required: false }).toUpperCase();
    const threshold = field(values, "threshold", { required: false });
    // The wallet and the threshold, read as PUT /admin/wallets/:clientId/:currency/low-balance-threshold reads them.
    const wallet = formRequest(WalletPathParams, { clientId, currency }, WALLET_WORDS);
    const request = formRequest(
      WalletThresholdRequest,
      { threshold: threshold === "" ? null : threshold },
      THRESHOLD_WORDS,
    );
    const refused = [wallet, request].find((read) => read instanceof FormError);
    if (refused !== undefined) throw refused;
    await setWalletThreshold(ctx.env, auditedBy(ctx), clientId, currency, threshold === "" ? null : threshold);
    return seeOther("/console?notice=threshold");
  } catch (error) {
    const refused = shownOnForm(error, ["clientId", "currency", "threshold"]);
    if (refused === null) throw error;
    return htmlResponse(await draw(ctx, { refused, values }), 400);
  }
}
