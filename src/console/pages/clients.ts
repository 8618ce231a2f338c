/**
 * /console/clients: clients by id, a page at a time, and (admin) the form that creates one with its region,
 * its first API key and its webhook secret. The key and the secret are shown once, on the answer to the
 * form, which is not stored (no-store) and not a URL anyone can load again. The client id is asked for,
 * not generated, so a form sent twice meets "already exists" rather than making two clients.
 */
import { createClient } from "../../clients/client-actions";
import { CreateClientRequest } from "../../clients/client-admin-schemas";
import { clientsAfter } from "../../clients/client-store";
import { DEFAULT_PAGE_SIZE, pageOf } from "../../kernel/paging";
import { roleAllows } from "../../operators/roles";
import { REGIONS, regionOf } from "../../wallets/wallet-registry-store";
import { auditedBy } from "../actor";
import { when } from "../format";
import { field, FormError, formRequest, readForm } from "../forms";
import { formProblem, input } from "./parts";
import { html, htmlResponse, path, withQuery, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { formErrorOf } from "../refusals";

function createForm(values: Map<string, string>, error: FormError | null): Html {
  const region = values.get("region") ?? "";
  const options = REGIONS.map(
    (hint) => html`<option value="${hint}" ${hint === region ? html`selected` : ""}>${hint}</option>`,
  );
  const regionFailed = error?.field === "region";
  return html`<form method="post" class="card" aria-labelledby="create-title">
      <h2 id="create-title">Create a client</h2>
      ${formProblem(error)}
      ${input("id", "Client id", { value: values.get("id") ?? "", error, hint: "Letters, digits, _ and -, up to 64." })}
      ${input("name", "Name", { value: values.get("name") ?? "", error })}
      ${input("keyLabel", "Label of the first API key", { value: values.get("keyLabel") ?? "", error, required: false })}
      <div class="field">
        <label for="field-region">Region of its wallets</label>
        <span id="field-region-hint" class="hint">Where its wallet objects are created; best the one nearest the client's backend.</span>
        <select id="field-region" name="region" aria-describedby="field-region-hint${regionFailed ? " field-region-error" : ""}" ${regionFailed ? html`aria-invalid="true"` : ""}>
          <option value="">No hint</option>${options}
        </select>
        ${regionFailed ? html`<p id="field-region-error" class="error">${error!.reason}</p>` : ""}
      </div>
      <button type="submit">Create the client</button>
    </form>`;
}

async function draw(ctx: PageContext, form: Html | null): Promise<Html> {
  const { env, operator, url } = ctx;
  const after = (url.searchParams.get("after") ?? "").slice(0, 64);
  const rows = await clientsAfter(env.DB, after, DEFAULT_PAGE_SIZE);
  const page = pageOf(rows, DEFAULT_PAGE_SIZE, (row) => row.id);
  const table = html`<table><caption>Clients by id</caption>
    <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Region</th><th scope="col">Created</th><th scope="col">State</th></tr></thead>
    <tbody>${page.items.map(
      (
        row,
      ) => html`<tr><td><a href="${path("/console/clients", row.id)}">${row.id}</a></td><td>${row.name}</td><td>${regionOf(row.region) ?? "no hint"}</td>
        <td>${when(row.created_at)}</td><td>${row.disabled_at === null ? "enabled" : html`<strong>disabled</strong> since ${when(row.disabled_at)}`}</td></tr>`,
    )}</tbody></table>
    ${page.next !== null ? html`<p><a href="${withQuery("/console/clients", { after: page.next })}">More clients</a></p>` : ""}`;
  const creating = roleAllows(operator.role, "admin") ? (form ?? createForm(new Map(), null)) : html``;
  return layout({ title: "Clients", operator, current: "/console/clients", body: html`${table}${creating}` });
}

export function get(ctx: PageContext): Promise<Html> {
  return draw(ctx, null);
}

/** The create form's fields. */
const FIELDS = ["id", "name", "keyLabel", "region"];

export async function post(ctx: PageContext): Promise<Html | Response> {
  let values = new Map<string, string>();
  try {
    values = await readForm(ctx.request);
    const id = field(values, "id", { max: 64 });
    const name = field(values, "name", { max: 200 });
    const keyLabel = field(values, "keyLabel", { required: false, max: 100 });
    const region = values.get("region") ?? "";
    // Read as POST /admin/clients reads its body.
    const request = formRequest(
      CreateClientRequest,
      { id, name, ...(keyLabel !== "" ? { keyLabel } : {}), ...(region !== "" ? { region } : {}) },
      { id: "Letters, digits, _ and - only.", region: "Choose one of the listed regions." },
    );
    if (request instanceof FormError) throw request;
    const created = await createClient(ctx.env, auditedBy(ctx), request);
    const body = html`<div role="status" class="notice good"><p>Client <a href="${path("/console/clients", created.client.id)}">${created.client.name}</a> created.
        Give it these now: they are shown only here, never again.</p></div>
      <dl class="facts">
        <dt>API key</dt><dd class="mono">${created.key.apiKey}</dd>
        <dt>Key id</dt><dd class="mono">${created.key.keyId}</dd>
        <dt>Webhook secret</dt><dd class="mono">${created.webhookSecret}</dd>
      </dl>
      <p><a href="${path("/console/clients", created.client.id)}">Open the client</a></p>`;
    return layout({ title: "Client created", operator: ctx.operator, current: "/console/clients", body });
  } catch (error) {
    const refusal = formErrorOf(error, FIELDS);
    if (refusal === null) throw error;
    return htmlResponse(await draw(ctx, createForm(values, refusal)), 400);
  }
}
