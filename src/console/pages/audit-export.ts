/**
 * GET /console/audit/export: the audit rows the audit page's filters select, newest first, as CSV (at most
 * EXPORT_MAX_ROWS; the last line says when more matched). Every text cell is neutralised against
 * spreadsheet formulas (src/kernel/csv-export.ts): a reason or a reference is data, never a formula.
 */
import { auditEntriesBefore } from "../../audit/audit-store";
import { csvLine } from "../../kernel/csv-export";
import type { PageContext } from "../page";
import { auditFiltersOf } from "./audit";

export const EXPORT_MAX_ROWS = 10_000;

export async function get(ctx: PageContext) {
  const { filters, problems } = auditFiltersOf(ctx.url);
  if (problems.length > 0)
    return new Response(`${problems.join("; ")}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  const rows = await auditEntriesBefore(ctx.env.DB, filters, null, EXPORT_MAX_ROWS + 1);
  let text = csvLine(["id", "at", "actor", "actor_name", "action", "target", "request_id", "details"]);
  for (const row of rows.slice(0, EXPORT_MAX_ROWS)) {
    text += csvLine([
      row.id,
      new Date(row.at).toISOString(),
      row.actor,
      row.actor_name,
      row.action,
      row.target,
      row.request_id,
      row.details,
    ]);
  }
  if (rows.length > EXPORT_MAX_ROWS) text += csvLine([`more than ${EXPORT_MAX_ROWS} rows matched: narrow the filters`]);
  return new Response(text, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-log.csv"`,
    },
  });
}
