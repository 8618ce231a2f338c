/** Operator API: the order index's repair pass. */
import { route, type Route } from "../http/route";
import { RepairRunData } from "./order-index-admin-schemas";
import { repairIndex } from "./order-index-repair";

/** This file's routes, each with its description in GET /openapi.json. */
export const orderIndexRoutes: Route[] = [
  route(
    {
      method: "POST",
      path: "/admin/orders/index/run",
      operationId: "adminRunOrderIndexRepair",
      example: { data: { orders: 3, rowsWritten: 1, rowsRead: 3, open: 2, more: false } },
      tag: "Admin: orders",
      role: "operator",
      summary: "Run the order index's repair pass",
      description:
        "Every order writes its own row to its client's books within seconds of each change, with no step of yours. This pass asks each order the books still hold as open (created, confirmed or processing) to write its row again from its own record; a row that is already current is left as it is. It finds them through the books' directory: the shards of the last 31 days whose published figures (at most an hour old) count open orders, and in each its open orders (at most 2,000 per run; a run that reaches that bound answers `more` and the next run resumes where it stopped), so it costs the same however many wallets there are. It changes no order and no money.",
      auth: "admin",
      data: RepairRunData,
      messages: ["Order index repair pass run"],
      errors: [],
    },
    async ({ env, ok }) => ok("Order index repair pass run", await repairIndex(env)),
  ),
];
