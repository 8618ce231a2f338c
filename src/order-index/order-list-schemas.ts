/**
 * GET /orders (order-list-routes.ts): its query and answer. Loaded with the route's first request or with
 * the document, not when the Worker starts.
 */
import * as z from "zod";
import { OrderState } from "../orders/order-view-schemas";

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

export const ListOrdersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Page size, 1..100, default 100."),
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page of the same list."),
  state: OrderState.optional().describe("Only orders in this state."),
  createdFrom: Millis.optional().describe("Only orders created at or after this time (ms since the epoch)."),
  createdTo: Millis.optional().describe("Only orders created at or before this time (ms since the epoch)."),
  reference: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("Only orders whose `reference` starts with this.")
    .meta({ examples: ["po-2026-"] }),
});

/** One of the client's orders as the list shows it; amounts in the wallet's currency. */
export const ClientOrderSummary = z.object({
  id: z.string(),
  reference: z.string(),
  state: OrderState,
  wallet: z.string().describe("The wallet's currency: the currency of `total`."),
  total: z.number().describe("The order's total, charged once it is confirmed."),
  skus: z.array(z.string()).describe("The SKUs of the order's lines, each once."),
  createdAt: z.number().int().describe("Unix ms."),
  modifiedAt: z.number().int().describe("Unix ms of the order's last change the list shows."),
  expiresAt: z.number().int().describe("Unix ms after which an order not confirmed by then expired."),
});
export type ClientOrderSummary = z.infer<typeof ClientOrderSummary>;

export const OrderListData = z.object({
  orders: z.array(ClientOrderSummary).describe("Newest first: by creation time, then id."),
  next: z.string().nullable().describe("Cursor of the next page (pass as `after`), null on the last page."),
});
