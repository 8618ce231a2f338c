/**
 * /console/wallets/:clientId/:currency: a wallet's balance and ledger (a page at a time), and its top-up
 * and adjustment forms. Each form carries a form key made when it is drawn, posted as the change's
 * idempotency key: a double submit or a re-sent form writes one ledger entry, and the second answer says
 * it was already applied. A change is answered by a 303 back to this page, so a reload does not post.
 * A posting beyond what its operator may move alone (the currency's approval limit over 24 hours) becomes a
 * posting request: the page lists the wallet's requests waiting for a second person, with Approve and
 * Reject for an operator who did not ask for it (dual control, treasury/approval-actions.ts). The forms say
 * which text is the internal reason (operators and the audit log) and which the note the client sees.
 */
import { findClient } from "../../clients/client-store";
import { Refusal } from "../../kernel/failures";
import { DEFAULT_PAGE_SIZE } from "../../kernel/paging";
import { roleAllows } from "../../operators/roles";
import type { LedgerEntry } from "../../wallets/ledger";
import { adjustWallet, ledgerPage, topUpWallet, walletBalance, walletThreshold } from "../../treasury/posting-actions";
import { AdjustmentRequest, TopUpRequest } from "../../wallets/wallet-admin-schemas";
import {
  listPostingRequests,
  postingRequestById,
  unfinishedApprovals,
  type PostingRequest,
} from "../../treasury/approval-store";
import { approvePostingRequest, rejectPostingRequest } from "../../treasury/approval-actions";
import { auditedBy } from "../actor";
import { amount, when } from "../format";
import { field, formKey, FormError, formRequest, newFormKey, readForm, seeOther } from "../forms";
import { html, htmlResponse, path, withQuery, type Html } from "../html";
import { layout } from "../layout";
import { walletSection } from "./figure-charts";
import { decideButton, formProblem, input, notice, noticeOf } from "./parts";
import type { PageContext } from "../page";
import { formErrorOf, refusalText } from "../refusals";

const NOTICES = {
  "top-up": "The top-up was posted.",
  adjustment: "The adjustment was posted.",
  replayed: "That form was already posted: nothing more was written.",
  held: "That is more than you may move alone in this currency today (its approval limit, over 24 hours): the posting waits for a second person (below).",
  approved: "The posting request was approved and posted.",
  rejected: "The posting request was rejected: nothing was posted.",
};

/** What a refused form is drawn again with: the form, its values as sent, and what was wrong. */
interface Refused {
  form: "top-up" | "adjustment";
  values: Map<string, string>;
  error: FormError;
}

function postingForm(kind: "top-up" | "adjustment", currency: string, refused: Refused | null): Html {
  const mine = refused?.form === kind ? refused : null;
  const error = mine?.error ?? null;
  const value = (name: string) => mine?.values.get(name) ?? "";
  const title = kind === "top-up" ? "Top up" : "Adjust";
  const hint =
    kind === "top-up"
      ? `A positive amount in ${currency}.`
      : `Positive credits, negative debits (never below zero), in ${currency}.`;
  // A refused form keeps its key: nothing was written under it, and a re-send must still post once.
  const key = mine?.values.get("formKey") ?? newFormKey();
  return html`<form method="post" class="card" aria-labelledby="${kind}-title">
      <h2 id="${kind}-title">${title}</h2>
      ${formProblem(error)}
      <input type="hidden" name="action" value="${kind}" />
      <input type="hidden" name="formKey" value="${key}" />
      ${input("amount", "Amount", { value: value("amount"), error, hint, attributes: html`inputmode="decimal" autocomplete="off"` })}
      ${input("reason", "Internal reason", { value: value("reason"), error, hint: "For operators and the audit log only: the client never sees it." })}
      ${input("note", "Note to the client (optional)", { value: value("note"), error, required: false, hint: "Shown to the client beside this movement in its ledger and statement. Leave empty to show none." })}
      <button type="submit">${title}</button>
    </form>`;
}

/** The wallet's requests waiting for a decision, and approved ones whose posting did not finish. */
function requestsTable(requests: PostingRequest[], ctx: PageContext, currency: string, refusal: string | null): Html {
  const may = roleAllows(ctx.operator.role, "operator");
  const problem = refusal === null ? "" : notice("bad", refusal);
  if (requests.length === 0) return html`${problem}<p>No posting waits for a second operator.</p>`;
  const rows = requests.map((request) => {
    const own = request.requestedBy === `operator:${ctx.operator.operatorId}`;
    const decide = (action: "approve" | "reject", label: string) => decideButton(action, request.id, label, "request");
    const action = !may
      ? html`<span class="hint">needs the operator role</span>`
      : own
        ? html`<span class="hint">yours: another operator decides it</span>`
        : request.status === "approved"
          ? decide("approve", "Finish posting")
          : html`${decide("approve", "Approve")} ${decide("reject", "Reject")}`;
    const state =
      request.status === "approved" ? "approved, posting not finished" : html`waiting until ${when(request.expiresAt)}`;
    return html`<tr><td class="num">${request.id}</td><td>${request.kind}</td><td class="num">${amount(request.amount, currency)}</td>
      <td>${request.reason}</td><td>${request.note ?? html`<span class="hint">none</span>`}</td><td>${request.requestedByName ?? request.requestedBy}, ${when(request.requestedAt)}</td><td>${state}</td><td>${action}</td></tr>`;
  });
  return html`${problem}<table><caption>Postings beyond what their requester may move alone, waiting for a second person</caption>
    <thead><tr><th scope="col" class="num">#</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th><th scope="col">Internal reason</th>
    <th scope="col">Note to the client</th><th scope="col">Asked by</th><th scope="col">State</th><th scope="col">Decide</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The wallet's open requests: pending (not expired), and approved ones without their entry yet. */
async function openRequests(db: D1Database, clientId: string, currency: string): Promise<PostingRequest[]> {
  const now = Date.now();
  const [pending, unfinished] = await Promise.all([
    listPostingRequests(db, { clientId, currency, status: "pending" }, now, 0, 50),
    unfinishedApprovals(db, clientId, currency),
  ]);
  return [...unfinished, ...pending].sort((a, b) => a.id - b.id);
}

function ledgerTable(entries: LedgerEntry[], currency: string): Html {
  if (entries.length === 0) return html`<p>No ledger entries.</p>`;
  const rows = entries.map(
    (entry) => html`<tr>
      <td class="num">${entry.seq}</td><td>${when(entry.createdAt)}</td><td>${entry.kind}</td>
      <td class="num">${amount(entry.amount)}</td><td class="num">${amount(entry.balanceAfter)}</td>
      <td>${entry.orderId !== null ? html`<a href="${path("/console/orders", entry.orderId)}">${entry.orderId}</a>` : ""}</td>
      <td>${entry.reason ?? ""}</td><td>${entry.note ?? ""}</td>
    </tr>`,
  );
  return html`<table><caption>Ledger (${currency}), oldest first</caption>
    <thead><tr><th scope="col" class="num">#</th><th scope="col">At</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th>
    <th scope="col" class="num">Balance after</th><th scope="col">Order</th><th scope="col">Internal reason</th><th scope="col">Note to the client</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

async function draw(ctx: PageContext, refused: Refused | null, refusal: string | null = null): Promise<Html> {
  const { env, operator, url, params } = ctx;
  const { clientId, currency } = params as { clientId: string; currency: string };
  const title = `Wallet ${clientId} · ${currency}`;
  const client = await findClient(env.DB, clientId);
  if (client === null)
    return layout({
      title,
      operator,
      current: "/console/wallets",
      body: notice("bad", "No client has this id."),
    });
  const may = roleAllows(operator.role, "operator");
  const forms = may
    ? html`${postingForm("top-up", currency, refused)}${postingForm("adjustment", currency, refused)}`
    : html`<p class="hint">Your role (${operator.role}) reads wallets; posting to them needs the operator role.</p>`;
  let summary: Html;
  let figures: Html = html``;
  try {
    const after = Math.max(0, Math.trunc(Number(url.searchParams.get("after") ?? "0")) || 0);
    const [balance, page, threshold] = await Promise.all([
      walletBalance(env, clientId, currency),
      ledgerPage(env, clientId, currency, after, DEFAULT_PAGE_SIZE),
      walletThreshold(env, clientId, currency),
    ]);
    const more =
      page.next !== null
        ? html`<p><a href="${withQuery(path("/console/wallets", clientId, currency), { after: page.next })}">Next entries</a></p>`
        : "";
    // Balance over time and the run-out day: a section of its own (pages/figure-charts.ts).
    figures = await walletSection(ctx, clientId, currency);
    summary = html`<dl class="facts"><dt>Client</dt><dd><a href="${path("/console/clients", clientId)}">${client.name}</a> (${clientId})</dd>
        <dt>Balance</dt><dd>${amount(balance, currency)}</dd>
        <dt>Low-balance alert</dt><dd>${threshold === null ? "none set by the client" : `below ${amount(threshold, currency)} (set by the client)`}</dd></dl>
      ${ledgerTable(page.entries, currency)}${more}`;
  } catch (error) {
    if (!(error instanceof Refusal) || error.failure.code !== "wallet_unknown") throw error;
    summary = html`<p>${client.name} has no ${currency} wallet yet; a top-up opens it.</p>`;
  }
  const requests = requestsTable(await openRequests(env.DB, clientId, currency), ctx, currency, refusal);
  return layout({
    title,
    operator,
    current: "/console/wallets",
    body: html`${noticeOf(url, NOTICES)}${summary}${figures}<section aria-labelledby="requests-title"><h2 id="requests-title">Waiting for approval</h2>${requests}</section>${forms}`,
  });
}

export function get(ctx: PageContext): Promise<Html> {
  return draw(ctx, null);
}

/** POST: a top-up or an adjustment, with the form's key as its idempotency key. */
export async function post(ctx: PageContext): Promise<Html | Response> {
  const { env, params, request } = ctx;
  const { clientId, currency } = params as { clientId: string; currency: string };
  let values = new Map<string, string>();
  const kind = (values: Map<string, string>) => (values.get("action") === "adjustment" ? "adjustment" : "top-up");
  try {
    values = await readForm(request);
    const action = values.get("action");
    if (action === "approve" || action === "reject") return await decide(ctx, action, values.get("request") ?? "");
    const idempotencyKey = formKey(values);
    const amount = field(values, "amount", { max: 40 });
    const reason = field(values, "reason", { max: 500 });
    const note = field(values, "note", { required: false, max: 200 });
    // Read as POST /admin/wallets/:clientId/:currency/top-ups (or /adjustments) reads its body.
    const read = formRequest(
      kind(values) === "adjustment" ? AdjustmentRequest : TopUpRequest,
      { amount, reason, idempotencyKey, ...(note === "" ? {} : { note }) },
      { amount: "A decimal amount like 100 or 12.50." },
    );
    if (read instanceof FormError) throw read;
    const posting = { clientId, currency, amount, reason, note: note === "" ? null : note, idempotencyKey };
    const post = kind(values) === "adjustment" ? adjustWallet : topUpWallet;
    const outcome = await post(env, auditedBy(ctx), posting);
    const said = outcome.held ? "held" : outcome.replayed ? "replayed" : kind(values);
    return seeOther(withQuery(path("/console/wallets", clientId, currency), { notice: said }));
  } catch (error) {
    // A refusal without a path (the amount's rules: its minor units) is about the amount.
    const refusal = formErrorOf(error, ["amount", "reason", "note"], "amount");
    if (refusal === null) throw error;
    return htmlResponse(await draw(ctx, { form: kind(values), values, error: refusal }), 400);
  }
}

/** What deciding a request may be refused for, drawn on the page as why. */
const DECISION_REFUSALS = new Set([
  "decider_not_allowed",
  "forbidden",
  "posting_request_closed",
  "adjustment_below_zero",
  "idempotency_conflict",
  "wallet_not_empty",
  "ledger_chain_broken",
]);

/**
 * Approve or reject one of this wallet's posting requests. A refusal (the operator asked for it, it was
 * decided or expired meanwhile, an adjustment would go below zero) draws the page again saying why.
 */
async function decide(ctx: PageContext, action: "approve" | "reject", given: string): Promise<Html | Response> {
  const { env, params } = ctx;
  const { clientId, currency } = params as { clientId: string; currency: string };
  const id = /^\d{1,15}$/.test(given) ? Number(given) : 0;
  const request = id > 0 ? await postingRequestById(env.DB, id) : null;
  // A request of another wallet is not this page's to decide.
  if (request === null || request.clientId !== clientId || request.currency !== currency)
    return htmlResponse(await draw(ctx, null, "No such posting request on this wallet."), 404);
  try {
    const by = { ...auditedBy(ctx), role: ctx.operator.role };
    if (action === "approve") await approvePostingRequest(env, by, id);
    else await rejectPostingRequest(env.DB, by, id);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const { code } = error.failure;
    if (!DECISION_REFUSALS.has(code)) throw error;
    return htmlResponse(
      await draw(ctx, null, refusalText(error)),
      code === "decider_not_allowed" || code === "forbidden" ? 403 : 409,
    );
  }
  return seeOther(
    withQuery(path("/console/wallets", clientId, currency), { notice: action === "approve" ? "approved" : "rejected" }),
  );
}
