/**
 * The order as the client's answers show it: GET /order/get's OrderView, the create and confirm answers,
 * and their parts (states, invoices, exchange rates, redeem codes). No request is checked against them:
 * GET /openapi.json reads them, and the order's code its types, so they are evaluated with the document
 * (order-routes.ts hands them over as loaders), not when the Worker starts.
 */
import * as z from "zod";
import { AdjustmentMode, ProductType } from "../catalogue/catalogue-schemas";
import { CurrencyCode } from "../pricing/amount-schemas";
import { SHOWN_ORDER_FIELDS, type ShownOrderField } from "./requests";
import { CreateOrderRequest } from "./order-schemas";

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
  amount: z
    .number()
    .describe("A percentage of the line's face value, or a fixed amount per code in the product's currency."),
  adjustmentMode: AdjustmentMode,
});

/** The metaData of main-product and refund items: the line they price or refund. */
const InvoiceLineMeta = z.object({
  quantity: z.number().int().describe("Codes of the line."),
  quote: z.number().describe("Face value of one code, in the product's currency."),
});

export const InvoiceItem = z.object({
  type: InvoiceItemType,
  description: z.string(),
  effect: z
    .object({ amount: z.number(), currency: CurrencyCode })
    .describe("What the item adds to (or, negative, takes from) the record."),
  metaData: z
    .union([InvoiceLineMeta, Adjustment, ExchangeRateView])
    .describe(
      "By `type`: `main-product` and `refund` carry the line's `{quantity, quote}`; `customer-fee` and `customer-discount` the deal's fee or discount `{amount, adjustmentMode}`; `exchange-target-currency` and `exchange-base-currency` the exchange rate the order froze.",
    ),
});
export type InvoiceItem = z.infer<typeof InvoiceItem>;

export const InvoiceRecord = z.object({
  total: z
    .record(CurrencyCode, z.number())
    .describe("The record's total per currency: the wallet's, and the product's where they differ."),
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

/**
 * A field of the create request the view shows (ORDER_FIELDS in requests.ts) has the schema it was sent
 * with, unless it is given one of the view's own here: `reference` keeps the one the document gave it.
 */
const VIEW_OF_FIELD: Partial<Record<ShownOrderField, z.ZodType>> = { reference: z.string() };
const shownFields = Object.fromEntries(
  SHOWN_ORDER_FIELDS.map((field) => [field, VIEW_OF_FIELD[field] ?? CreateOrderRequest.shape[field]]),
) as {
  [Field in ShownOrderField]: (typeof CreateOrderRequest.shape)[Field];
};

/** The order as GET /order/get returns it under `data`. */
export const OrderView = z.object({
  uid: z.string(),
  state: OrderState,
  products: z.record(z.string(), OrderProduct).describe("The order's lines by SKU."),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  createdDate: Timestamp,
  modifiedDate: Timestamp,
  redeem: z
    .record(z.string(), RedeemEntry)
    .describe("Redeem codes by SKU: filled in `successful` and `partial`, empty before and in other states."),
  ...shownFields,
  livemode: z.boolean().describe("false for an order of the sandbox (sk_test_ keys, no real money), true in live."),
});
export type OrderView = z.infer<typeof OrderView>;

export const CreateOrderData = z.object({
  id: z.string(),
  exchangeRates: z.array(ExchangeRateView),
  invoice: Invoice,
  retailInvoice: Invoice.describe("The same order at retail price: no fee and no discount."),
  expiresAt: z
    .number()
    .int()
    .describe("Unix time in milliseconds after which a confirm is 419 Expired and the order is rejected."),
  livemode: z.boolean().describe("false for an order of the sandbox (sk_test_ keys, no real money), true in live."),
});
export type CreateOrderData = z.infer<typeof CreateOrderData>;

export const ConfirmOrderData = z.object({ id: z.string(), state: z.literal("confirmed") });
export type ConfirmOrderData = z.infer<typeof ConfirmOrderData>;
