/**
 * GET /console/orders/export: every order the Orders page's filters select, newest first, as the CSV of
 * GET /admin/orders/export (the same columns and values, streamed from the index a batch at a time), for
 * any signed-in operator. Reference cells are neutralised against spreadsheet formulas there
 * (src/order-index/order-search.ts, src/kernel/csv-export.ts).
 */
import { csvDownloadHeaders, orderCsvStream } from "../../order-index/order-search";
import type { PageContext } from "../page";
import { orderFiltersOf } from "./orders";

export async function get(ctx: PageContext) {
  const { filter, problems } = orderFiltersOf(ctx.url);
  if (problems.length > 0)
    return new Response(`${problems.map((problem) => `${problem.field}: ${problem.text}`).join("; ")}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  return new Response(orderCsvStream(ctx.env.DB, filter), { headers: csvDownloadHeaders("orders.csv") });
}
