/**
 * Requests and answers of the order lists (GET /orders, GET /admin/orders, its CSV export) and of the
 * reconciliation. Loaded with the first such request or with GET /openapi.json, not when the Worker starts.
 */
import * as z from "zod";
import { ClientIdPath, Sku } from "../kernel/primitives";
import { OrderState } from "./view-schemas";

const Millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** GET /orders: the client's own orders. */
export const OrderListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional().describe("Page size, 1..100, default 100."),
  after: z.string().min(1).max(128).optional().describe("Cursor: the `next` of the previous page."),
  state: OrderState.optional().describe("Only orders in this state."),
  createdFrom: Millis.optional().describe("Only orders created at or after this time (Unix ms)."),
  createdTo: Millis.optional().describe("Only orders created at or before this time (Unix ms)."),
  reference: z.string().min(1).max(256).optional().describe("Only orders whose reference starts with this."),
});

/** GET /admin/orders and its export: the same filters across clients, plus clientId and sku. */
export const AdminOrderListQuery = OrderListQuery.extend({
  clientId: ClientIdPath.optional().describe("Only this client's orders."),
  sku: Sku.optional().describe("Only orders with a line of this SKU."),
  reference: z.string().min(1).max(256).optional().describe("Only orders whose reference starts with this; needs `clientId` (references are the client's own)."),
});

export const OrderSummary = z.object({
  id: z.string(),
  reference: z.string(),
  state: OrderState,
  wallet: z.string().describe("The currency of the wallet the order is paid from."),
  total: z.number().describe("The order's total in the wallet's currency."),
  createdAt: z.number().int().describe("Unix ms."),
  modifiedAt: z.number().int().describe("Unix ms of the last change the index holds."),
  expiresAt: z.number().int().describe("Unix ms: a `created` order not confirmed by then is rejected."),
  skus: z.array(z.string()).describe("The SKUs of the order's lines."),
});

export const OrderList = z.object({
  orders: z.array(OrderSummary).describe("Newest first (createdAt, then id)."),
  next: z.string().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

export const AdminOrderSummary = OrderSummary.extend({
  clientId: z.string(),
  charged: z.number().describe("What the wallet was charged: the total once confirmed, 0 before and for a rejected order."),
  refunded: z.number().describe("What failed lines credited back."),
});

export const AdminOrderList = z.object({
  orders: z.array(AdminOrderSummary).describe("Newest first (createdAt, then id)."),
  next: z.string().nullable().describe("Pass as `after` for the next page; null on the last page."),
});

export const ReconciliationQuery = z.object({
  createdFrom: Millis.describe("Start of the period (Unix ms, inclusive): ledger movements and orders created from then."),
  createdTo: Millis.describe("End of the period (Unix ms, inclusive)."),
  grace: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .optional()
    .describe("Seconds: movements and orders changed this recently are left to a later run (the index lags by seconds). Default 300; 0 on a quiet system checks everything."),
});

export const Mismatch = z.object({
  check: z.enum(["ledger_matches_index", "index_matches_ledger", "code_in_one_redeem"]).describe("Which of the three checks found it."),
  orderId: z.string().nullable(),
  clientId: z.string().nullable(),
  problem: z.string().describe("What does not match."),
  lookAt: z.string().describe("Where to look first."),
});

export const ReconciliationData = z.object({
  createdFrom: z.number().int(),
  createdTo: z.number().int(),
  checked: z.object({
    wallets: z.number().int(),
    ledgerMovements: z.number().int().describe("Ledger movements in the period that name an order."),
    indexedOrders: z.number().int().describe("Indexed orders created in the period."),
    soldCodes: z.number().int().describe("Codes sold to orders created in the period."),
  }),
  mismatches: z.array(Mismatch),
});

export const BackfillData = z.object({
  wallets: z.number().int(),
  orders: z.number().int().describe("Orders named by a ledger movement."),
  written: z.number().int().describe("Orders the index did not hold, now written."),
});
