/**
 * GET /console/orders: find an order by its id, or by its client and exact reference (the lookups the
 * operator API has), and the stuck list. Filters over all orders (state, SKU, dates, reference prefix)
 * need the order index, which this service does not have yet; the page says so.
 */
import { DEFAULT_PAGE_SIZE, pageOf, rowsToFetch } from "../../kernel/paging";
import { objectIdOf, orderObjectName } from "../../orders/order-id";
import type { OrderRecord } from "../../orders/order-record";
import { listTimerFailures } from "../../orders/timer-failures";
import { when } from "../format";
import { seeOther } from "../forms";
import { html, path, withQuery } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";

/** The order a client created with `reference`, or null. */
async function orderOfReference(env: Env, clientId: string, reference: string): Promise<OrderRecord | null> {
  return (await env.ORDERS.get(
    env.ORDERS.idFromName(orderObjectName(clientId, reference)),
  ).record()) as OrderRecord | null;
}

export async function get({ env, operator, url }: PageContext) {
  const query = (name: string) => (url.searchParams.get(name) ?? "").trim().slice(0, 200);
  const [orderId, clientId, reference] = [query("orderId"), query("clientId"), query("reference")];
  let problem: { field: "orderId" | "reference"; text: string } | null = null;
  if (orderId !== "") {
    if (objectIdOf(env.ORDERS, orderId) !== null) return seeOther(path("/console/orders", orderId));
    problem = { field: "orderId", text: "Not an order id (they look like ord_ and 64 hex digits)." };
  } else if (clientId !== "" || reference !== "") {
    const record = clientId !== "" && reference !== "" ? await orderOfReference(env, clientId, reference) : null;
    if (record !== null) return seeOther(path("/console/orders", record.id));
    problem = {
      field: "reference",
      text:
        clientId === "" || reference === ""
          ? "Give both the client id and the reference."
          : "That client has no order with this reference.",
    };
  }
  const error = (field: string) =>
    problem?.field === field ? html`<p id="${field}-error" class="error">${problem.text}</p>` : "";
  const invalid = (field: string) =>
    problem?.field === field ? html`aria-invalid="true" aria-describedby="${field}-error"` : "";

  const after = query("after");
  const rows = await listTimerFailures(env.DB, after === "" ? null : after, rowsToFetch(DEFAULT_PAGE_SIZE));
  const page = pageOf(rows, DEFAULT_PAGE_SIZE, (row) => row.orderId);
  const stuck =
    page.items.length === 0
      ? html`<p>No order is stuck.</p>`
      : html`<table><caption>Stuck orders: a timer failing 3 times or more in a row, or supplier lines of unknown outcome</caption>
          <thead><tr><th scope="col">Order</th><th scope="col">Client</th><th scope="col">Timer</th><th scope="col" class="num">Failures</th>
          <th scope="col">Last error</th><th scope="col">Since</th><th scope="col">Next attempt</th></tr></thead>
          <tbody>${page.items.map(
            (
              row,
            ) => html`<tr><td><a href="${path("/console/orders", row.orderId)}">${row.orderId}</a></td><td>${row.clientId}</td>
              <td>${row.timer}${row.skus.length > 0 ? html` (${row.skus.join(", ")})` : ""}</td><td class="num">${row.failures}</td>
              <td>${row.lastError}</td><td>${when(row.firstFailedAt)}</td><td>${when(row.nextAttemptAt)}</td></tr>`,
          )}</tbody></table>
          ${page.next !== null ? html`<p><a href="${withQuery("/console/orders", { after: page.next })}">More stuck orders</a></p>` : ""}`;

  const body = html`
    <p class="notice">Lists of orders filtered by client, state, SKU, dates or reference prefix come with the order index,
      which this service does not have yet. Until then, find one order by its id, or by its client and exact reference.</p>
    <form method="get" action="/console/orders" class="card" role="search" aria-label="Find an order by id">
      <h2>By order id</h2>
      <div class="field">
        <label for="orderId">Order id</label>
        <input id="orderId" name="orderId" value="${orderId}" required ${invalid("orderId")} />
        ${error("orderId")}
      </div>
      <button type="submit">Open the order</button>
    </form>
    <form method="get" action="/console/orders" class="card" role="search" aria-label="Find an order by reference">
      <h2>By client and reference</h2>
      <div class="field">
        <label for="clientId">Client id</label>
        <input id="clientId" name="clientId" value="${clientId}" required />
      </div>
      <div class="field">
        <label for="reference">Reference (exact)</label>
        <input id="reference" name="reference" value="${reference}" required ${invalid("reference")} />
        ${error("reference")}
      </div>
      <button type="submit">Find the order</button>
    </form>
    <section aria-labelledby="stuck-title"><h2 id="stuck-title">Stuck orders</h2>${stuck}</section>`;
  return layout({ title: "Orders", operator, current: "/console/orders", body });
}
