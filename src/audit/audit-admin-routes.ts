/** Operator API: the audit log of operator actions. */
import type * as z from "zod";
import { fail } from "../kernel/failures";
import { DEFAULT_PAGE_SIZE, pageOf } from "../kernel/paging";
import { auditEntriesAfter } from "./audit-store";
import { route, type Route } from "../http/route";
import { AuditPage, AuditQuery } from "./audit-admin-schemas";
import { auditExamples } from "./audit-examples";

/** GET /admin/audit?after=&limit=&target=: oldest first; `next` continues after the last entry. */
async function auditPage(db: D1Database, query: z.output<typeof AuditQuery>) {
  const after = query.after === undefined ? 0 : Number(query.after);
  if (!Number.isSafeInteger(after) || after < 0)
    fail("invalid_parameters", { issues: [{ path: "after", message: "an entry id" }] });
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const page = pageOf(await auditEntriesAfter(db, after, query.target ?? null, limit), limit, (row) => String(row.id));
  const entries = page.items.map((row) => ({
    id: row.id,
    at: row.at,
    actor: row.actor,
    actorName: row.actor_name,
    action: row.action,
    target: row.target,
    requestId: row.request_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
  return { entries, next: page.next };
}

/** This file's routes, each with its description in GET /openapi.json. */
export const auditRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/audit",
      operationId: "adminListAudit",
      example: auditExamples.adminListAudit,
      tag: "Admin: audit",
      summary: "Operator actions, oldest first",
      description:
        "Every change an operator made (who, what, on which target, with the request id), oldest first. Page with `after` (the `next` of the previous page) and `limit`; filter one target with `target`, e.g. `client:acme` or `product:EU-VOUCHER`.",
      auth: "admin",
      role: "viewer",
      query: AuditQuery,
      data: AuditPage,
      messages: ["Audit log"],
      errors: [],
    },
    async ({ query, env, ok }) => ok("Audit log", await auditPage(env.DB, query)),
  ),
];
