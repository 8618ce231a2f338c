/** Requests and responses of the operator's order lookup (read only). */
import * as z from "zod";
import { ClientIdPath, Sku } from "../kernel/primitives";
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

/** POST /admin/orders/:orderId/codes/reveal: the order's codes in clear, per line that has any. */
export const RevealedCodesData = z.object({
  orderId: z.string(),
  clientId: z.string(),
  reference: z.string(),
  lines: z.array(
    z.object({
      line: z.number().int().min(0).describe("The line's index in the order's `record.lines`."),
      sku: Sku,
      pins: z.array(z.string()).describe("The line's redeem codes, in clear."),
      links: z
        .array(z.string())
        .describe("One redeem link per code, in the same order (empty when the supplier gives none)."),
    }),
  ),
});

export const TimerFailureView = z.object({
  orderId: z.string(),
  clientId: z.string(),
  timer: z
    .enum(["expire", "process", "outbox", "settle", "supplier"])
    .describe(
      'The order\'s timer that keeps failing (expiry, processing, webhook outbox, or settling a cut-off confirm), or `supplier`: upstream lines (`skus`) whose outcome has been unknown (a timeout, "in progress") for longer than UPSTREAM_UNKNOWN_BUDGET_SECONDS. Such an order stays `processing` and is not refunded: the codes may have been issued.',
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

/**
 * The states a search may ask for: any (order-index.ts holds every order that moved money; one still
 * `created` only when a confirm cut off midway had taken its charge).
 */
export const IndexedState = OrderState;

/** Unix ms, as a query parameter. */
const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** The filters of the order search and its CSV export. */
const searchFilters = {
  clientId: ClientIdPath.optional().describe("Only this client's orders."),
  state: IndexedState.optional().describe(
    "Only orders in this state. The index holds orders that have moved money: one still `created` (waiting for its confirm) or expired unconfirmed is not in it; find it by its client and exact reference (GET /admin/orders).",
  ),
  sku: Sku.optional()
    .describe("Only orders with a line of this SKU.")
    .meta({ examples: ["DEMO-EU-FIXED"] }),
  createdFrom: Millis.optional()
    .describe("Only orders created at or after this time (Unix ms, inclusive).")
    .meta({ examples: [1795300000000] }),
  createdTo: Millis.optional()
    .describe("Only orders created at or before this time (Unix ms, inclusive).")
    .meta({ examples: [1795400000000] }),
  reference: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("Only references that start with this prefix. Needs `clientId`: references are each client's own.")
    .meta({ examples: ["po-2026-"] }),
};

/** Strict: an export is every matching order, and `limit` or `after` sent to it would be a mistake. */
export const OrderExportQuery = z.strictObject(searchFilters);

export const OrderSearchQuery = z.object({
  ...searchFilters,
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Page size, 1..100, default 50."),
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page of the same search."),
});

/** One order as the index holds it; amounts in the wallet's currency, as numbers like the other answers. */
export const OrderSummary = z.object({
  id: z.string(),
  clientId: z.string(),
  reference: z.string(),
  state: IndexedState,
  wallet: z.string().describe("The wallet's currency: the currency of the amounts."),
  total: z.number().describe("The order's total."),
  charged: z.number().describe("What the wallet was charged: the total once confirmed, 0 for a rejected order."),
  refunded: z.number().describe("What failed lines credited back to the wallet."),
  skus: z.array(z.string()).describe("The SKUs of the order's lines, each once."),
  createdAt: z.number().int().describe("Unix ms."),
  modifiedAt: z.number().int().describe("Unix ms of the change the index shows."),
  expiresAt: z.number().int().describe("Unix ms after which an unconfirmed order expired."),
});
export type OrderSummary = z.infer<typeof OrderSummary>;

export const OrderSearchData = z.object({
  orders: z.array(OrderSummary).describe("Newest first: by creation time, then id."),
  next: z.string().nullable().describe("Cursor of the next page (pass as `after`), null on the last page."),
});
