import * as z from "zod";
import { AdjustmentMode, ProductType } from "../catalogue/schemas";
import { CurrencyCode } from "../pricing/amount-schemas";

/**
 * A product line of a create request. Limits and catalogue checks come after the shape: a productType that
 * is not the SKU's (any other string too) is 400 quote_mismatch, not a schema error, so the document lists
 * the two values a request can succeed with while validation takes any string.
 */
export const ProductLineRequest = z.object({
  sku: z.string().min(1).max(64).describe("Unique within the list."),
  productType: z
    .string()
    .min(1)
    .max(32)
    .meta({ enum: ProductType.options, description: "The SKU's productType (GET /products); any other value is 400 quote_mismatch." }),
  quote: z.number().describe("Face value of one code, in the product's currency: one of a fixed SKU's quotes, or within a range SKU's bounds."),
  quantity: z.number().int().min(1).describe("Codes of this SKU and quote; limits per SKU and per order apply (400 product_list_too_big)."),
});
export type ProductLineRequest = z.infer<typeof ProductLineRequest>;

/** POST /order/create. Unknown fields are ignored. */
export const CreateOrderRequest = z.object({
  productList: z.array(ProductLineRequest),
  // Any string passes the shape: a wallet the client does not hold, or no currency at all, is 400
  // wallet_not_found ("No wallet in currency usd"), so the document shows the form a wallet can have.
  wallet: z
    .string()
    .min(1)
    .max(16)
    .meta({ pattern: "^[A-Z]{3}$", description: "The currency of the wallet to pay from (ISO 4217, e.g. USD); anything else is 400 wallet_not_found." }),
  reference: z.string().min(1).max(256).describe("The client's own id of the order, unique per client: a create repeated with the same reference and body returns the same order."),
  webhookUrl: z.string().max(2048).optional().describe("An https URL that receives this order's events (see `webhooks`)."),
});
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

/** PUT /order/confirm. */
export const ConfirmOrderRequest = z.object({ orderId: z.string().min(1).max(256) });

/** GET /order/get?orderId=. */
export const GetOrderQuery = z.object({
  orderId: z
    .string()
    .min(1)
    .max(256)
    .meta({ description: "The `id` of the create answer.", examples: ["ord_2dd721ba39cdbda93b5d250921bd9ba73bcf9c4fbc371c0a184820b2cb22088e"] }),
});

export const OrderState = z.enum(["created", "confirmed", "rejected", "processing", "failed", "partial", "successful"]);
export type OrderState = z.infer<typeof OrderState>;

export const InvoiceStatus = z.enum(["unpaid", "paid", "void", "partially_refunded", "refunded"]);
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;

export const Timestamp = z.object({ _seconds: z.number().int(), _nanoseconds: z.number().int() });
export type Timestamp = z.infer<typeof Timestamp>;

export const ExchangeRateView = z.object({
  baseCurrency: CurrencyCode.describe("The wallet's currency."),
  targetCurrency: CurrencyCode.describe("The product's currency."),
  rate: z.number().describe("1 unit of baseCurrency buys `rate` units of targetCurrency."),
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

export const Adjustment = z.object({
  amount: z.number().describe("A percentage of the line's face value, or a fixed amount per code in the product's currency."),
  adjustmentMode: AdjustmentMode,
});

/** The metaData of main-product and refund items: the line they price or refund. */
const InvoiceLineMeta = z.object({ quantity: z.number().int().describe("Codes of the line."), quote: z.number().describe("Face value of one code, in the product's currency.") });

export const InvoiceItem = z.object({
  type: InvoiceItemType,
  description: z.string(),
  effect: z.object({ amount: z.number(), currency: CurrencyCode }).describe("What the item adds to (or, negative, takes from) the record."),
  metaData: z
    .union([InvoiceLineMeta, Adjustment, ExchangeRateView])
    .describe(
      "By `type`: `main-product` and `refund` carry the line's `{quantity, quote}`; `customer-fee` and `customer-discount` the deal's fee or discount `{amount, adjustmentMode}`; `exchange-target-currency` and `exchange-base-currency` the exchange rate the order froze.",
    ),
});
export type InvoiceItem = z.infer<typeof InvoiceItem>;

export const InvoiceRecord = z.object({
  total: z.record(CurrencyCode, z.number()).describe("The record's total per currency: the wallet's, and the product's where they differ."),
  sku: z.string(),
  items: z.array(InvoiceItem),
});
export type InvoiceRecord = z.infer<typeof InvoiceRecord>;

export const Invoice = z.object({
  total: z
    .number()
    .describe(
      "In the wallet's currency: the order's price (the sum of its line charges) minus what was refunded for lines that failed. So what confirm will charge (`unpaid`), what was charged (`paid`), what was charged net of refunds (`partially_refunded`; 0 when `refunded`); for a `void` invoice, the price the order would have cost: nothing was taken.",
    ),
  wallet: CurrencyCode,
  records: z.array(InvoiceRecord),
  paymentMethod: z.literal("wallet"),
  status: InvoiceStatus,
});
export type Invoice = z.infer<typeof Invoice>;

export const OrderProduct = z.object({
  request: z.object({ quote: z.number(), quantity: z.number().int() }),
  customerDeal: z.object({ dealState: z.enum(["active", "none"]), fee: Adjustment, discount: Adjustment }),
  sku: z.string(),
  shopItem: z.object({
    country: z.string(),
    quote: z.number(),
    name: z.string(),
    region: z.string(),
    productType: ProductType,
    baseCurrency: CurrencyCode.describe("The product's currency."),
  }),
});
export type OrderProduct = z.infer<typeof OrderProduct>;

export const RedeemEntry = z.object({
  redeemPin: z.array(z.string()).describe("One pin per code issued."),
  currency: CurrencyCode,
  redeemLink: z.string().describe("The first code's link (empty when codes carry none)."),
  value: z.number().describe("Face value of each code."),
  redeemLinks: z.array(z.string()).describe("One link per pin, where codes carry links of their own."),
});
export type RedeemEntry = z.infer<typeof RedeemEntry>;

/** The order as GET /order/get returns it under `data`. */
export const OrderView = z.object({
  uid: z.string(),
  state: OrderState,
  products: z.record(z.string(), OrderProduct).describe("The order's lines by SKU."),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  createdDate: Timestamp,
  modifiedDate: Timestamp,
  redeem: z.record(z.string(), RedeemEntry).describe("Redeem codes by SKU: filled in `successful` and `partial`, empty before and in other states."),
  reference: z.string(),
});
export type OrderView = z.infer<typeof OrderView>;

export const CreateOrderData = z.object({
  id: z.string(),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  retailInvoice: Invoice.describe("The same order at retail price: no fee and no discount."),
  expiresAt: z.number().int().describe("Unix time in milliseconds after which a confirm is 419 Expired and the order is rejected."),
});
export type CreateOrderData = z.infer<typeof CreateOrderData>;

export const ConfirmOrderData = z.object({ id: z.string(), state: z.literal("confirmed") });
