import type { Deal, ProductType, SupplierKind } from "../catalogue/catalogue-schemas";
import type { ScriptedOutcome } from "../fulfilment/supplier";
import type { ExchangeRate } from "../pricing/exchange";
import type { Region } from "../wallets/wallet-registry-store";
import type { CreateOrderRequest } from "./requests";
import type { InvoiceStatus, OrderState } from "./order-view-schemas";

/** What a line's supplier handed over for it. */
export interface LineRedeem {
  pins: string[];
  /** One link per pin, in the same order. */
  links: string[];
  value: string;
  currency: string;
}

export type LineStatus = "pending" | "fulfilled" | "failed";

/** One SKU of an order as stored: every amount a decimal string, priced and frozen at create. */
export interface OrderLine {
  sku: string;
  productType: ProductType;
  quote: string;
  quantity: number;
  product: {
    name: string;
    country: string;
    region: string;
    currency: string;
    supplier: SupplierKind;
    supplierConfig: Record<string, unknown>;
  };
  deal: Deal;
  faceValue: string;
  fee: string;
  discount: string;
  lineTotal: string;
  charge: string;
  /** The wallet charge of the line at retail terms (no deal), for the retail invoice. */
  retailCharge: string;
  rate: ExchangeRate | null;
  status: LineStatus;
  /** Supplier attempts made so far. */
  attempts: number;
  redeem: LineRedeem | null;
  /**
   * Since when (unix ms) the supplier's outcome for this pending line is unknown: set by the first attempt
   * that neither issued nor failed it (a timeout, "in progress", …), kept until an answer settles the line.
   * Absent in lines stored before it existed: then it is set by the next such attempt.
   */
  unknownSince?: number | null;
  /** Amount credited back to the wallet for this line when it failed ("0" otherwise). */
  refunded: string;
  failureReason: string | null;
  /** Sandbox only: how the create's Sandbox-Outcome header scripted this line (absent otherwise). */
  sandboxOutcome?: ScriptedOutcome;
}

/**
 * The whole order as its Durable Object stores it: the fields of its create request as sent (all but the
 * product list, which `lines` replaces; `wallet`, `reference`, …) and what the order made of them.
 */
export interface OrderRecord extends Omit<CreateOrderRequest, "productList" | "webhookUrl"> {
  id: string;
  clientId: string;
  requestHash: string;
  webhookUrl: string | null;
  state: OrderState;
  createdAt: number;
  modifiedAt: number;
  expiresAt: number;
  lines: OrderLine[];
  rates: ExchangeRate[];
  /** Sum of the lines' charges, wallet currency. */
  charge: string;
  retailCharge: string;
  invoiceStatus: InvoiceStatus;
  /**
   * Set by confirm, in its own write, before it asks the wallet for the charge; cleared when the answer is
   * stored. Found set later, it means a confirm was cut off: the settle timer asks the wallet whether the
   * charge landed and completes or undoes the confirmation.
   */
  chargeIntentAt?: number | null;
  /**
   * The region the order's wallet object is opened with (see src/wallets/wallet-registry-store.ts); absent or
   * null: no hint (orders stored before wallets had regions).
   */
  walletRegion?: Region | null;
  /**
   * Which object of the wallet the order was created against, or, once charged, the one that holds its
   * charge (a charge that met a moved wallet lands at its successor); absent: the wallet's first (0).
   */
  walletGeneration?: number;
}
