/**
 * GET /console/reconciliation: the last stored reconciliation pass (the scheduled one's, or an operator's from
 * this page) with its alerts, counts and the mismatches standing, each linking to its order's page. POST
 * runs it now, at most 3 times a minute per operator: the operator role and above run it from the
 * checkpoint and store it (what the home page shows); a viewer's run checks the changes of the last day,
 * reads only, and is shown here without being stored (docs/operator-api.md, Reconciliation).
 */
import { reconcile, runAndStore, takeOnDemandRun, type Reconciliation } from "../../reconciliation/reconciliation";
import { roleAllows } from "../../operators/roles";
import { ON_DEMAND_PERIOD_MS, type Checked, type Mismatch } from "../../reconciliation/reconciliation-rules";
import { lastRun, type StoredRun } from "../../reconciliation/reconciliation-store";
import { when } from "../format";
import { seeOther } from "../forms";
import { html, htmlResponse, path, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { notice, noticeOf } from "./parts";
/** The mismatches as a table, each order linking to its page; shared with the home page. */
export function mismatchTable(mismatches: readonly Mismatch[]): Html {
  return html`<table>
    <caption class="hint">What the books, the wallet ledgers, the codes table and the audit log disagree on.</caption>
    <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Check</th><th scope="col">Problem</th></tr></thead>
    <tbody>${mismatches.map(
      (row) => html`<tr>
        <td>${row.orderId === null ? "–" : html`<a href="${path("/console/orders", row.orderId)}" class="mono">${row.orderId.slice(0, 16)}…</a>`}</td>
        <td>${row.clientId ?? "–"}</td><td>${row.check}</td><td>${row.problem}</td></tr>`,
    )}</tbody></table>`;
}

/** When the last run was and what it covered, in a sentence, and its alert lines. */
export function runSummary(run: StoredRun | null): Html {
  if (run === null) return html`<p>No reconciliation has run yet: the scheduled pass runs every 5 minutes.</p>`;
  return html`<p>Last run ${when(run.ranAt)}, over changes from ${when(run.createdFrom)} to ${when(run.createdTo)}:
    ${run.mismatchCount} mismatch${run.mismatchCount === 1 ? "" : "es"} standing.</p>
    ${run.alerts.map((alert) => notice("bad", alert))}`;
}

function checkedTable(checked: Checked): Html {
  return html`<table>
    <caption class="hint">What the run checked.</caption>
    <tbody>${Object.entries(checked).map(
      ([name, count]) => html`<tr><th scope="row">${name}</th><td class="num">${count}</td></tr>`,
    )}</tbody></table>`;
}

function draw(ctx: PageContext, top: Html, run: StoredRun | null, viewed: Reconciliation | null): Html {
  const mismatches: readonly Mismatch[] = viewed?.mismatches ?? run?.mismatches ?? [];
  const count = viewed?.mismatches.length ?? run?.mismatchCount ?? 0;
  const checked = viewed?.checked ?? run?.checked;
  const body = html`
    ${top}
    ${runSummary(run)}
    <form method="post" action="/console/reconciliation"><button type="submit">Run now over the last day</button></form>
    <section aria-labelledby="mismatches-heading"><h2 id="mismatches-heading">Mismatches (${count})</h2>
      ${mismatches.length === 0 ? html`<p>No mismatches.</p>` : mismatchTable(mismatches)}
      ${viewed === null && run !== null && run.mismatchCount > run.mismatches.length ? html`<p class="hint">The first ${run.mismatches.length} are shown; every one is a log line of the run that found it.</p>` : ""}
    </section>
    <section aria-labelledby="checked-heading"><h2 id="checked-heading">Checked</h2>${checked === undefined ? "" : checkedTable(checked)}</section>`;
  return layout({ title: "Reconciliation", operator: ctx.operator, current: "/console", body });
}

export async function get(ctx: PageContext) {
  const top = noticeOf(ctx.url, { run: "Reconciliation run and stored." });
  return draw(ctx, top, await lastRun(ctx.env.DB), null);
}

/**
 * POST /console/reconciliation: runs it now. Storing a run changes what the home page shows, so only the
 * operator role and above store theirs; a viewer's is answered here and stored nowhere.
 */
export async function post(ctx: PageContext) {
  const now = Date.now();
  if (!(await takeOnDemandRun(ctx.env.DB, `operator:${ctx.operator.operatorId}`, now))) {
    const refused = notice(
      "bad",
      "The reconciliation was run 3 times in the last minute: wait a minute and run it again.",
    );
    return htmlResponse(draw(ctx, refused, await lastRun(ctx.env.DB), null), 429, { "retry-after": "60" });
  }
  if (roleAllows(ctx.operator.role, "operator")) {
    await runAndStore(ctx.env, now);
    return seeOther("/console/reconciliation?notice=run");
  }
  const viewed = await reconcile(ctx.env, { createdFrom: now - ON_DEMAND_PERIOD_MS, createdTo: now }, now);
  return draw(
    ctx,
    notice(
      "good",
      `Checked the changes of the last day${viewed.complete ? "" : " (as far as one run's budget reaches)"}; nothing was stored: the home page shows the last hourly run.`,
    ),
    await lastRun(ctx.env.DB),
    viewed,
  );
}
