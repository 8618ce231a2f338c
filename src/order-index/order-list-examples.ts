/**
 * The example of GET /orders in GET /openapi.json: the orders' example order once it is successful, as the
 * client's list shows it (indexRowOf, clientOrderSummary). test/openapi/examples.test.ts checks it against a
 * real answer.
 */
import { EXAMPLE_SUCCESSFUL } from "../orders/order-examples";
import { indexRowOf } from "./order-index-store";
import { clientOrderSummary } from "./order-list";

export const orderListExamples = {
  listOrders: { data: { orders: [clientOrderSummary(indexRowOf(EXAMPLE_SUCCESSFUL))], next: null } },
};
