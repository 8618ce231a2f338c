/**
 * /console/wallets/:clientId/:currency: a wallet's balance and ledger (a page at a time), and its top-up
 * and adjustment forms. Each form carries a form key made when it is drawn, posted as the change's
 * idempotency key: a double submit or a re-sent form writes one ledger entry, and the second answer says
 * it was already applied. A change is answered by a 303 back to this page, so a reload does not post.
 */
import { clientStatement, findClient } from "../../clients/client-store";
import { Refusal } from "../../kernel/failures";
import { DEFAULT_PAGE_SIZE } from "../../kernel/paging";
import { roleAllows } from "../../operators/roles";
import type { LedgerEntry } from "../../wallets/ledger";
import { adjustWallet, ledgerPage, topUpWallet, walletBalance } from "../../wallets/posting-actions";
import { AdjustmentRequest, TopUpRequest } from "../../wallets/wallet-admin-schemas";
import { auditedBy } from "../actor";
import { amount, when } from "../format";
import {
  field,
  formKey,
  FormError,
  formProblem,
  formRequest,
  input,
  newFormKey,
  notice,
  readForm,
  seeOther,
} from "../forms";
import { html, htmlResponse, path, withQuery, type Html } from "../html";
import { layout } from "../layout";
import { walletSection } from "./figure-charts";
import type { PageContext } from "../page";
import { formErrorOf } from "../refusals";

const NOTICES = {
  "top-up": "The top-up was posted.",
  adjustment: "The adjustment was posted.",
  replayed: "That form was already posted: nothing more was written.",
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
      ${input("reason", "Reason", { value: value("reason"), error, hint: "Shown in the ledger and the audit log." })}
      <button type="submit">${title}</button>
    </form>`;
}

function ledgerTable(entries: LedgerEntry[], currency: string): Html {
  if (entries.length === 0) return html`<p>No ledger entries.</p>`;
  const rows = entries.map(
    (entry) => html`<tr>
      <td class="num">${entry.seq}</td><td>${when(entry.createdAt)}</td><td>${entry.kind}</td>
      <td class="num">${amount(entry.amount)}</td><td class="num">${amount(entry.balanceAfter)}</td>
      <td>${entry.orderId !== null ? html`<a href="${path("/console/orders", entry.orderId)}">${entry.orderId}</a>` : ""}</td>
      <td>${entry.reason ?? ""}</td>
    </tr>`,
  );
  return html`<table><caption>Ledger (${currency}), oldest first</caption>
    <thead><tr><th scope="col" class="num">#</th><th scope="col">At</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th>
    <th scope="col" class="num">Balance after</th><th scope="col">Order</th><th scope="col">Reason</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

async function draw(ctx: PageContext, refused: Refused | null): Promise<Html> {
  const { env, operator, url, params } = ctx;
  const { clientId, currency } = params as { clientId: string; currency: string };
  const title = `Wallet ${clientId} · ${currency}`;
  const client = await findClient(env.DB, clientId);
  if (client === null)
    return layout({
      title,
      operator,
      current: "/console/wallets",
      body: html`<p class="notice bad" role="alert">No client has this id.</p>`,
    });
  const may = roleAllows(operator.role, "operator");
  const forms = may
    ? html`${postingForm("top-up", currency, refused)}${postingForm("adjustment", currency, refused)}`
    : html`<p class="hint">Your role (${operator.role}) reads wallets; posting to them needs the operator role.</p>`;
  let summary: Html;
  let figures: Html = html``;
  try {
    const after = Math.max(0, Math.trunc(Number(url.searchParams.get("after") ?? "0")) || 0);
    const [balance, page] = await Promise.all([
      walletBalance(env, clientStatement, clientId, currency),
      ledgerPage(env, clientStatement, clientId, currency, after, DEFAULT_PAGE_SIZE),
    ]);
    const more =
      page.next !== null
        ? html`<p><a href="${withQuery(path("/console/wallets", clientId, currency), { after: page.next })}">Next entries</a></p>`
        : "";
    // Balance over time and the run-out day: a section of its own (pages/figure-charts.ts).
    figures = await walletSection(ctx, clientId, currency);
    summary = html`<dl class="facts"><dt>Client</dt><dd><a href="${path("/console/clients", clientId)}">${client.name}</a> (${clientId})</dd>
        <dt>Balance</dt><dd>${amount(balance, currency)}</dd></dl>
      ${ledgerTable(page.entries, currency)}${more}`;
  } catch (error) {
    if (!(error instanceof Refusal) || error.failure.code !== "wallet_unknown") throw error;
    summary = html`<p>${client.name} has no ${currency} wallet yet; a top-up opens it.</p>`;
  }
  return layout({
    title,
    operator,
    current: "/console/wallets",
    body: html`${notice(url, NOTICES)}${summary}${figures}${forms}`,
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
    const idempotencyKey = formKey(values);
    const amount = field(values, "amount", { max: 40 });
    const reason = field(values, "reason", { max: 500 });
    // Read as POST /admin/wallets/:clientId/:currency/top-ups (or /adjustments) reads its body.
    const read = formRequest(
      kind(values) === "adjustment" ? AdjustmentRequest : TopUpRequest,
      { amount, reason, idempotencyKey },
      { amount: "A decimal amount like 100 or 12.50." },
    );
    if (read instanceof FormError) throw read;
    const posting = { clientId, currency, amount, reason, idempotencyKey };
    const post = kind(values) === "adjustment" ? adjustWallet : topUpWallet;
    const outcome = await post(env, clientStatement, auditedBy(ctx), posting);
    return seeOther(
      withQuery(path("/console/wallets", clientId, currency), { notice: outcome.replayed ? "replayed" : kind(values) }),
    );
  } catch (error) {
    // A refusal without a path (the amount's rules: its minor units) is about the amount.
    const refusal = formErrorOf(error, ["amount", "reason"], "amount");
    if (refusal === null) throw error;
    return htmlResponse(await draw(ctx, { form: kind(values), values, error: refusal }), 400);
  }
}
