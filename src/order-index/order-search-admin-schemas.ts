/** Requests and responses of the operator's order search and its CSV export over the order index. */
import * as z from "zod";
import { ClientIdPath, Sku } from "../kernel/primitives";
import { OrderState } from "../orders/order-view-schemas";

/** The states a search may ask for: any (the order index holds every order in every state). */
export const IndexedState = OrderState;

/** Unix ms, as a query parameter. */
const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** The filters of the order search and its CSV export. */
const searchFilters = {
  clientId: ClientIdPath.optional().describe("Only this client's orders."),
  state: IndexedState.optional().describe(
    "Only orders in this state. The index holds orders in every state, each written within seconds of its change.",
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
