/**
 * GET /console/catalogue: every SKU (disabled ones too) with its code counts and low-stock threshold, each
 * linking to its stock page, and the exchange rates; an admin sets a rate here (POST).
 */
import { stockThresholdsStatement } from "../../attention/threshold-store";
import { productFromRow, productsAfter } from "../../catalogue/catalogue-store";
import { pageOf } from "../../kernel/paging";
import { setExchangeRate } from "../../pricing/rate-actions";
import { RateParams, SetRateRequest } from "../../pricing/rate-admin-schemas";
import { allRates } from "../../pricing/rate-store";
import { roleAllows } from "../../operators/roles";
import { auditedBy } from "../actor";
import { when } from "../format";
import { html, htmlResponse, path, withQuery } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { field, FormError, formRequest, readForm, seeOther } from "../forms";
import { shownOnForm } from "../refusals";
import { formProblem, input, noticeOf, refusedByRole } from "./parts";

const PAGE_SIZE = 50;

async function draw(ctx: PageContext, refused: FormError | null = null, values = new Map<string, string>()) {
  const { env, operator, url } = ctx;
  const after = url.searchParams.get("after") ?? "";
  const [products, thresholdRows, rates] = await Promise.all([
    productsAfter(env.DB, after, PAGE_SIZE),
    stockThresholdsStatement(env.DB).all(),
    allRates(env.DB),
  ]);
  const thresholds = new Map(
    (thresholdRows.results as { sku: string; threshold: number }[]).map((row) => [row.sku, row.threshold]),
  );
  const listed = pageOf(products, PAGE_SIZE, ({ row }) => row.sku);
  const rows = listed.items.map(({ row, counts }) => {
    const product = productFromRow(row);
    const count = (status: string) => counts.find((entry) => entry.status === status)?.n ?? 0;
    const stock = product.supplier === "inventory";
    return html`<tr>
      <td><a href="${path("/console/catalogue", product.sku)}">${product.sku}</a></td>
      <td>${product.name}</td><td>${product.productType}</td><td>${product.currency}</td><td>${product.supplier}</td>
      <td>${product.active ? "on sale" : html`<strong>disabled</strong>`}</td>
      <td class="num">${stock ? count("available") : "–"}</td><td class="num">${stock ? count("reserved") : "–"}</td>
      <td class="num">${stock ? count("sold") : "–"}</td><td class="num">${thresholds.get(product.sku) ?? "–"}</td>
    </tr>`;
  });
  const rateForm = roleAllows(operator.role, "admin")
    ? html`<form method="post" action="/console/catalogue" class="card" aria-labelledby="rate-heading">
        <h3 id="rate-heading">Set an exchange rate</h3>
        ${formProblem(refused)}
        ${input("base", "Base currency (the wallet's)", { value: values.get("base"), error: refused })}
        ${input("target", "Target currency (the product's)", { value: values.get("target"), error: refused })}
        ${input("rate", "Rate", { value: values.get("rate"), error: refused, hint: "1 base buys this many target; up to 12 decimals" })}
        <button type="submit">Save rate</button>
      </form>`
    : html``;
  const body = html`
    ${noticeOf(url, { rate: "Exchange rate saved." })}
    <section aria-labelledby="skus-heading">
      <h2 id="skus-heading">SKUs</h2>
      <table>
        <thead><tr><th scope="col">SKU</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Currency</th><th scope="col">Supplier</th>
          <th scope="col">Sale</th><th scope="col" class="num">Available</th><th scope="col" class="num">Reserved</th><th scope="col" class="num">Sold</th>
          <th scope="col" class="num">Low-stock threshold</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>
      ${listed.next !== null ? html`<p><a href="${withQuery("/console/catalogue", { after: listed.next })}">Next SKUs</a></p>` : ""}
      <p class="hint">Creating or replacing a SKU is done through <code>PUT /admin/products/:sku</code>.</p>
    </section>
    <section aria-labelledby="rates-heading">
      <h2 id="rates-heading">Exchange rates</h2>
      <table>
        <thead><tr><th scope="col">Base</th><th scope="col">Target</th><th scope="col" class="num">Rate</th><th scope="col">Updated</th></tr></thead>
        <tbody>${rates.map((rate) => html`<tr><td>${rate.base_currency}</td><td>${rate.target_currency}</td><td class="num">${rate.rate}</td><td>${when(rate.updated_at)}</td></tr>`)}</tbody>
      </table>
      ${rateForm}
    </section>`;
  return layout({ title: "Catalogue and stock", operator, current: "/console/catalogue", body });
}

export function get(ctx: PageContext) {
  return draw(ctx);
}

const PAIR_WORDS = {
  base: "Both currencies must be ISO 4217 codes the service knows, e.g. USD.",
  target: "Both currencies must be ISO 4217 codes the service knows, e.g. USD.",
};

const FIELDS = ["base", "target", "rate"];

/** POST /console/catalogue: an admin sets an exchange rate. */
export async function post(ctx: PageContext) {
  if (!roleAllows(ctx.operator.role, "admin")) return refusedByRole(ctx, "admin");
  let values = new Map<string, string>();
  try {
    values = await readForm(ctx.request);
    const base = field(values, "base", { required: false }).toUpperCase();
    const target = field(values, "target", { required: false }).toUpperCase();
    const rate = field(values, "rate", { required: false });
    // Read as PUT /admin/exchange-rates/:base/:target reads its path and body.
    const refused = [
      formRequest(RateParams, { base, target }, PAIR_WORDS),
      formRequest(SetRateRequest, { rate }, { rate: "The rate is a positive decimal like 0.92." }),
    ].find((read) => read instanceof FormError);
    if (refused !== undefined) throw refused;
    await setExchangeRate(ctx.env.DB, auditedBy(ctx), base, target, rate);
    return seeOther("/console/catalogue?notice=rate");
  } catch (error) {
    const refused = shownOnForm(error, FIELDS);
    if (refused === null) throw error;
    return htmlResponse(await draw(ctx, refused, values), 400);
  }
}
