/**
 * GET /console/reconciliation: the last reconciliation run (stored by the hourly job or by this page) with
 * its counts and mismatches, each linking to its order's page; POST runs it now over the last day, stores
 * it as the last run and shows it. Any role may run it: it only reads the orders, ledgers and codes, and
 * what it writes is its own result (docs/operator-api.md, Reconciliation).
 */
import { runAndStore } from "../../reconciliation/reconciliation";
import { roleAllows } from "../../operators/roles";
import type { Mismatch } from "../../reconciliation/reconciliation-rules";
import { lastRun, type StoredRun } from "../../reconciliation/reconciliation-store";
import { html, path, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { notice, seeOther, when } from "./parts";

/** The mismatches as a table, each order linking to its page; shared with the home page. */
export function mismatchTable(mismatches: readonly Mismatch[]): Html {
  return html`<table>
    <caption class="hint">What the order index, the wallet ledgers and the codes table disagree on.</caption>
    <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Check</th><th scope="col">Problem</th></tr></thead>
    <tbody>${mismatches.map(
      (row) => html`<tr>
        <td>${row.orderId === null ? "–" : html`<a href="${path("/console/orders", row.orderId)}" class="mono">${row.orderId.slice(0, 16)}…</a>`}</td>
        <td>${row.clientId ?? "–"}</td><td>${row.check}</td><td>${row.problem}</td></tr>`,
    )}</tbody></table>`;
}

/** When the last run was and what it covered, in a sentence. */
export function runSummary(run: StoredRun | null): Html {
  if (run === null) return html`<p>No reconciliation has run yet: the hourly job runs at the start of each hour.</p>`;
  return html`<p>Last run ${when(run.ranAt)}, over orders created from ${when(run.createdFrom)} to ${when(run.createdTo)}:
    ${run.mismatchCount} mismatch${run.mismatchCount === 1 ? "" : "es"}.</p>`;
}

export async function get(ctx: PageContext) {
  const run = await lastRun(ctx.env.DB);
  const checked =
    run === null
      ? html``
      : html`<table>
          <caption class="hint">What the run checked.</caption>
          <tbody>${Object.entries(run.checked).map(
            ([name, count]) => html`<tr><th scope="row">${name}</th><td class="num">${count}</td></tr>`,
          )}</tbody></table>`;
  const body = html`
    ${ctx.url.searchParams.get("done") === "run" ? notice("good", "Reconciliation run over the last day.") : ""}
    ${runSummary(run)}
    <form method="post" action="/console/reconciliation"><button type="submit">Run now over the last day</button></form>
    <section aria-labelledby="mismatches-heading"><h2 id="mismatches-heading">Mismatches (${run?.mismatchCount ?? 0})</h2>
      ${run === null || run.mismatches.length === 0 ? html`<p>No mismatches.</p>` : mismatchTable(run.mismatches)}
      ${run !== null && run.mismatchCount > run.mismatches.length ? html`<p class="hint">The first ${run.mismatches.length} are shown; every one is a log line of the run.</p>` : ""}
    </section>
    <section aria-labelledby="checked-heading"><h2 id="checked-heading">Checked</h2>${checked}</section>`;
  return layout({ title: "Reconciliation", operator: ctx.operator, current: "/console", body });
}

/** POST /console/reconciliation: runs it now over the last day and stores it as the last run. */
export async function post(ctx: PageContext) {
  // Bringing the index up to date writes: only the operator role and above do it first.
  await runAndStore(ctx.env, Date.now(), { indexFirst: roleAllows(ctx.operator.role, "operator") });
  return seeOther("/console/reconciliation?done=run");
}
