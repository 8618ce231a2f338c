/** Requests and responses of the operator's order lookup (read only). */
import { z } from "zod";
import { ClientIdParam } from "../kernel/primitives";
import { OrderState, OrderView } from "./schemas";

export const OrderParams = z.object({ orderId: z.string().min(1).max(256) });

export const OrderLookupQuery = z.object({ clientId: ClientIdParam, reference: z.string().min(1).max(256) });

export const AdminOrderData = z.object({
  clientId: z.string(),
  reference: z.string(),
  state: OrderState,
  order: OrderView.describe("The order as its client sees it (GET /order/get)."),
  record: z.record(z.string(), z.unknown()).describe("The stored order record: lines with supplier status and failure reasons, amounts as decimal strings."),
});
