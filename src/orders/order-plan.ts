/**
 * The plan of a new order, before it is stored: the checks of the product list (checkProductList), then
 * each line checked against a catalogue snapshot and priced (planOrder). Pure; the order object stores
 * the plan it is handed (src/orders/create-flow.ts).
 */
import type { SupplierKind } from "../catalogue/catalogue-schemas";
import { rateKey, type CatalogueSnapshot } from "../catalogue/catalogue-store";
import { NO_DEAL } from "../pricing/deal";
import { failure, type Failure } from "../kernel/failures";
import { priceLine, checkQuote } from "../pricing/line-pricing";
import { Money, isKnownCurrency, sum } from "../pricing/money";
import type { ExchangeRate } from "../pricing/exchange";
import type { Region } from "../wallets/wallet-registry-store";
import type { OrderLine } from "./order-record";
import type { CreateOrderRequest } from "./requests";

export interface OrderLimits {
  maxQuantityPerSku: number;
  maxSkusPerOrder: number;
  maxTotalQuantity: number;
}

export function limitsFromEnv(
  env: Pick<Env, "MAX_QUANTITY_PER_SKU" | "MAX_SKUS_PER_ORDER" | "MAX_TOTAL_QUANTITY">,
): OrderLimits {
  return {
    maxQuantityPerSku: Number(env.MAX_QUANTITY_PER_SKU),
    maxSkusPerOrder: Number(env.MAX_SKUS_PER_ORDER),
    maxTotalQuantity: Number(env.MAX_TOTAL_QUANTITY),
  };
}

/** Create checks 1 (after the zod shape) and 2: the list itself, before anything is looked up. */
export function checkProductList(request: CreateOrderRequest, limits: OrderLimits): Failure | null {
  const skus = request.productList.map((line) => line.sku);
  if (skus.length === 0) return failure("product_list_malformed", { reason: "productList is empty" });
  const duplicate = skus.find((sku, index) => skus.indexOf(sku) !== index);
  if (duplicate !== undefined) return failure("product_list_malformed", { reason: "duplicate sku", sku: duplicate });
  if (skus.length > limits.maxSkusPerOrder) {
    return failure("product_list_too_big", { limit: "skus", max: limits.maxSkusPerOrder, requested: skus.length });
  }
  for (const line of request.productList) {
    if (line.quantity > limits.maxQuantityPerSku) {
      return failure("product_list_too_big", {
        limit: "quantityPerSku",
        max: limits.maxQuantityPerSku,
        sku: line.sku,
        requested: line.quantity,
      });
    }
  }
  const total = request.productList.reduce((acc, line) => acc + line.quantity, 0);
  if (total > limits.maxTotalQuantity) {
    return failure("product_list_too_big", { limit: "totalQuantity", max: limits.maxTotalQuantity, requested: total });
  }
  return null;
}

export interface OrderPlan {
  lines: OrderLine[];
  rates: ExchangeRate[];
  charge: string;
  retailCharge: string;
  /** The region the order's wallet object is opened with (the registry's, via the snapshot); null: no hint. */
  walletRegion: Region | null;
  /** Which object of the wallet (the registry's generation, via the snapshot); 0: its first. */
  walletGeneration: number;
}

/** One requested line priced: its product as the snapshot has it, its deal, and its charge in `wallet`. */
function orderLineOf(
  line: CreateOrderRequest["productList"][number],
  snapshot: CatalogueSnapshot,
  rates: ReadonlyMap<string, ExchangeRate>,
  wallet: string,
): OrderLine {
  const product = snapshot.products.get(line.sku)!;
  const quote = new Money(String(line.quote));
  const rate = rates.get(product.currency) ?? null;
  // A deal switched to `none` is kept for the record but changes no price.
  const stored = snapshot.deals.get(line.sku);
  const deal = stored !== undefined && stored.dealState === "active" ? stored : NO_DEAL;
  const terms = { quote, quantity: line.quantity, productCurrency: product.currency, walletCurrency: wallet, rate };
  const price = priceLine({ ...terms, deal });
  const retail = priceLine({ ...terms, deal: NO_DEAL });
  return {
    sku: line.sku,
    productType: product.productType,
    quote: quote.toFixed(),
    quantity: line.quantity,
    product: {
      name: product.name,
      country: product.country,
      region: product.region,
      currency: product.currency,
      supplier: product.supplier,
      supplierConfig: product.supplierConfig,
    },
    deal,
    faceValue: price.faceValue.toFixed(),
    fee: price.fee.toFixed(),
    discount: price.discount.toFixed(),
    lineTotal: price.lineTotal.toFixed(),
    charge: price.charge.toFixed(),
    retailCharge: retail.charge.toFixed(),
    rate,
    status: "pending",
    attempts: 0,
    redeem: null,
    refunded: "0",
    failureReason: null,
  };
}

/**
 * Create checks 3 and 4 up to the exchange, then pricing. Pure: everything it reads from D1 arrives in
 * `snapshot`. First failure wins; lines are checked in list order. Stock and balance come after, when the
 * order object reserves codes and asks the wallet.
 */
export function planOrder(
  request: CreateOrderRequest,
  snapshot: CatalogueSnapshot,
  /** Whether this environment may sell a SKU of the supplier (src/fulfilment/suppliers.ts): one it may not is not found. */
  served: (supplier: SupplierKind) => boolean = () => true,
): Failure | ({ ok: true } & OrderPlan) {
  for (const [index, line] of request.productList.entries()) {
    const product = snapshot.products.get(line.sku);
    if (product === undefined || !product.active || !served(product.supplier))
      return failure("product_not_found", { sku: line.sku, index });
    const verdict = checkQuote(product, line.productType, new Money(String(line.quote)));
    if (verdict !== "ok") return failure(verdict, { sku: line.sku, index });
  }
  const wallet = request.wallet;
  if (!isKnownCurrency(wallet) || !snapshot.walletCurrencies.has(wallet)) {
    return failure("wallet_not_found", { wallet }, `No wallet in currency ${wallet}`);
  }
  const rates = new Map<string, ExchangeRate>();
  for (const [index, line] of request.productList.entries()) {
    const currency = snapshot.products.get(line.sku)!.currency;
    if (currency === wallet) continue;
    const rate = snapshot.rates.get(rateKey(wallet, currency));
    if (rate === undefined)
      return failure("exchange_not_supported", { sku: line.sku, index, from: wallet, to: currency });
    rates.set(currency, rate);
  }
  const lines = request.productList.map((line) => orderLineOf(line, snapshot, rates, wallet));
  return {
    ok: true,
    lines,
    rates: [...rates.values()],
    charge: sum(lines.map((line) => new Money(line.charge))).toFixed(),
    retailCharge: sum(lines.map((line) => new Money(line.retailCharge))).toFixed(),
    walletRegion: snapshot.walletRegions.get(wallet) ?? null,
    walletGeneration: snapshot.walletGenerations.get(wallet) ?? 0,
  };
}

/** The values of the sandbox's create header Sandbox-Outcome: how processing of the order ends. */
export const SANDBOX_OUTCOMES = ["successful", "partial", "failed", "slow"] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

/** The header's value as an outcome, or the 400 for a value it does not know (exact, lowercase). */
export function readSandboxOutcome(value: string): SandboxOutcome | Failure {
  const outcome = SANDBOX_OUTCOMES.find((known) => known === value);
  return (
    outcome ??
    failure("invalid_sandbox_outcome", {
      reason: `${JSON.stringify(value.slice(0, 64))} is not one of ${SANDBOX_OUTCOMES.join(", ")}`,
    })
  );
}

/** Why the list cannot end as `outcome` (partial needs a line to fail and one to succeed), or null. */
export function checkSandboxOutcome(request: CreateOrderRequest, outcome: SandboxOutcome): Failure | null {
  if (outcome === "partial" && request.productList.length < 2) {
    return failure("invalid_sandbox_outcome", {
      reason: "partial needs at least two lines: the last fails, the others succeed",
    });
  }
  return null;
}

/**
 * The lines with their script: successful issues every line, failed fails every line, partial fails the
 * last line and issues the others, slow issues every line after a wait (src/fulfilment/sandbox-outcome.ts).
 */
export function scriptLines(lines: OrderLine[], outcome: SandboxOutcome): OrderLine[] {
  return lines.map((line, index): OrderLine => {
    const fails = outcome === "failed" || (outcome === "partial" && index === lines.length - 1);
    return { ...line, sandboxOutcome: fails ? "fail" : outcome === "slow" ? "slow" : "issue" };
  });
}
