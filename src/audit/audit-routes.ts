/** Operator API: the audit log of operator actions. */
import type { IRequest } from "itty-router";
import { fail } from "../http/errors";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { adminActor, parseQuery } from "../http/params";
import { AuditPage, AuditQuery } from "../clients/schemas";
import { auditExamples } from "./audit-examples";

interface AuditRow {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string;
  request_id: string;
  details: string;
}

/** GET /admin/audit?after=&limit=&target=: oldest first; `next` continues after the last entry. */
export async function listAudit(request: IRequest, context: RequestContext): Promise<Response> {
  await adminActor(request, context);
  const query = parseQuery(AuditQuery, request);
  const after = query.after === undefined ? 0 : Number(query.after);
  if (!Number.isSafeInteger(after) || after < 0) fail("invalid_parameters", { issues: [{ path: "after", message: "an entry id" }] });
  const limit = query.limit ?? 100;
  const { results } = await context.env.DB.prepare(
    `SELECT id, at, actor, action, target, request_id, details FROM audit_log
      WHERE id > ?1 AND (?2 IS NULL OR target = ?2) ORDER BY id LIMIT ?3`,
  )
    .bind(after, query.target ?? null, limit + 1)
    .all<AuditRow>();
  const entries = results.slice(0, limit).map((row) => ({
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    target: row.target,
    requestId: row.request_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
  return ok("Audit log", { entries, next: results.length > limit ? String(entries[entries.length - 1]!.id) : null });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const auditRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/audit",
    handler: listAudit,
    operationId: "adminListAudit",
    example: auditExamples.adminListAudit,
    tag: "Admin: audit",
    summary: "Operator actions, oldest first",
    description: "Every change an operator made (who, what, on which target, with the request id), oldest first. Page with `after` (the `next` of the previous page) and `limit`; filter one target with `target`, e.g. `client:acme` or `product:EU-VOUCHER`.",
    auth: "admin",
    query: AuditQuery,
    data: AuditPage,
    messages: ["Audit log"],
    errors: [],
  },
];
