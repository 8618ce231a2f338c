import { z } from "zod";

/** A product line of a create request (spec §2.7). Limits and catalogue checks come after the shape. */
export const ProductLineRequest = z.object({
  sku: z.string().min(1).max(64),
  productType: z.string().min(1).max(32),
  quote: z.number(),
  quantity: z.number().int().min(1),
});
export type ProductLineRequest = z.infer<typeof ProductLineRequest>;

/** POST /order/create (spec §4.1). Unknown fields are ignored. */
export const CreateOrderRequest = z.object({
  productList: z.array(ProductLineRequest),
  wallet: z.string().min(1).max(16),
  reference: z.string().min(1).max(256),
  webhookUrl: z.string().max(2048).optional(),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/** PUT /order/confirm (spec §4.2). */
export const ConfirmOrderRequest = z.object({ orderId: z.string().min(1).max(256) });

/** GET /order/get?orderId= (spec §4.3). */
export const GetOrderQuery = z.object({ orderId: z.string().min(1).max(256) });

export const OrderState = z.enum(["created", "confirmed", "rejected", "processing", "failed", "partial", "successful"]);
export type OrderState = z.infer<typeof OrderState>;

export const InvoiceStatus = z.enum(["unpaid", "paid", "void", "partially_refunded", "refunded"]);
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;

export const Timestamp = z.object({ _seconds: z.number().int(), _nanoseconds: z.number().int() });
export type Timestamp = z.infer<typeof Timestamp>;

export const ExchangeRateView = z.object({
  baseCurrency: z.string(),
  targetCurrency: z.string(),
  rate: z.number(),
  modifiedDate: Timestamp,
});
export type ExchangeRateView = z.infer<typeof ExchangeRateView>;

export const InvoiceItemType = z.enum([
  "main-product",
  "customer-fee",
  "customer-discount",
  "exchange-target-currency",
  "exchange-base-currency",
  "refund",
]);

export const InvoiceItem = z.object({
  type: InvoiceItemType,
  description: z.string(),
  effect: z.object({ amount: z.number(), currency: z.string() }),
  metaData: z.record(z.string(), z.unknown()),
});
export type InvoiceItem = z.infer<typeof InvoiceItem>;

export const InvoiceRecord = z.object({
  total: z.record(z.string(), z.number()),
  sku: z.string(),
  items: z.array(InvoiceItem),
});
export type InvoiceRecord = z.infer<typeof InvoiceRecord>;

export const Invoice = z.object({
  total: z.number(),
  wallet: z.string(),
  records: z.array(InvoiceRecord),
  paymentMethod: z.literal("wallet"),
  status: InvoiceStatus,
});
export type Invoice = z.infer<typeof Invoice>;

export const Adjustment = z.object({ amount: z.number(), adjustmentMode: z.enum(["percentage", "fixed"]) });

export const OrderProduct = z.object({
  request: z.object({ quote: z.number(), quantity: z.number().int() }),
  customerDeal: z.object({ dealState: z.enum(["active", "none"]), fee: Adjustment, discount: Adjustment }),
  sku: z.string(),
  shopItem: z.object({
    country: z.string(),
    quote: z.number(),
    name: z.string(),
    region: z.string(),
    productType: z.enum(["range", "fixed"]),
    baseCurrency: z.string(),
  }),
});
export type OrderProduct = z.infer<typeof OrderProduct>;

export const RedeemEntry = z.object({
  redeemPin: z.array(z.string()),
  currency: z.string(),
  redeemLink: z.string(),
  value: z.number(),
  /** Beyond the spec's four fields: one link per pin, where codes carry links of their own. */
  redeemLinks: z.array(z.string()),
});
export type RedeemEntry = z.infer<typeof RedeemEntry>;

/** The order as retrieve returns it under `data` (spec §2.2). */
export const OrderView = z.object({
  uid: z.string(),
  state: OrderState,
  products: z.record(z.string(), OrderProduct),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  createdDate: Timestamp,
  modifiedDate: Timestamp,
  redeem: z.record(z.string(), RedeemEntry),
  reference: z.string(),
});
export type OrderView = z.infer<typeof OrderView>;

export const CreateOrderData = z.object({
  id: z.string(),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  retailInvoice: Invoice,
  expiresAt: z.number().int(),
});
export type CreateOrderData = z.infer<typeof CreateOrderData>;

export const ConfirmOrderData = z.object({ id: z.string(), state: z.literal("confirmed") });
