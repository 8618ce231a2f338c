/** Operator API: the reconciliation of the books, the ledgers, the codes and the audit log by wallet and day. */
import { actorColumns } from "../audit/audit-store";
import { RefusalWithHeaders } from "../http/errors";
import { failure } from "../kernel/failures";
import { route, type AdminCaller, type Route } from "../http/route";
import { ON_DEMAND_WINDOW_MS, reconcile, takeOnDemandRun } from "./reconciliation";
import { ReconciliationData, ReconciliationQuery } from "./reconciliation-admin-schemas";
import { reconciliationExamples } from "./reconciliation-examples";

/** At most 3 on-demand runs a minute per operator: beyond them, 429 rate_limited with its Retry-After. */
async function takeRun(db: D1Database, caller: AdminCaller): Promise<void> {
  if (!(await takeOnDemandRun(db, actorColumns(caller.actor).actor)))
    throw new RefusalWithHeaders(failure("rate_limited"), { "retry-after": String(ON_DEMAND_WINDOW_MS / 1000) });
}

/** This file's routes, each with its description in GET /openapi.json. */
export const reconciliationRoutes: Route[] = [
  route(
    {
      method: "GET",
      path: "/admin/reconciliation",
      operationId: "adminReconcile",
      example: reconciliationExamples.adminReconcile,
      tag: "Admin: orders",
      summary: "Reconcile the books, wallet ledgers, codes and the audit log by wallet and day over a period",
      description:
        "The reconciliation by wallet and day over a period: each client's wallet (currency) on each UTC day from `createdFrom`'s to `createdTo`'s that has books, and the days the top-ups and adjustments audited, codes sold and wallets moved in the period fall on. For each, the ledger's summary (charges, refunds, the hash of its (order, amount) pairs), the books', the codes table's (codes sold to the day's orders, the hash of their (code, order) pairs) and the audit log's (each posting with its audit row) are compared; where they differ, each order is checked against the order object: charged or delivered with its charge in the ledger, its books row, its ledger lines and its codes agreeing with it. Every move transfer is paired and every balance follows its ledger. Orders still changing within `grace` seconds are counted in `leftToNextRun`, not judged. Work is bounded (`complete` false when a budget stopped it). Reads only and stores nothing (the scheduled pass stores what the home page shows); at most 3 runs a minute per operator (429 `rate_limited`). docs/operator-api.md, Reconciliation, says what each check means.",
      auth: "admin",
      role: "viewer",
      query: ReconciliationQuery,
      data: ReconciliationData,
      messages: ["Reconciliation"],
      errors: [],
    },
    /** GET /admin/reconciliation?createdFrom=&createdTo=&grace=. */
    async ({ query, caller, env, ok }) => {
      await takeRun(env.DB, caller);
      return ok("Reconciliation", await reconcile(env, query));
    },
  ),
];
