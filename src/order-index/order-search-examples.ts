/**
 * Examples of the order search and its export in GET /openapi.json: the orders' example order once it is
 * successful, as the order index lists it (indexRowOf, orderSummaryOf). test/openapi/examples.test.ts
 * checks each against a real answer.
 */
import { csvLine } from "../kernel/csv-export";
import { EXAMPLE_SUCCESSFUL } from "../orders/order-examples";
import { indexRowOf } from "./order-index-store";
import { ORDER_CSV_COLUMNS, orderCsvLine, orderSummaryOf } from "./order-search";

const summary = orderSummaryOf(indexRowOf(EXAMPLE_SUCCESSFUL));

export const orderSearchExamples = {
  adminSearchOrders: { data: { orders: [summary], next: null } },
  adminExportOrders: { data: null, file: csvLine([...ORDER_CSV_COLUMNS]) + orderCsvLine(summary) },
};
