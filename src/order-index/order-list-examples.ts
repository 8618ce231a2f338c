/**
 * The example of GET /orders in GET /openapi.json: the orders' example order once it is successful, as the
 * client's list shows it (bookWriteOf, clientOrderSummary). test/openapi/examples.test.ts checks it against a
 * real answer.
 */
import { EXAMPLE_SUCCESSFUL } from "../orders/order-examples";
import { bookWriteOf } from "../books/row-rules";
import { clientOrderSummary } from "./order-list";

export const orderListExamples = {
  listOrders: { data: { orders: [clientOrderSummary(bookWriteOf(EXAMPLE_SUCCESSFUL, 1))], next: null } },
};
