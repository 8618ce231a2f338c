/**
 * GET /console/orders/export: every order the Orders page's filters select, newest first, as the CSV of
 * GET /admin/orders/export (the same columns and values, streamed from the index a batch at a time), for
 * any signed-in operator. Reference cells are neutralised against spreadsheet formulas there
 * (src/order-index/order-search.ts, src/kernel/csv-export.ts).
 *
 * /console/orders/exports: the exports across clients, background jobs (src/exports/): the Orders page's
 * filters (but a client's) with a button that starts one (POST, as POST /admin/orders/exports), and the
 * jobs with their progress; /console/orders/exports/:exportId downloads a finished job's file, its chunks
 * in order.
 */
import { fail } from "../../kernel/failures";
import { csvDownloadHeaders, orderCsvStream } from "../../order-index/order-search";
import { exportFile, requireExport, startExport, viewOf, type ExportView } from "../../exports/export-jobs";
import { listJobs } from "../../exports/export-store";
import type { ExportFilter } from "../../exports/export-rules";
import { DAY_MS } from "../../books/shard-rules";
import { when } from "../format";
import { readForm, seeOther } from "../forms";
import { html, htmlResponse, withQuery, type Html } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { orderFiltersOf, type FieldProblem, type OrderSearchFields } from "./orders";
import { notice, noticeOf } from "./parts";

const NOTICES = { started: "The export was started: it is listed below, and its file can be downloaded once done." };

/** The filters' fields a job is started with (a reference prefix needs a client, so never here). */
const JOB_FIELDS = ["state", "sku", "createdFrom", "createdTo"] as const;

function problemsText(problems: { field: string; text: string }[]): Response {
  return new Response(`${problems.map((problem) => `${problem.field}: ${problem.text}`).join("; ")}\n`, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

const day = (value: number) => new Date(value * DAY_MS).toISOString().slice(0, 10);

function jobRow(job: ExportView): Html {
  const filter = Object.entries(job.filter).map(
    ([name, value], index) =>
      html`${index > 0 ? ", " : ""}${name}=${name.startsWith("created") ? when(value as number) : String(value)}`,
  );
  const file =
    job.state === "done"
      ? html`<a href="/console/orders/exports/${String(job.id)}" download>Download CSV</a>`
      : html`<span class="hint">running</span>`;
  return html`<tr><td class="num">${job.id}</td><td>${filter}</td>
    <td>${job.state}: ${job.daysDone} of ${job.days} days (${day(job.toDay)} back to ${day(job.fromDay)})</td>
    <td class="num">${job.rows}</td><td class="num">${job.chunks}</td>
    <td>${job.requestedByName ?? job.requestedBy}, ${when(job.createdAt)}</td><td>${file}</td></tr>`;
}

async function draw(ctx: PageContext, fields: OrderSearchFields, problems: FieldProblem[] = []): Promise<Html> {
  const jobs = (await listJobs(ctx.env.DB, null, 20)).map(viewOf);
  const hidden = JOB_FIELDS.map((name) => html`<input type="hidden" name="${name}" value="${fields[name]}" />`);
  const chosen = JOB_FIELDS.filter((name) => fields[name] !== "").map((name) => `${name} ${fields[name]}`);
  const table =
    jobs.length === 0
      ? html`<p>No export has been asked for yet.</p>`
      : html`<table><caption>Exports across clients, newest first</caption>
          <thead><tr><th scope="col" class="num">#</th><th scope="col">Filter</th><th scope="col">Progress</th>
          <th scope="col" class="num">Orders</th><th scope="col" class="num">Chunks</th><th scope="col">Asked by</th>
          <th scope="col">File</th></tr></thead><tbody>${jobs.map(jobRow)}</tbody></table>`;
  const refused = problems.map((problem) => notice("bad", `${problem.field}: ${problem.text}`));
  const body = html`${noticeOf(ctx.url, NOTICES)}${refused}
    <form method="post" action="/console/orders/exports" class="card" aria-labelledby="start-title">
      <h2 id="start-title">Export every client's orders</h2>
      <p>Orders of every client${chosen.length === 0 ? "" : `, ${chosen.join(", ")}`}, written in the background
        to a file you download here once it is done (for one client's orders, filter by client on the
        <a href="${withQuery("/console/orders", { ...fields })}">Orders page</a>: its CSV downloads at once).</p>
      ${hidden}<button type="submit">Start the export</button>
    </form>
    <section aria-labelledby="jobs-title"><h2 id="jobs-title">Exports</h2>${table}</section>`;
  return layout({ title: "Exports across clients", operator: ctx.operator, current: "/console/orders", body });
}

async function download(ctx: PageContext): Promise<Response> {
  const id = Number(ctx.params.exportId);
  if (!Number.isSafeInteger(id) || id < 1) fail("export_not_found", { id: 0 });
  const job = await requireExport(ctx.env.DB, id);
  return new Response(exportFile(ctx.env, job), { headers: csvDownloadHeaders(`orders-export-${job.id}.csv`) });
}

export async function get(ctx: PageContext): Promise<Html | Response> {
  if (ctx.params.exportId !== undefined) return download(ctx);
  const { fields, filter, problems } = orderFiltersOf(ctx.url);
  if (ctx.url.pathname.replace(/\/+$/, "") === "/console/orders/exports") return draw(ctx, fields, problems);
  if (problems.length > 0) return problemsText(problems);
  return new Response(orderCsvStream(ctx.env, filter), { headers: csvDownloadHeaders("orders.csv") });
}

/** POST: start an export across clients with the filters posted (read as the Orders page reads them). */
export async function post(ctx: PageContext): Promise<Html | Response> {
  const form = await readForm(ctx.request);
  const url = new URL("/console/orders/exports", ctx.url);
  for (const name of JOB_FIELDS) url.searchParams.set(name, form.get(name) ?? "");
  const { fields, filter, problems } = orderFiltersOf(url);
  if (problems.length > 0) return htmlResponse(await draw(ctx, fields, problems), 400);
  const actor = { kind: "operator" as const, id: ctx.operator.operatorId, name: ctx.operator.name };
  await startExport(ctx.env, actor, filter as ExportFilter);
  return seeOther("/console/orders/exports?notice=started");
}
