/** Operator API: bring the order index up to date now (the scheduled job does it every 5 minutes). */
import type { IRequest } from "itty-router";
import { ok } from "../http/responses";
import type { RequestContext, Route } from "../http/route";
import { IndexerRunData } from "./order-index-admin-schemas";
import { indexOrders } from "./order-indexer";

/** POST /admin/orders/index/run. */
export async function runIndexer(_request: IRequest, context: RequestContext): Promise<Response> {
  return ok("Order index brought up to date", await indexOrders(context.env));
}

/** This file's routes, each with its description in GET /openapi.json. */
export const orderIndexRoutes: Route[] = [
  {
    method: "POST",
    path: "/admin/orders/index/run",
    handler: runIndexer,
    operationId: "adminRunOrderIndexer",
    example: { data: { wallets: 2, entries: 4, orders: 3, rowsWritten: 8, open: 0, behind: 0 } },
    tag: "Admin: orders",
    role: "operator",
    summary: "Bring the order index up to date now",
    description:
      "Runs the order indexer once, as the scheduled job does every 5 minutes: it reads each wallet's new ledger entries, reads the orders they name from their objects and writes their rows to the order index that order search, the export and the reconciliation read. It changes no order and no money, and running it again writes nothing new.",
    auth: "admin",
    data: IndexerRunData,
    messages: ["Order index brought up to date"],
    errors: [],
  },
];
