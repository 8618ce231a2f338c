/**
 * GET /console/catalogue/:sku: one SKU's stock page. Code counts per value, the CSV upload of codes with a
 * report naming every refused row (an upload is all or nothing: one bad row adds nothing), enabling and
 * disabling its sale, and its low-stock threshold. Every change is an operator's (POST, field `action`).
 */
import { StockThresholdRequest } from "../../attention/attention-admin-schemas";
import { setStockThreshold } from "../../attention/threshold-actions";
import { stockThresholdOf } from "../../attention/threshold-store";
import { requireProduct } from "../../catalogue/catalogue-store";
import { setProductActive } from "../../catalogue/product-actions";
import { Refusal } from "../../kernel/failures";
import { refusedRows, type RowReport } from "../../inventory/code-rules";
import { uploadCodes } from "../../inventory/code-actions";
import { stockOf } from "../../inventory/code-store";
import { parseCsv } from "../../inventory/csv";
import { roleAllows } from "../../operators/roles";
import { auditedBy } from "../actor";
import { html, htmlResponse, path, withQuery, type Html } from "../html";
import { layout } from "../layout";
import { skuSection } from "./figure-charts";
import type { PageContext } from "../page";
import { asJson, field, FormError, formRequest, readForm, seeOther } from "../forms";
import { shownOnForm } from "../refusals";
import { formProblem, input, noticeOf, refusedByRole } from "./parts";

/** As POST /admin/products/:sku/codes: up to 1 MiB of CSV. */
const UPLOAD_MAX_BYTES = 1_048_576;

/** What a refused form is drawn again with. */
interface Outcome {
  /** Why the change was refused: beside its field, or on the page as a whole. */
  refused: FormError;
  /** The upload's report, row by row, when it was refused. */
  report?: { report: RowReport; rows: string[][] };
  /** The threshold as sent. */
  threshold?: string;
}

/** The refused upload, row by row: each row's number (after the header), its pin and its problems. */
function reportTable({ report, rows }: NonNullable<Outcome["report"]>): Html {
  const header = (rows[0] ?? []).map((name) => name.trim().toLowerCase());
  const pinColumn = header.indexOf("pin");
  const bad = [...report.rows.keys()].sort((a, b) => a - b);
  return html`<section aria-labelledby="report-heading" class="card">
    <h2 id="report-heading">Upload report: nothing was added</h2>
    <p>${bad.length} of ${Math.max(rows.length - 1, 0)} rows refused. Rows are counted after the header row; fix them and upload the whole file again.</p>
    ${report.general.length > 0 ? html`<ul>${report.general.map((problem) => html`<li>${problem}</li>`)}</ul>` : ""}
    ${
      bad.length > 0
        ? html`<table><thead><tr><th scope="col">Row</th><th scope="col">Pin</th><th scope="col">Problem</th></tr></thead>
        <tbody>${bad.map(
          (
            index,
          ) => html`<tr><td>Row ${index + 1}</td><td class="mono">${pinColumn >= 0 ? (rows[index + 1]?.[pinColumn] ?? "") : ""}</td>
            <td>${report.rows.get(index)!.join("; ")}</td></tr>`,
        )}</tbody></table>`
        : ""
    }
  </section>`;
}

/** An inventory SKU's codes per value: available, reserved and sold. */
function codesPerValue(stock: Awaited<ReturnType<typeof stockOf>>): Html {
  return html`<section aria-labelledby="stock-heading">
    <h2 id="stock-heading">Codes per value</h2>
    <table><thead><tr><th scope="col" class="num">Value</th><th scope="col" class="num">Available</th><th scope="col" class="num">Reserved</th><th scope="col" class="num">Sold</th></tr></thead>
    <tbody>${stock.map((row) => html`<tr><td class="num">${row.value}</td><td class="num">${row.available}</td><td class="num">${row.reserved}</td><td class="num">${row.sold}</td></tr>`)}</tbody></table>
    ${stock.length === 0 ? html`<p>No codes yet.</p>` : ""}
  </section>`;
}

async function draw(ctx: PageContext, outcome: Partial<Outcome> = {}) {
  const { env, operator, params, url } = ctx;
  const sku = params.sku!;
  const product = await requireProduct(env.DB, sku);
  const inventory = product.supplier === "inventory";
  const [stock, threshold, figures] = await Promise.all([
    stockOf(env.DB, sku),
    stockThresholdOf(env.DB, sku),
    inventory ? skuSection(ctx, sku) : html``,
  ]);
  const action = path("/console/catalogue", sku);
  const mayChange = roleAllows(operator.role, "operator");
  const notices = {
    uploaded: `${Number(url.searchParams.get("added") ?? 0)} codes added.`,
    enabled: "The SKU is on sale again.",
    disabled: "The SKU is no longer sold; orders already created are kept.",
    threshold: "Low-stock threshold saved.",
  };
  const body = html`
    ${noticeOf(url, notices)}
    ${formProblem(outcome.refused)}
    ${outcome.report !== undefined ? reportTable(outcome.report) : ""}
    <dl class="facts">
      <dt>Name</dt><dd>${product.name}</dd>
      <dt>Type</dt><dd>${product.productType} ${product.productType === "fixed" ? html`(${(product.quotes ?? []).join(", ")})` : html`(${product.minQuote}..${product.maxQuote})`}</dd>
      <dt>Currency</dt><dd>${product.currency}</dd>
      <dt>Supplier</dt><dd>${product.supplier}</dd>
      <dt>Sale</dt><dd>${product.active ? "on sale" : "disabled"}</dd>
      <dt>Low-stock threshold</dt><dd>${threshold ?? "none"}</dd>
    </dl>
    ${
      mayChange
        ? html`<form method="post" action="${action}" class="inline">
          <input type="hidden" name="action" value="${product.active ? "disable" : "enable"}" />
          <button type="submit">${product.active ? "Disable sale" : "Enable sale"}</button>
        </form>`
        : ""
    }
    ${
      inventory
        ? html`${codesPerValue(stock)}${figures}
        ${
          mayChange
            ? html`<form method="post" action="${action}" enctype="multipart/form-data" class="card" aria-labelledby="upload-heading">
              <h2 id="upload-heading">Upload codes (CSV)</h2>
              <input type="hidden" name="action" value="upload" />
              <p class="hint" id="upload-hint">A header row naming value, pin and link, then one code per row. All or nothing: a file with any bad row adds nothing, and the report names each bad row.</p>
              <div class="field"><label for="upload-file">CSV file</label>
                <input id="upload-file" name="file" type="file" accept=".csv,text/csv" aria-describedby="upload-hint" /></div>
              <div class="field"><label for="upload-text">Or paste the CSV</label>
                <textarea id="upload-text" name="csv" rows="6" aria-describedby="upload-hint"></textarea></div>
              <button type="submit">Upload codes</button>
            </form>
            <form method="post" action="${action}" class="card" aria-labelledby="threshold-heading">
              <h2 id="threshold-heading">Low-stock threshold</h2>
              <input type="hidden" name="action" value="threshold" />
              ${input("threshold", "Threshold (codes available, all values together)", {
                value: outcome.threshold ?? (threshold === null ? "" : String(threshold)),
                hint: "Listed on Needs attention while fewer codes are available. Leave empty to remove it.",
                error: outcome.refused,
                required: false,
              })}
              <button type="submit">Save threshold</button>
            </form>`
            : ""
        }`
        : html`<p>This SKU is supplied by ${product.supplier}: it has no codes to upload.</p>`
    }
    <p><a href="/console/catalogue">All SKUs</a></p>`;
  return layout({ title: `SKU ${sku}`, operator, current: "/console/catalogue", body });
}

export function get(ctx: PageContext) {
  return draw(ctx);
}

/** The CSV of an upload form: its file's text (read by readForm), else the pasted rows. */
async function upload(ctx: PageContext, form: Map<string, string>): Promise<Response | Outcome> {
  const file = form.get("file") ?? "";
  const text = file !== "" ? file : (form.get("csv") ?? "").trim();
  if (text === "") return { refused: new FormError("form", "Choose a CSV file or paste its rows.") };
  if (new TextEncoder().encode(text).byteLength > UPLOAD_MAX_BYTES)
    return { refused: new FormError("form", "The CSV is larger than 1 MiB; split it.") };
  const sku = ctx.params.sku!;
  try {
    const added = await uploadCodes(ctx.env.DB, {
      actor: auditedBy(ctx),
      requireProduct,
      sku,
      text,
      format: "text/csv",
    });
    return seeOther(withQuery(path("/console/catalogue", sku), { notice: "uploaded", added: added.added }));
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const parsed = parseCsv(text);
    const report = refusedRows(error.failure.code, error.failure.details);
    return {
      refused: new FormError("form", "The upload was refused: nothing was added."),
      report: { report, rows: parsed.ok ? parsed.rows : [] },
    };
  }
}

/** POST /console/catalogue/:sku: `action` upload, enable, disable or threshold. */
export async function post(ctx: PageContext) {
  if (!roleAllows(ctx.operator.role, "operator")) return refusedByRole(ctx, "operator");
  const sku = ctx.params.sku!;
  const here = path("/console/catalogue", sku);
  let threshold: string | undefined;
  try {
    // An upload's CSV may be up to 1 MiB, with room for the multipart framing and the other fields.
    const form = await readForm(ctx.request, UPLOAD_MAX_BYTES + 16 * 1024);
    const action = form.get("action");
    if (action === "upload") {
      const outcome = await upload(ctx, form);
      return outcome instanceof Response ? outcome : htmlResponse(await draw(ctx, outcome), 400);
    }
    if (action === "enable" || action === "disable") {
      await setProductActive(ctx.env.DB, auditedBy(ctx), sku, action === "enable");
      return seeOther(withQuery(here, { notice: `${action}d` }));
    }
    if (action !== "threshold") throw new FormError("form", "Unknown action: nothing was changed.");
    threshold = field(form, "threshold", { required: false });
    // Read as PUT /admin/products/:sku/low-stock-threshold reads its body.
    const read = formRequest(
      StockThresholdRequest,
      { threshold: threshold === "" ? null : asJson(threshold) },
      { threshold: "A whole number of codes from 1 to 1,000,000." },
    );
    if (read instanceof FormError) throw read;
    await setStockThreshold(ctx.env.DB, auditedBy(ctx), sku, read.threshold);
    return seeOther(withQuery(here, { notice: "threshold" }));
  } catch (error) {
    const refused = shownOnForm(error, ["threshold"]);
    if (refused === null) throw error;
    return htmlResponse(await draw(ctx, { refused, threshold }), 400);
  }
}
