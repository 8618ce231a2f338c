/** Operator API: the reconciliation of orders, ledgers and codes, and the order index's backfill. */
import type { IRequest } from "itty-router";
import { audit } from "../audit/audit-log";
import { adminCaller } from "../http/admin-auth";
import { parseQuery } from "../http/params";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { backfillIndex, reconcile } from "./reconciliation";
import { BackfillData, ReconciliationData, ReconciliationQuery } from "./reconciliation-admin-schemas";
import { reconciliationExamples } from "./reconciliation-examples";

/** GET /admin/reconciliation?createdFrom=&createdTo=&grace=. */
export async function getReconciliation(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(ReconciliationQuery, request);
  return ok("Reconciliation", await reconcile(context.env, query));
}

/**
 * POST /admin/orders/index/backfill: audited with its counts when it wrote a row; one that found nothing
 * to write changed nothing, and leaves no row claiming it did (as auditStatementIfChanged does).
 */
export async function postBackfill(request: IRequest, context: RequestContext): Promise<Response> {
  const actor = adminCaller(context);
  const result = await backfillIndex(context.env);
  if (result.written > 0) await audit(context.env.DB, actor, "order.index.backfill", "order_index", result);
  return ok("Order index backfilled", result);
}

/** This file's routes, each with its description in GET /openapi.json. */
export const reconciliationRoutes: Route[] = [
  {
    method: "GET",
    path: "/admin/reconciliation",
    handler: getReconciliation,
    operationId: "adminReconcile",
    example: reconciliationExamples.adminReconcile,
    tag: "Admin: orders",
    summary: "Reconcile orders, wallet ledgers and sold codes over a period",
    description:
      "Three checks over orders created (and ledger movements made) from `createdFrom` to `createdTo`: every ledger movement that names an order matches that order's row in the order index (its state and amounts); every indexed order in an end state has ledger lines netting to its charge minus its refunds, across every region its wallet has been in; every code sold to those orders is in exactly its order's redeem, and no sold code belongs to no order. A movement of an order still open (created or confirmed) is counted, not a mismatch. Orders and movements changed within `grace` seconds are left to the next run. Each mismatch names the operator routes that show it. Reads only; it reads every wallet's ledger from the period's start on. docs/operator-api.md, Reconciliation, says what each check means; the scheduled job runs it hourly over the last day.",
    auth: "admin",
    role: "viewer",
    query: ReconciliationQuery,
    data: ReconciliationData,
    messages: ["Reconciliation"],
    errors: [],
  },
  {
    method: "POST",
    path: "/admin/orders/index/backfill",
    handler: postBackfill,
    operationId: "adminBackfillOrderIndex",
    example: reconciliationExamples.adminBackfillOrderIndex,
    tag: "Admin: orders",
    summary: "Write index rows for orders that ended before the order index existed",
    description:
      "Walks every wallet's whole ledger (every charge names its order), reads each named order from its own object, and writes an index row for each one in a state the index holds that has none. A backfilled row is replaced by the order's own next write and never replaces one; run again, it writes nothing. An order that never moved money (rejected before any charge) is not found. Audited as `order.index.backfill` with its counts when it wrote a row.",
    auth: "admin",
    role: "admin",
    data: BackfillData,
    messages: ["Order index backfilled"],
    errors: [],
  },
];
