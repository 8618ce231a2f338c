/** Operator API: the reconciliation of orders, ledgers and codes. */
import type { IRequest } from "itty-router";
import { actorColumns } from "../audit/audit-store";
import { adminCaller } from "../http/admin-auth";
import { RefusalWithHeaders } from "../http/errors";
import { failure } from "../kernel/failures";
import { parseQuery } from "../http/params";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { ON_DEMAND_WINDOW_MS, reconcile, takeOnDemandRun } from "./reconciliation";
import { ReconciliationData, ReconciliationQuery } from "./reconciliation-admin-schemas";
import { reconciliationExamples } from "./reconciliation-examples";

/** GET /admin/reconciliation?createdFrom=&createdTo=&grace=. */
export async function getReconciliation(request: IRequest, context: RequestContext): Promise<Response> {
  const query = parseQuery(ReconciliationQuery, request);
  const caller = adminCaller(context);
  if (!(await takeOnDemandRun(context.env.DB, actorColumns(caller.actor).actor)))
    throw new RefusalWithHeaders(failure("rate_limited"), { "retry-after": String(ON_DEMAND_WINDOW_MS / 1000) });
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
    summary: "Reconcile orders, the index, wallet ledgers, codes and the audit log over a period",
    description:
      "The reconciliation's checks over what happened in a period (orders created, codes sold, top-ups and adjustments audited, wallets moved from `createdFrom` to `createdTo`): every order charged or delivered has its charge in the ledger; its index row, its ledger lines and its codes agree with the order; every sold code is in exactly its order's redeem; every top-up and adjustment of the wallets that moved money has its audit row and every audit row its entry; every move transfer is paired; every balance equals its ledgers. Orders still changing within `grace` seconds are counted in `leftToNextRun`, not compared on amounts. Work is bounded (`complete` false when a budget stopped it). Reads only and stores nothing (the hourly run stores what the home page shows); at most 3 runs a minute per operator (429 `rate_limited`). docs/operator-api.md, Reconciliation, says what each check means.",
    auth: "admin",
    role: "viewer",
    query: ReconciliationQuery,
    data: ReconciliationData,
    messages: ["Reconciliation"],
    errors: [],
  },
];
