/** Requests and responses of the operator's order lookup (read only). */
import * as z from "zod";
import { ClientIdPath } from "../kernel/primitives";
import { OrderState, OrderView } from "./order-view-schemas";

const OrderId = z
  .string()
  .min(1)
  .max(256)
  .meta({ examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"] });

export const OrderParams = z.object({ orderId: OrderId });

export const OrderLookupQuery = z.object({
  clientId: ClientIdPath,
  reference: z
    .string()
    .min(1)
    .max(256)
    .meta({ examples: ["po-2026-0042"] }),
});

export const AdminOrderData = z.object({
  clientId: z.string(),
  reference: z.string(),
  state: OrderState,
  order: OrderView.describe("The order as its client sees it (GET /order/get)."),
  record: z
    .record(z.string(), z.unknown())
    .describe("The stored order record: lines with supplier status and failure reasons, amounts as decimal strings."),
});

export const TimerFailureView = z.object({
  orderId: z.string(),
  clientId: z.string(),
  timer: z
    .enum(["expire", "process", "outbox", "settle", "index", "supplier"])
    .describe(
      'The order\'s timer that keeps failing (expiry, processing, webhook outbox, settling a cut-off confirm, or writing its row to the order index), or `supplier`: upstream lines (`skus`) whose outcome has been unknown (a timeout, "in progress") for longer than UPSTREAM_UNKNOWN_BUDGET_SECONDS. Such an order stays `processing` and is not refunded: the codes may have been issued.',
    ),
  skus: z
    .array(z.string())
    .describe(
      "For `supplier`: the SKUs of the lines whose outcome is unknown, longest unknown first. Empty for a failing timer.",
    ),
  failures: z
    .number()
    .int()
    .describe(
      "Failed runs in a row; for `supplier`, the attempts made for the longest unknown line. Retried with capped backoff for as long as it takes.",
    ),
  lastError: z.string().describe("The last error, or for `supplier` each line's last answer (`<sku>: <answer>`)."),
  firstFailedAt: z
    .number()
    .int()
    .describe(
      "Unix ms of the first failure of this run of failures; for `supplier`, since when the longest unknown line's outcome is unknown.",
    ),
  lastFailedAt: z.number().int(),
  nextAttemptAt: z.number().int().describe("Unix ms of the next retry."),
});

export const StuckOrdersData = z.object({
  orders: z.array(TimerFailureView),
  next: z.string().nullable().describe("Cursor of the next page (pass as `after`), null on the last page."),
});
