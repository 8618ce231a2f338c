/**
 * GET /console/audit: the audit log, newest first, filtered by actor, action, target and dates; the same
 * filters feed the CSV export (audit-export.ts). Every operator change is listed here under its actor.
 */
import { auditEntriesBefore, type AuditFilters, type AuditRow } from "../../audit/audit-store";
import { pageOf, rowsToFetch } from "../../kernel/paging";
import { when } from "../format";
import { html, withQuery } from "../html";
import { layout } from "../layout";
import type { PageContext } from "../page";
import { notice } from "./parts";

const PAGE_SIZE = 50;

/** The filters of a query string, and what was wrong with any (a date that is not a date). */
export function auditFiltersOf(url: URL): { filters: AuditFilters; query: Record<string, string>; problems: string[] } {
  const text = (name: string) => (url.searchParams.get(name) ?? "").trim().slice(0, 300);
  const query = {
    actor: text("actor"),
    action: text("action"),
    target: text("target"),
    from: text("from"),
    to: text("to"),
  };
  const filters: AuditFilters = {};
  const problems: string[] = [];
  if (query.actor !== "") filters.actor = query.actor;
  if (query.action !== "") filters.action = query.action;
  if (query.target !== "") filters.target = query.target;
  const day = (value: string, name: string) => {
    if (value === "") return undefined;
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(ms)) problems.push(`${name} is a date like 2026-11-25`);
    return Number.isNaN(ms) ? undefined : ms;
  };
  filters.from = day(query.from, "From");
  const to = day(query.to, "To");
  // "To" names the last day shown: rows before the next midnight.
  if (to !== undefined) filters.to = to + 24 * 60 * 60 * 1000;
  return { filters, query, problems };
}

function detailsText(row: AuditRow): string {
  return row.details === "{}" ? "" : row.details;
}

export async function get(ctx: PageContext) {
  const { env, operator, url } = ctx;
  const { filters, query, problems } = auditFiltersOf(url);
  const beforeText = url.searchParams.get("before");
  const before = beforeText !== null && /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : null;
  const listed = pageOf(
    await auditEntriesBefore(env.DB, filters, before, rowsToFetch(PAGE_SIZE)),
    PAGE_SIZE,
    (row) => row.id,
  );
  const filterField = (name: keyof typeof query, label: string, hint?: string) =>
    html`<div class="field"><label for="audit-${name}">${label}</label>
      ${hint !== undefined ? html`<span class="hint" id="audit-${name}-hint">${hint}</span>` : ""}
      <input id="audit-${name}" name="${name}" value="${query[name]}" ${hint !== undefined ? html`aria-describedby="audit-${name}-hint"` : ""} /></div>`;
  const body = html`
    ${problems.length > 0 ? notice("bad", problems.join("; ")) : ""}
    <form method="get" action="/console/audit" class="card" aria-label="Filter the audit log">
      ${filterField("actor", "Actor contains", "An operator's name, or admin: for the break-glass token")}
      ${filterField("action", "Action starts with", "e.g. wallet. or inventory.upload")}
      ${filterField("target", "Target", "Exactly, e.g. client:acme or product:EU-VOUCHER")}
      ${filterField("from", "From (UTC date)", "2026-11-25")}
      ${filterField("to", "To (UTC date, included)", "2026-11-25")}
      <button type="submit">Filter</button>
      <a href="${withQuery("/console/audit/export", query)}">Export these rows as CSV</a>
    </form>
    ${
      listed.items.length === 0
        ? html`<p>No audit rows match.</p>`
        : html`<table>
          <thead><tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead>
          <tbody>${listed.items.map(
            (
              row,
            ) => html`<tr><td>${when(row.at)}</td><td>${row.actor_name !== null ? html`${row.actor_name} <span class="hint mono">${row.actor}</span>` : row.actor}</td><td>${row.action}</td><td>${row.target}</td>
              <td class="mono">${detailsText(row)}</td></tr>`,
          )}</tbody></table>`
    }
    ${listed.next !== null ? html`<p><a href="${withQuery("/console/audit", { ...query, before: listed.next })}">Older rows</a></p>` : ""}`;
  return layout({ title: "Audit log", operator, current: "/console/audit", body });
}
