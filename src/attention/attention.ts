/**
 * What needs an operator's attention, read from every domain that knows: orders whose timers keep failing
 * (the stuck list), orders that ended failed or partial this week (the books' exceptions, D1
 * `books_exceptions`: one row per such order, not per order), webhooks waiting in the dead letters, inventory SKUs below their low-stock threshold
 * and wallets below their low-balance threshold. GET /admin/attention answers it and the console's home
 * page shows it; each part links to where it is fixed. And the last reconciliation run (stored by the
 * hourly job or the console's "run now"): when it ran, and its mismatches.
 */
import { exceptionsSince, type BooksException } from "../books/exception-store";
import { productSummariesStatement } from "../catalogue/catalogue-store";
import type { Role } from "../kernel/roles";
import { serviceMode } from "../kernel/service-mode";
import { operatorsMadeSince } from "../operators/operator-store";
import { availableCodesStatement } from "../inventory/code-store";
import { rowsToFetch } from "../kernel/paging";
import { Money, toAmountNumber } from "../pricing/money";
import { lastRun, type StoredRun } from "../reconciliation/reconciliation-store";
import { listTimerFailures, type TimerFailure } from "../orders/timer-failure-store";
import { listDeadLetters, type DeadLetter } from "../webhooks/dead-letter-store";
import { currentBalance } from "../wallets/wallet-moves";
import { registeredWallets, registeredWalletsStatement } from "../wallets/wallet-registry-store";
import {
  balanceBelow,
  SKUS_WITH_THRESHOLD,
  stockBelow,
  stockThresholdsStatement,
  WALLETS_WITH_THRESHOLD,
  walletThresholdsStatement,
} from "./threshold-store";

/** How many stuck orders and dead letters the list shows; `more` says when their own lists hold more. */
export const ATTENTION_PAGE = 50;

export interface LowStock {
  sku: string;
  name: string;
  threshold: number;
  /** Codes available (unsold, unreserved), all values together. */
  available: number;
  /** Available codes per value: every quote of a fixed SKU (0 included), the values in stock of a range SKU. */
  byValue: { value: number; available: number }[];
}

export interface LowBalance {
  clientId: string;
  currency: string;
  threshold: number;
  balance: number;
}

/** An operator made lately in live: each is a credential that could be one person's second pair of eyes. */
export interface NewOperator {
  id: string;
  name: string;
  role: Role;
  createdAt: number;
  /** The credential that made it (`operator:<id>`, `break-glass`); null when not known. */
  createdBy: string | null;
}

/** How long an operator made in live stays on the list: long enough for the others to have seen it. */
export const NEW_OPERATOR_DAYS = 7;

/** How long an order that ended failed or partial stays on the list. */
export const FAILED_ORDER_DAYS = 7;

/** An order that ended failed or partial, with its failed lines; amounts as numbers at this edge. */
export interface FailedOrder extends Omit<BooksException, "lines"> {
  lines: { sku: string; supplier: string; quantity: number; amount: number }[];
}

export interface Attention {
  /** Operators made in live in the last NEW_OPERATOR_DAYS days, newest first (none in the sandbox). */
  newOperators: NewOperator[];
  stuckOrders: { orders: TimerFailure[]; more: boolean };
  /** Orders that ended failed or partial in the last FAILED_ORDER_DAYS days, newest found first. */
  failedOrders: { orders: FailedOrder[]; more: boolean };
  deadLetters: { deadLetters: DeadLetter[]; more: boolean };
  lowStock: LowStock[];
  lowBalance: LowBalance[];
  /** The last reconciliation run; null before the first. */
  reconciliation: StoredRun | null;
}

/**
 * Active inventory SKUs with fewer available codes than their threshold, by SKU: one D1 batch. A disabled
 * SKU is not sold, and a SKU supplied otherwise has no stock, so neither is listed.
 */
export async function skusBelowThreshold(db: D1Database): Promise<LowStock[]> {
  const [thresholds, products, available] = await db.batch([
    stockThresholdsStatement(db),
    productSummariesStatement(db, SKUS_WITH_THRESHOLD),
    availableCodesStatement(db, SKUS_WITH_THRESHOLD),
  ]);
  const thresholdOf = new Map(
    (thresholds!.results as { sku: string; threshold: number }[]).map((row) => [row.sku, row.threshold]),
  );
  const stock = available!.results as { sku: string; value: string; available: number }[];
  const below: LowStock[] = [];
  for (const product of products!.results as ProductSummary[]) {
    const threshold = thresholdOf.get(product.sku);
    if (threshold === undefined || product.active !== 1 || product.supplier !== "inventory") continue;
    const low = lowStockOf(product, threshold, stock);
    if (low !== null) below.push(low);
  }
  return below;
}

/** A SKU's summary as the catalogue's statement reads it. */
export interface ProductSummary {
  sku: string;
  name: string;
  supplier: string;
  active: number;
  /** A fixed SKU's quotes, as JSON; null for a range SKU. */
  quotes: string | null;
}

/**
 * The SKU as the list shows it when fewer of its codes than `threshold` are available (`stock`: the
 * available codes per SKU and value), else null.
 */
export function lowStockOf(
  product: ProductSummary,
  threshold: number,
  stock: readonly { sku: string; value: string; available: number }[],
): LowStock | null {
  const counts = new Map<string, number>();
  for (const quote of product.quotes === null ? [] : (JSON.parse(product.quotes) as string[]))
    counts.set(new Money(quote).toFixed(), 0);
  for (const row of stock.filter((row) => row.sku === product.sku))
    counts.set(row.value, (counts.get(row.value) ?? 0) + row.available);
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  if (!stockBelow(total, threshold)) return null;
  const byValue = [...counts]
    .map(([value, count]) => ({ value: toAmountNumber(value), available: count }))
    .sort((a, b) => a.value - b.value);
  return { sku: product.sku, name: product.name, threshold, available: total, byValue };
}

/**
 * Wallets whose balance is below their threshold, by client and currency: one D1 batch, then one call to
 * each wallet object with a threshold (in parallel), since the balance lives there.
 */
export async function walletsBelowThreshold(env: Pick<Env, "DB" | "WALLETS">): Promise<LowBalance[]> {
  const [thresholds, wallets] = await env.DB.batch([
    walletThresholdsStatement(env.DB),
    registeredWalletsStatement(env.DB, WALLETS_WITH_THRESHOLD),
  ]);
  const rows = wallets!.results as { client_id: string }[];
  const registered = new Map(
    registeredWallets(rows).map((wallet, index) => [`${rows[index]!.client_id}:${wallet.currency}`, wallet]),
  );
  const checked = await Promise.all(
    (thresholds!.results as { client_id: string; currency: string; threshold: string }[]).map(async (row) => {
      // Where its money is: a wallet moved to another region is read at its current object.
      const wallet = registered.get(`${row.client_id}:${row.currency}`) ?? {
        currency: row.currency,
        region: null,
        generation: 0,
        previous: [],
        movingTo: null,
      };
      const balance = await currentBalance(env, row.client_id, wallet);
      return { row, balance };
    }),
  );
  return checked
    .filter(({ row, balance }) => balanceBelow(balance, row.threshold))
    .map(({ row, balance }) => lowBalanceOf(row, balance));
}

/** A wallet below its threshold (stored as a decimal string) as the list shows it. */
export function lowBalanceOf(
  row: { client_id: string; currency: string; threshold: string },
  balance: Money | string,
): LowBalance {
  return {
    clientId: row.client_id,
    currency: row.currency,
    threshold: toAmountNumber(row.threshold),
    balance: toAmountNumber(balance),
  };
}

/**
 * The operators made in live lately, newest first: creating an operator in live is how one person could
 * give itself a colleague (dual control's rules hold such an operator to its maker for its first day;
 * docs/operator-api.md), so every new one is shown to everyone for a week. The sandbox lists none.
 */
export async function newOperators(env: Pick<Env, "DB" | "SERVICE_MODE">, now: number): Promise<NewOperator[]> {
  if (serviceMode(env) !== "live") return [];
  const rows = await operatorsMadeSince(env.DB, now - NEW_OPERATOR_DAYS * 24 * 60 * 60 * 1000, ATTENTION_PAGE);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    createdBy: row.created_by,
  }));
}

/** An order among the books' exceptions as the list shows it: its failed lines' amounts as numbers. */
export function failedOrderOf(row: BooksException): FailedOrder {
  return { ...row, lines: row.lines.map((line) => ({ ...line, amount: toAmountNumber(line.amount) })) };
}

/** The orders that ended failed or partial lately, from the books' exceptions (one D1 range read). */
async function failedOrders(db: D1Database, now: number): Promise<Attention["failedOrders"]> {
  const found = await exceptionsSince(db, now - FAILED_ORDER_DAYS * 86_400_000, rowsToFetch(ATTENTION_PAGE));
  return {
    orders: found.slice(0, ATTENTION_PAGE).map(failedOrderOf),
    more: found.length > ATTENTION_PAGE,
  };
}

/** The whole list: its seven parts read in parallel. */
export async function needsAttention(env: Pick<Env, "DB" | "WALLETS" | "SERVICE_MODE">): Promise<Attention> {
  const [stuck, failed, letters, lowStock, lowBalance, reconciliation, operators] = await Promise.all([
    listTimerFailures(env.DB, null, rowsToFetch(ATTENTION_PAGE)),
    failedOrders(env.DB, Date.now()),
    listDeadLetters(env.DB, { status: "pending", limit: ATTENTION_PAGE }),
    skusBelowThreshold(env.DB),
    walletsBelowThreshold(env),
    lastRun(env.DB),
    newOperators(env, Date.now()),
  ]);
  return {
    newOperators: operators,
    stuckOrders: { orders: stuck.slice(0, ATTENTION_PAGE), more: stuck.length > ATTENTION_PAGE },
    failedOrders: failed,
    deadLetters: { deadLetters: letters.deadLetters, more: letters.nextBefore !== null },
    lowStock,
    lowBalance,
    reconciliation,
  };
}
