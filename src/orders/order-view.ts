import { maskedCode } from "./redeem-rules";
import { adjustmentView, dealView } from "../catalogue/catalogue-views";
import type { ExchangeRate } from "../pricing/exchange";
import { Money, toAmountNumber } from "../pricing/money";
import type { OrderLine, OrderRecord } from "./order-record";
import { SHOWN_ORDER_FIELDS, type ShownOrderFields } from "./requests";
import type {
  ConfirmOrderData,
  CreateOrderData,
  ExchangeRateView,
  Invoice,
  InvoiceItem,
  InvoiceRecord,
  OrderProduct,
  OrderState,
  OrderView,
  RedeemEntry,
  Timestamp,
} from "./order-view-schemas";

export function timestamp(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { _seconds: seconds, _nanoseconds: (ms - seconds * 1000) * 1_000_000 };
}

export function rateView(rate: ExchangeRate): ExchangeRateView {
  return {
    baseCurrency: rate.baseCurrency,
    targetCurrency: rate.targetCurrency,
    rate: Number(rate.rate),
    modifiedDate: timestamp(rate.modifiedAt),
  };
}

/**
 * One invoice record per SKU. Items in the product currency net to the line total; with an exchange, the
 * exchange-target item takes the line total out of the product currency and the exchange-base item
 * shows what the wallet pays for it.
 */
function invoiceRecord(line: OrderLine, wallet: string, retail: boolean): InvoiceRecord {
  const currency = line.product.currency;
  const charge = retail ? line.retailCharge : line.charge;
  const lineTotal = retail ? line.faceValue : line.lineTotal;
  const items: InvoiceItem[] = [
    {
      type: "main-product",
      description: `${line.quantity} × ${line.product.name} at ${line.quote} ${currency}`,
      effect: { amount: toAmountNumber(line.faceValue), currency },
      metaData: { quantity: line.quantity, quote: toAmountNumber(line.quote) },
    },
  ];
  if (!retail && !new Money(line.fee).isZero()) {
    items.push({
      type: "customer-fee",
      description: "Fee of your deal for this SKU",
      effect: { amount: toAmountNumber(line.fee), currency },
      metaData: adjustmentView(line.deal.fee),
    });
  }
  if (!retail && !new Money(line.discount).isZero()) {
    items.push({
      type: "customer-discount",
      description: "Discount of your deal for this SKU",
      effect: { amount: -toAmountNumber(line.discount), currency },
      metaData: adjustmentView(line.deal.discount),
    });
  }
  const total: Record<string, number> = {};
  if (line.rate !== null) {
    const rate = rateView(line.rate);
    items.push(
      {
        type: "exchange-target-currency",
        description: `Exchange out of ${currency}`,
        effect: { amount: -toAmountNumber(lineTotal), currency },
        metaData: rate,
      },
      {
        type: "exchange-base-currency",
        description: `Payment in ${wallet} at ${line.rate.rate} ${currency} per ${wallet}`,
        effect: { amount: toAmountNumber(charge), currency: wallet },
        metaData: rate,
      },
    );
    total[currency] = toAmountNumber(lineTotal);
  }
  if (!retail && !new Money(line.refunded).isZero()) {
    items.push({
      type: "refund",
      description: `Refund of a line that could not be fulfilled${line.failureReason ? `: ${line.failureReason}` : ""}`,
      effect: { amount: -toAmountNumber(line.refunded), currency: wallet },
      metaData: { quantity: line.quantity, quote: toAmountNumber(line.quote) },
    });
  }
  total[wallet] = toAmountNumber(new Money(charge).minus(retail ? 0 : line.refunded));
  return { total, sku: line.sku, items };
}

export function invoiceView(order: OrderRecord, retail = false): Invoice {
  const refunded = order.lines.reduce((acc, line) => acc.plus(line.refunded), new Money(0));
  const charge = new Money(retail ? order.retailCharge : order.charge);
  return {
    total: toAmountNumber(retail ? charge : charge.minus(refunded)),
    wallet: order.wallet,
    records: order.lines.map((line) => invoiceRecord(line, order.wallet, retail)),
    paymentMethod: "wallet",
    status: retail ? "unpaid" : order.invoiceStatus,
  };
}

function productView(line: OrderLine): OrderProduct {
  return {
    request: { quote: toAmountNumber(line.quote), quantity: line.quantity },
    customerDeal: dealView(line.deal),
    sku: line.sku,
    shopItem: {
      country: line.product.country,
      quote: toAmountNumber(line.quote),
      name: line.product.name,
      region: line.product.region,
      productType: line.productType,
      baseCurrency: line.product.currency,
    },
  };
}

/** The states in which `redeem` is filled; while processing, codes already issued are not shown yet. */
const REDEEM_STATES: ReadonlySet<OrderRecord["state"]> = new Set(["successful", "partial"]);

/** `livemode`: false in the sandbox (each environment has its own objects, so the deployment's mode is the order's). */
export function orderView(order: OrderRecord, livemode: boolean): OrderView {
  const redeem: Record<string, RedeemEntry> = {};
  for (const line of order.lines) {
    if (line.redeem === null || !REDEEM_STATES.has(order.state)) continue;
    redeem[line.sku] = {
      redeemPin: line.redeem.pins,
      currency: line.redeem.currency,
      redeemLink: line.redeem.links[0] ?? "",
      redeemLinks: line.redeem.links,
      value: toAmountNumber(line.redeem.value),
    };
  }
  return {
    uid: order.id,
    state: order.state,
    products: Object.fromEntries(order.lines.map((line) => [line.sku, productView(line)])),
    exchangeRates: order.rates.map(rateView),
    invoice: invoiceView(order),
    createdDate: timestamp(order.createdAt),
    modifiedDate: timestamp(order.modifiedAt),
    redeem,
    ...shownFields(order),
    livemode,
  };
}

/** The create's fields the view shows (ORDER_FIELDS), as the order keeps them. */
function shownFields(order: OrderRecord): ShownOrderFields {
  return Object.fromEntries(SHOWN_ORDER_FIELDS.map((field) => [field, order[field]])) as ShownOrderFields;
}

export function confirmView(order: OrderRecord): ConfirmOrderData {
  return { id: order.id, state: "confirmed" };
}

/** An order as the operator sees it (GET /admin/orders/:orderId, and by reference): the client's view, the record. */
export interface AdminOrderView {
  clientId: string;
  reference: string;
  state: OrderState;
  order: OrderView;
  record: OrderRecord;
}

export function adminOrderView(order: OrderRecord, livemode: boolean): AdminOrderView {
  const { clientId, reference, state } = order;
  return { clientId, reference, state, order: orderView(order, livemode), record: order };
}

/**
 * The operator's view of the order with its redeem codes and links masked (redeem-rules.ts), for every
 * role: a code is shown in clear only through the audited reveal (POST /admin/orders/:orderId/codes/reveal).
 */
export function maskedAdminOrderView(order: OrderRecord, livemode: boolean): AdminOrderView {
  const lines = order.lines.map((line) =>
    line.redeem === null
      ? line
      : {
          ...line,
          redeem: { ...line.redeem, pins: line.redeem.pins.map(maskedCode), links: line.redeem.links.map(maskedCode) },
        },
  );
  return adminOrderView({ ...order, lines }, livemode);
}

export function createView(order: OrderRecord, livemode: boolean): CreateOrderData {
  return {
    id: order.id,
    exchangeRates: order.rates.map(rateView),
    invoice: invoiceView(order),
    retailInvoice: invoiceView(order, true),
    expiresAt: order.expiresAt,
    livemode,
  };
}
