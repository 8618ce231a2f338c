/**
 * /console/limits: the approval limit of each currency (what one person may move alone in any 24 hours)
 * with what the signed-in operator may still move alone, the limit changes waiting for a second admin with
 * Approve and Reject, and an admin's form to change a limit. Lowering takes effect at once; raising waits
 * for another admin here, as a posting request waits on its wallet's page (dual control,
 * treasury/approval-actions.ts).
 */
import { Refusal } from "../../kernel/failures";
import { roleAllows } from "../../operators/roles";
import { serviceMode } from "../../kernel/service-mode";
import { decideLimit, limitsLeftFor, setApprovalLimit } from "../../treasury/approval-actions";
import {
  ApprovalLimitParams,
  LimitRequestParams,
  SetApprovalLimitRequest,
} from "../../treasury/approval-admin-schemas";
import { listLimitRequests, type LimitRequest } from "../../treasury/limit-request-store";
import { auditedBy } from "../actor";
import { amount, when } from "../format";
import { asJson, FormError, formRequest, readForm, seeOther } from "../forms";
import { html, htmlResponse, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { refusalText } from "../refusals";
import { decideButton, notice, noticeOf } from "./parts";

const NOTICES = {
  lowered: "The limit was changed: it holds from the next posting.",
  asked: "Raising (or removing) a limit waits for a second admin: the request is listed below.",
  same: "The limit already was so: nothing changed.",
  approved: "The limit change was approved: the new limit holds from the next posting.",
  rejected: "The limit change was rejected: the limit stays as it was.",
};

function limitsTable(rows: Awaited<ReturnType<typeof limitsLeftFor>>, live: boolean): Html {
  const without = live
    ? "A currency not listed has no limit: every posting in it waits for a second person."
    : "A currency not listed has no limit: its postings go through alone (the sandbox).";
  if (rows.length === 0) return html`<p>No currency has a limit. ${without}</p>`;
  const lines = rows.map(
    (row) => html`<tr><td>${row.currency}</td><td class="num">${amount(row.limit, row.currency)}</td>
      <td class="num">${amount(row.left, row.currency)}</td><td>${when(row.updatedAt)}</td></tr>`,
  );
  return html`<table><caption>What one person may move alone in any 24 hours, per currency</caption>
    <thead><tr><th scope="col">Currency</th><th scope="col" class="num">Limit</th><th scope="col" class="num">Left for you now</th>
    <th scope="col">Set</th></tr></thead><tbody>${lines}</tbody></table><p class="hint">${without}</p>`;
}

function requestsTable(requests: LimitRequest[], ctx: PageContext): Html {
  if (requests.length === 0) return html`<p>No limit change waits for a second admin.</p>`;
  const admin = roleAllows(ctx.operator.role, "admin");
  const rows = requests.map((request) => {
    const own = request.requestedBy === `operator:${ctx.operator.operatorId}`;
    const decide = (action: "approve" | "reject", label: string) =>
      decideButton(action, request.id, label, "limit request");
    const action = !admin
      ? html`<span class="hint">needs the admin role</span>`
      : own
        ? html`<span class="hint">yours: another admin decides it</span>`
        : html`${decide("approve", "Approve")} ${decide("reject", "Reject")}`;
    const shown = (value: string | null) => (value === null ? "none" : amount(value, request.currency));
    return html`<tr><td class="num">${request.id}</td><td>${request.currency}</td><td class="num">${shown(request.previous)}</td>
      <td class="num">${shown(request.amount)}</td><td>${request.requestedByName ?? request.requestedBy}, ${when(request.requestedAt)}</td>
      <td>waiting until ${when(request.expiresAt)}</td><td>${action}</td></tr>`;
  });
  return html`<table><caption>Limit changes waiting for a second admin</caption>
    <thead><tr><th scope="col" class="num">#</th><th scope="col">Currency</th><th scope="col" class="num">From</th><th scope="col" class="num">To</th>
    <th scope="col">Asked by</th><th scope="col">State</th><th scope="col">Decide</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const setForm = html`<form method="post" class="card" aria-labelledby="set-title">
    <h2 id="set-title">Change a limit</h2>
    <input type="hidden" name="action" value="set" />
    <div class="field"><label for="field-currency">Currency</label>
      <input id="field-currency" name="currency" required pattern="[A-Za-z]{3}" maxlength="3" /></div>
    <div class="field"><label for="field-limit">Limit</label>
      <span id="field-limit-hint" class="hint">A positive amount; empty for none. Lowering holds at once; raising waits for a second admin.</span>
      <input id="field-limit" name="limit" inputmode="decimal" autocomplete="off" aria-describedby="field-limit-hint" /></div>
    <button type="submit">Change</button>
  </form>`;

async function draw(ctx: PageContext, problem: string | null = null): Promise<Html> {
  const { env, operator, url } = ctx;
  const now = Date.now();
  const live = serviceMode(env) === "live";
  const [limits, requests] = await Promise.all([
    limitsLeftFor(env.DB, `operator:${operator.operatorId}`, now),
    listLimitRequests(env.DB, "pending", now, 0, 50),
  ]);
  const body = html`${noticeOf(url, NOTICES)}${problem === null ? "" : notice("bad", problem)}
    ${limitsTable(limits, live)}
    <section aria-labelledby="limit-requests-title"><h2 id="limit-requests-title">Waiting for a second admin</h2>${requestsTable(requests, ctx)}</section>
    ${roleAllows(operator.role, "admin") ? setForm : html`<p class="hint">Changing a limit needs the admin role.</p>`}`;
  return layout({ title: "Approval limits", operator, current: "/console/limits", body });
}

export function get(ctx: PageContext): Promise<Html> {
  return draw(ctx);
}

/** POST: change a limit (set), or decide a limit request (approve, reject). */
export async function post(ctx: PageContext): Promise<Html | Response> {
  const by = auditedBy(ctx);
  try {
    const form = await readForm(ctx.request);
    const action = form.get("action");
    if (action === "approve" || action === "reject") {
      // Read as POST /admin/approval-limit-requests/:id/approve reads its path.
      const read = formRequest(LimitRequestParams, { id: form.get("request") ?? "" });
      if (read instanceof FormError) return htmlResponse(await draw(ctx, "No such limit request."), 404);
      await decideLimit(ctx.env.DB, by, read.id, action === "approve" ? "approved" : "rejected");
      return seeOther(`/console/limits?notice=${action === "approve" ? "approved" : "rejected"}`);
    }
    const currency = formRequest(ApprovalLimitParams, { currency: (form.get("currency") ?? "").trim().toUpperCase() });
    const given = (form.get("limit") ?? "").trim();
    // Read as PUT /admin/approval-limits/:currency reads its body.
    const body = formRequest(SetApprovalLimitRequest, { limit: given === "" ? null : asJson(given) });
    if (currency instanceof FormError || body instanceof FormError)
      return htmlResponse(await draw(ctx, "A currency like USD, and a positive amount (or nothing for none)."), 400);
    const live = serviceMode(ctx.env) === "live";
    const done = await setApprovalLimit(ctx.env, by, currency.currency, body.limit, live);
    return seeOther(`/console/limits?notice=${done.request !== null ? "asked" : done.replayed ? "same" : "lowered"}`);
  } catch (error) {
    if (error instanceof FormError) return htmlResponse(await draw(ctx, error.reason), 400);
    if (!(error instanceof Refusal)) throw error;
    const status =
      error.failure.code === "decider_not_allowed" ? 403 : error.failure.code === "invalid_request_body" ? 400 : 409;
    return htmlResponse(await draw(ctx, refusalText(error)), status);
  }
}
