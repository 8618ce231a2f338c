/**
 * /console/clients/:clientId: a client, its API keys (ids, labels, scopes and allow-lists, never the keys),
 * its wallets, and (admin) its actions: issue a key (with its scopes and allow-list), rotate every key, revoke one, rotate the webhook secret, disable or
 * enable, set or delete a deal (its fee and discount on a SKU). A new key or secret is shown once, on the
 * answer to its form.
 */
import { dealsOf, type DealRow } from "../../catalogue/catalogue-store";
import { UpsertDealRequest } from "../../catalogue/catalogue-admin-schemas";
import { deleteDeal, upsertDeal } from "../../catalogue/deal-actions";
import { issueKey, revokeKey, rotateWebhookSecret, setClientDisabled } from "../../clients/client-actions";
import { IssueKeyRequest } from "../../clients/client-admin-schemas";
import { accessOf, FULL_ACCESS, type KeyAccess } from "../../clients/key-access-rules";
import { SCOPES } from "../../kernel/key-access";
import { keyIdOf } from "../../clients/client-secrets";
import { findClient, keysOf } from "../../clients/client-store";
import { Refusal } from "../../kernel/failures";
import { roleAllows } from "../../operators/roles";
import { walletBalances } from "../../wallets/wallet-moves";
import { auditedBy } from "../actor";
import { when } from "../format";
import { field, FormError, formRequest, readForm, seeOther } from "../forms";
import { formProblem, input, noticeOf } from "./parts";
import { html, htmlResponse, path, withQuery, type Html } from "../html";
import { layout, notFoundPage } from "../layout";
import type { PageContext } from "../page";
import { formErrorOf } from "../refusals";
import { clientSection } from "./figure-charts";

const NOTICES = {
  revoked: "The key was revoked.",
  "already-revoked": "That key was already revoked.",
  "deal-saved": "The deal was saved: the client's next orders are priced with it.",
  "deal-deleted": "The deal was deleted: no fee and no discount on that SKU.",
  disabled: "The client is disabled: its keys are refused.",
  enabled: "The client is enabled again.",
};

/** A form of one button and its action, with an accessible name. */
function button(action: string, label: string, extra: Html = html``, quiet = false): Html {
  return html`<form method="post" class="inline"><input type="hidden" name="action" value="${action}" />${extra}
    <button type="submit" ${quiet ? html`class="quiet"` : ""}>${label}</button></form>`;
}

const MODES = ["fixed", "percentage"] as const;

function modeSelect(name: string, label: string, chosen: string): Html {
  const options = MODES.map(
    (mode) => html`<option value="${mode}" ${mode === chosen ? html`selected` : ""}>${mode}</option>`,
  );
  return html`<div class="field"><label for="field-${name}">${label}</label><select id="field-${name}" name="${name}">${options}</select></div>`;
}

/** A key's scopes and allow-list, for its row: every scope or the list, and anywhere or the addresses. */
function accessCells(access: KeyAccess): Html {
  const scopes = access.scopes === "all" ? html`all` : html`${access.scopes.join(", ")}`;
  const from =
    access.allowedIps === null ? html`anywhere` : html`<span class="mono">${access.allowedIps.join(", ")}</span>`;
  return html`<td>${scopes}</td><td>${from}</td>`;
}

/**
 * The issue-a-key form: its label, the scopes it is to hold (none ticked: every scope) and its allow-list
 * (one address or CIDR range a line; empty: anywhere). What was posted is drawn again beside a refusal.
 */
function issueForm(error: FormError | null, values: Map<string, string>): Html {
  const boxes = SCOPES.map(
    (scope) =>
      html`<label><input type="checkbox" name="scope:${scope}" value="on" ${values.get(`scope:${scope}`) === "on" ? html`checked` : ""} /> ${scope}</label>`,
  );
  const ips = values.get("allowedIps") ?? "";
  const ipFailed = error?.field === "allowedIps";
  const ipError = ipFailed ? html`<p class="error" id="field-allowedIps-error">${error!.reason}</p>` : "";
  return html`<form method="post" aria-labelledby="issue-title"><h3 id="issue-title">Issue a key</h3>
    <input type="hidden" name="action" value="issue" />
    ${input("label", "Key label", { required: false, value: values.get("label") ?? "", error })}
    <fieldset><legend>Scopes (none ticked: every scope, and any added later)</legend>${boxes}
      ${error?.field === "scopes" ? html`<p class="error">${error.reason}</p>` : ""}</fieldset>
    <div class="field"><label for="field-allowedIps">IP allow-list</label>
      <textarea id="field-allowedIps" name="allowedIps" rows="3" ${ipFailed ? html`aria-invalid="true"` : ""}
        aria-describedby="field-allowedIps-hint${ipFailed ? " field-allowedIps-error" : ""}">${ips}</textarea>
      <p class="hint" id="field-allowedIps-hint">One IPv4 or IPv6 address or CIDR range a line (203.0.113.7, 198.51.100.0/24). Empty: any address.</p>${ipError}</div>
    <button type="submit">Issue a key</button></form>`;
}

/** The access a posted issue form asks for, read as POST /admin/clients/:clientId/keys reads its body. */
function postedAccess(form: Map<string, string>): KeyAccess {
  const scopes = SCOPES.filter((scope) => form.get(`scope:${scope}`) === "on");
  const entries = (form.get("allowedIps") ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
  const read = formRequest(IssueKeyRequest, {
    ...(scopes.length > 0 ? { scopes } : {}),
    ...(entries.length > 0 ? { allowedIps: entries } : {}),
  });
  if (read instanceof FormError) throw read;
  return { scopes: read.scopes ?? FULL_ACCESS.scopes, allowedIps: read.allowedIps ?? FULL_ACCESS.allowedIps };
}

/** The client's deals, and (admin) the form that sets one and the buttons that delete them. */
function dealSection(deals: DealRow[], admin: boolean, error: FormError | null, values: Map<string, string>): Html {
  const rows = deals.map(
    (deal) => html`<tr><td>${deal.sku}</td><td>${deal.deal_state}</td><td>${deal.fee_amount} (${deal.fee_mode})</td>
      <td>${deal.discount_amount} (${deal.discount_mode})</td><td>${when(deal.updated_at)}</td>
      <td>${admin ? button("deal-delete", `Delete the deal on ${deal.sku}`, html`<input type="hidden" name="sku" value="${deal.sku}" />`, true) : ""}</td></tr>`,
  );
  const table =
    deals.length === 0
      ? html`<p>No deal: retail terms on every SKU.</p>`
      : html`<table><thead><tr><th scope="col">SKU</th><th scope="col">State</th><th scope="col">Fee</th><th scope="col">Discount</th>
          <th scope="col">Updated</th><th scope="col">Delete</th></tr></thead><tbody>${rows}</tbody></table>`;
  const value = (name: string, fallback = "") => values.get(name) ?? fallback;
  const form = admin
    ? html`<form method="post" class="card" aria-labelledby="deal-title"><h3 id="deal-title">Set a deal</h3>
        <input type="hidden" name="action" value="deal" />
        ${input("sku", "SKU", { value: value("sku"), error })}
        <div class="field"><label for="field-dealState">State</label><select id="field-dealState" name="dealState">
          <option value="active" ${value("dealState") !== "none" ? html`selected` : ""}>active</option>
          <option value="none" ${value("dealState") === "none" ? html`selected` : ""}>none</option></select></div>
        ${input("fee", "Fee", { value: value("fee", "0"), error, hint: "Per unit in the SKU's currency, or a percentage of face value." })}
        ${modeSelect("feeMode", "Fee is", value("feeMode", "fixed"))}
        ${input("discount", "Discount", { value: value("discount", "0"), error })}
        ${modeSelect("discountMode", "Discount is", value("discountMode", "fixed"))}
        <button type="submit">Save the deal</button></form>`
    : html``;
  return html`<section aria-labelledby="deals-title"><h2 id="deals-title">Deals</h2>${table}${form}</section>`;
}

async function draw(
  ctx: PageContext,
  shown: Html | null,
  error: FormError | null = null,
  values: Map<string, string> = new Map(),
): Promise<Html | null> {
  const { env, operator, params, url } = ctx;
  const client = await findClient(env.DB, params.clientId!);
  if (client === null) return null;
  const admin = roleAllows(operator.role, "admin");
  const [keys, wallets, deals, figures] = await Promise.all([
    keysOf(env.DB, client.id),
    walletBalances(env, client.id),
    dealsOf(env.DB, client.id),
    clientSection(ctx, client.id),
  ]);
  const keyRows = keys.map((key) => {
    const keyId = keyIdOf(key.key_hash);
    const revoke =
      key.revoked_at === null && admin
        ? button("revoke", "Revoke", html`<input type="hidden" name="keyId" value="${keyId}" />`, true)
        : "";
    return html`<tr><td class="mono">${keyId}</td><td>${key.label}</td>${accessCells(accessOf(key))}<td>${when(key.created_at)}</td>
      <td>${key.revoked_at === null ? "active" : html`revoked ${when(key.revoked_at)}`}</td><td>${revoke}</td></tr>`;
  });
  const walletRows = wallets.map(
    (wallet) =>
      html`<li><a href="${path("/console/wallets", client.id, wallet.currency)}">${wallet.currency}</a>: ${wallet.balance}</li>`,
  );
  const actions = admin
    ? html`<section aria-labelledby="actions-title" class="card"><h2 id="actions-title">Actions</h2>
        ${formProblem(error)}
        ${issueForm(error, values)}
        <p>${button("rotate", "Rotate keys (issue one, revoke all others)")}</p>
        <p>${button("webhook-secret", "Rotate the webhook secret")}</p>
        <p>${client.disabled_at === null ? button("disable", "Disable the client") : button("enable", "Enable the client")}</p>
      </section>`
    : html`<p class="hint">Your role (${operator.role}) reads clients; changing them needs the admin role.</p>`;
  const body = html`${noticeOf(url, NOTICES)}${shown ?? ""}
    <dl class="facts"><dt>Id</dt><dd>${client.id}</dd><dt>Name</dt><dd>${client.name}</dd><dt>Region</dt><dd>${client.region ?? "no hint"}</dd>
      <dt>Created</dt><dd>${when(client.created_at)}</dd>
      <dt>State</dt><dd>${client.disabled_at === null ? "enabled" : html`<strong>disabled</strong> since ${when(client.disabled_at)}`}</dd></dl>
    <section aria-labelledby="keys-title"><h2 id="keys-title">API keys</h2>
      <table><thead><tr><th scope="col">Key id</th><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">Allowed from</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Revoke</th></tr></thead>
      <tbody>${keyRows}</tbody></table></section>
    <section aria-labelledby="wallets-title"><h2 id="wallets-title">Wallets</h2>
      ${walletRows.length === 0 ? html`<p>No wallet yet.</p>` : html`<ul>${walletRows}</ul>`}</section>
    ${figures}
    ${dealSection(deals, admin, error, values)}
    ${actions}`;
  return layout({ title: `Client ${client.name}`, operator, current: "/console/clients", body });
}

const notFound = (ctx: PageContext) =>
  notFoundPage(ctx.operator, "Client not found", "/console/clients", "No client has this id.");

export async function get(ctx: PageContext): Promise<Html | Response> {
  return (await draw(ctx, null)) ?? notFound(ctx);
}

/** A secret shown once, on this answer only. */
function once(what: string, value: string): Html {
  return html`<div role="status" class="notice good"><p>${what}: shown only here, never again.</p><p class="mono">${value}</p></div>`;
}

/**
 * A key issued from the form, or (rotate) a new key with every other revoked: shown once. A rotation's
 * new key keeps the access the client's live keys share (the action refuses when they differ): rotating a
 * leaked key must not widen what its successor may do.
 */
async function issueFromForm(ctx: PageContext, form: Map<string, string>, rotate: boolean): Promise<Html> {
  const label = rotate ? "" : field(form, "label", { required: false, max: 100 });
  const access = rotate ? undefined : postedAccess(form);
  const clientId = ctx.params.clientId!;
  const { key, revokedKeyIds } = await issueKey(ctx.env, auditedBy(ctx), { clientId, label, rotate, access });
  return once(`New API key ${key.keyId}${rotate ? `; ${revokedKeyIds.length} other keys revoked` : ""}`, key.apiKey);
}

/** The fields of this page's forms a refusal can be shown beside. */
const FIELDS = ["label", "scopes", "allowedIps", "sku", "fee", "discount"];

export async function post(ctx: PageContext): Promise<Html | Response> {
  const clientId = ctx.params.clientId!;
  const here = path("/console/clients", clientId);
  const actor = auditedBy(ctx);
  let form = new Map<string, string>();
  try {
    form = await readForm(ctx.request);
    let shown: Html;
    switch (form.get("action")) {
      case "issue":
      case "rotate":
        shown = await issueFromForm(ctx, form, form.get("action") === "rotate");
        break;
      case "revoke": {
        const { revoked } = await revokeKey(ctx.env, actor, clientId, field(form, "keyId", { max: 80 }));
        return seeOther(withQuery(here, { notice: revoked ? "revoked" : "already-revoked" }));
      }
      case "webhook-secret":
        shown = once(
          "New webhook secret (the old one signs alongside it for 24 hours)",
          await rotateWebhookSecret(ctx.env, actor, clientId),
        );
        break;
      case "disable":
      case "enable": {
        const disable = form.get("action") === "disable";
        await setClientDisabled(ctx.env, actor, clientId, disable);
        return seeOther(withQuery(here, { notice: disable ? "disabled" : "enabled" }));
      }
      case "deal": {
        const sku = field(form, "sku", { max: 64 });
        const modeOf = (name: string) => (form.get(name) === "percentage" ? "percentage" : "fixed");
        // Read as PUT /admin/clients/:clientId/deals/:sku reads its body.
        const terms = formRequest(
          UpsertDealRequest,
          {
            dealState: form.get("dealState") === "none" ? "none" : "active",
            fee: { amount: field(form, "fee", { max: 30 }), adjustmentMode: modeOf("feeMode") },
            discount: { amount: field(form, "discount", { max: 30 }), adjustmentMode: modeOf("discountMode") },
          },
          { fee: "A decimal like 0, 2 or 2.5.", discount: "A decimal like 0, 2 or 2.5." },
        );
        if (terms instanceof FormError) throw terms;
        await upsertDeal(ctx.env, actor, clientId, sku, terms);
        return seeOther(withQuery(here, { notice: "deal-saved" }));
      }
      case "deal-delete":
        await deleteDeal(ctx.env, actor, clientId, field(form, "sku", { max: 64 }));
        return seeOther(withQuery(here, { notice: "deal-deleted" }));
      default:
        throw new FormError("form", "That action is not one this page knows.");
    }
    return (await draw(ctx, shown)) ?? notFound(ctx);
  } catch (error) {
    if (error instanceof Refusal && error.failure.code === "client_not_found") return notFound(ctx);
    const refusal = formErrorOf(error, FIELDS);
    if (refusal === null) throw error;
    const page = await draw(ctx, null, refusal, form);
    if (page === null) return notFound(ctx);
    return htmlResponse(page, 400);
  }
}
