/** Operator API: the reconciliation of orders, ledgers and codes. */
import type { IRequest } from "itty-router";
import { audit } from "../audit/audit-store";
import { adminCaller } from "../http/admin-auth";
import { parseQuery } from "../http/params";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { reconcile } from "./reconciliation";
import { ReconciliationData, ReconciliationQuery } from "./reconciliation-admin-schemas";
import { reconciliationExamples } from "./reconciliation-examples";

/** GET /admin/reconciliation?createdFrom=&createdTo=&grace=. */
export async function getReconciliation(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(ReconciliationQuery, request);
  return ok("Reconciliation", await reconcile(context.env, query));
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
];
