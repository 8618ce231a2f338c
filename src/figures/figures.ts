/**
 * The figures the console's charts draw, read from the daily figures (figures-store.ts) and, for what
 * lives elsewhere, from its owner: a wallet's balance from its ledger (each object it has been), a SKU's
 * codes and threshold from inventory and attention. Each read is bounded by days, SKUs or wallets, never
 * by the number of orders (docs/benchmarks.md#daily-figures).
 */
import { stockThresholdOf } from "../attention/threshold-store";
import { clientStatement } from "../clients/client-store";
import { availableCodesStatement, stockOf } from "../inventory/code-store";
import { Money } from "../pricing/money";
import { currentBalance } from "../wallets/wallet-moves";
import { findWallet, historyOf, placedWallet, type RegisteredWallet } from "../wallets/wallet-registry-store";
import {
  CHART_DAYS,
  DAY_MS,
  dayOf,
  daysUpTo,
  fromThousandths,
  perDay,
  runOutDay,
  RUN_OUT_HORIZON_DAYS,
} from "./figures-rules";
import { clientDays, linesOver, ordersDays, spendByWallet, stockDays, type LinesRow } from "./figures-store";

/** The states a day's orders are split into; open: created, confirmed or processing. */
export const DAY_STATES = ["successful", "partial", "failed", "rejected", "open"] as const;
export type DayState = (typeof DAY_STATES)[number];

/** One day of one currency's orders: how many in each state, and the sales (charged less refunded). */
export interface SalesDay {
  day: number;
  orders: number;
  byState: Record<DayState, number>;
  sales: Money;
}

export interface CurrencySales {
  currency: string;
  days: SalesDay[];
}

export interface SkuFigure {
  sku: string;
  currency: string;
  lines: number;
  failed: number;
  /** What its delivered lines came to. */
  sales: Money;
}

export interface SupplierFigure {
  supplier: string;
  lines: number;
  failed: number;
}

export interface WalletRunOut {
  clientId: string;
  currency: string;
  balance: Money;
  perDay: Money;
  /** The day it runs out at that rate, or null: not within RUN_OUT_HORIZON_DAYS. */
  runsOut: number | null;
}

export interface SkuRunOut {
  sku: string;
  available: number;
  /** Codes sold a day, on average over the chart's days. */
  perDay: number;
  runsOut: number | null;
}

export interface HomeFigures {
  days: number[];
  sales: CurrencySales[];
  topSkusBySales: SkuFigure[];
  topSkusByFailure: SkuFigure[];
  failuresBySupplier: SupplierFigure[];
  wallets: WalletRunOut[];
  skus: SkuRunOut[];
}

/** How many SKUs and wallets the home page ranks. */
export const TOP = 10;

function emptyStates(): Record<DayState, number> {
  return { successful: 0, partial: 0, failed: 0, rejected: 0, open: 0 };
}

/** The window of the charts: the last CHART_DAYS days to today (UTC). */
export function chartDays(now: number): number[] {
  return daysUpTo(dayOf(now), CHART_DAYS);
}

/** Orders and sales per day and currency over `days`: what the home page's first chart draws. */
export async function salesByDay(db: D1Database, days: number[]): Promise<CurrencySales[]> {
  const rows = await ordersDays(db, days[0]!, days[days.length - 1]!);
  const byCurrency = new Map<string, Map<number, SalesDay>>();
  for (const row of rows) {
    const currencyDays = byCurrency.get(row.currency) ?? new Map<number, SalesDay>();
    byCurrency.set(row.currency, currencyDays);
    const day = currencyDays.get(row.day) ?? { day: row.day, orders: 0, byState: emptyStates(), sales: new Money(0) };
    currencyDays.set(row.day, day);
    day.orders += row.orders;
    day.byState[row.state as DayState] = (day.byState[row.state as DayState] ?? 0) + row.orders;
    day.sales = day.sales.plus(fromThousandths(row.charged - row.refunded));
  }
  return [...byCurrency.keys()].sort().map((currency) => ({
    currency,
    days: days.map(
      (day) => byCurrency.get(currency)!.get(day) ?? { day, orders: 0, byState: emptyStates(), sales: new Money(0) },
    ),
  }));
}

/** The SKUs that sold most and failed most, and the suppliers' failures, from the window's ended lines. */
function rankLines(lines: LinesRow[]): Pick<HomeFigures, "topSkusBySales" | "topSkusByFailure" | "failuresBySupplier"> {
  const skus = new Map<string, SkuFigure>();
  const suppliers = new Map<string, SupplierFigure>();
  for (const row of lines) {
    const key = `${row.sku}\u0000${row.currency}`;
    const sku = skus.get(key) ?? { sku: row.sku, currency: row.currency, lines: 0, failed: 0, sales: new Money(0) };
    skus.set(key, sku);
    const supplier = suppliers.get(row.supplier) ?? { supplier: row.supplier, lines: 0, failed: 0 };
    suppliers.set(row.supplier, supplier);
    sku.lines += row.lines;
    supplier.lines += row.lines;
    if (row.outcome === "failed") {
      sku.failed += row.lines;
      supplier.failed += row.lines;
    } else sku.sales = sku.sales.plus(fromThousandths(row.amount));
  }
  const all = [...skus.values()];
  const topSkusBySales = all
    .filter((sku) => sku.sales.greaterThan(0))
    .sort((a, b) => b.sales.comparedTo(a.sales) || a.sku.localeCompare(b.sku))
    .slice(0, TOP);
  const topSkusByFailure = all
    .filter((sku) => sku.failed > 0)
    .sort((a, b) => b.failed / b.lines - a.failed / a.lines || b.failed - a.failed || a.sku.localeCompare(b.sku))
    .slice(0, TOP);
  const failuresBySupplier = [...suppliers.values()].sort((a, b) => b.failed - a.failed || b.lines - a.lines);

  return { topSkusBySales, topSkusByFailure, failuresBySupplier };
}

/** The inventory SKUs that sold most over `days` days: their codes available now, and when they run out. */
async function skuRunOuts(db: D1Database, lines: LinesRow[], days: number, today: number): Promise<SkuRunOut[]> {
  // The inventory SKUs that sold most: their codes available now, at the rate they sold.
  const sold = new Map<string, number>();
  for (const row of lines)
    if (row.supplier === "inventory" && row.outcome === "delivered")
      sold.set(row.sku, (sold.get(row.sku) ?? 0) + row.quantity);
  const selling = [...sold].sort((a, b) => b[1] - a[1]).slice(0, TOP * 2);
  const available = new Map<string, number>();
  if (selling.length > 0) {
    const { results } = await availableCodesStatement(db, `SELECT value FROM json_each(?1)`, [
      JSON.stringify(selling.map(([sku]) => sku)),
    ]).all<{ sku: string; available: number }>();
    for (const row of results) available.set(row.sku, (available.get(row.sku) ?? 0) + row.available);
  }
  const runOuts = selling.map(([sku, quantity]) => {
    const rate = quantity / days;
    const left = available.get(sku) ?? 0;
    return { sku, available: left, perDay: rate, runsOut: runOutDay(left, rate, today) };
  });
  runOuts.sort((a, b) => (a.runsOut ?? Infinity) - (b.runsOut ?? Infinity) || b.perDay - a.perDay);
  return runOuts.slice(0, TOP);
}

/** The wallets that spent most over `days` days: their balance now, and when it runs out. */
async function walletRunOuts(
  env: Pick<Env, "DB" | "WALLETS">,
  spenders: { client_id: string; currency: string; spent: number }[],
  days: number,
  today: number,
): Promise<WalletRunOut[]> {
  const wallets = await Promise.all(
    spenders.map(async (row) => {
      const found = await findWallet(env.DB, clientStatement, row.client_id, row.currency);
      const balance =
        found.wallet === null ? new Money(0) : new Money(await currentBalance(env, row.client_id, found.wallet));
      const rate = perDay(fromThousandths(row.spent), days);
      return {
        clientId: row.client_id,
        currency: row.currency,
        balance,
        perDay: rate,
        runsOut: runOutDay(balance, rate, today),
      };
    }),
  );
  wallets.sort((a, b) => (a.runsOut ?? Infinity) - (b.runsOut ?? Infinity) || b.perDay.comparedTo(a.perDay));
  return wallets.slice(0, TOP);
}

/** What the console's home page charts, for the CHART_DAYS days to `now`. */
export async function homeFigures(env: Pick<Env, "DB" | "WALLETS">, now: number): Promise<HomeFigures> {
  const days = chartDays(now);
  const first = days[0]!;
  const today = days[days.length - 1]!;
  const [sales, lines, spenders] = await Promise.all([
    salesByDay(env.DB, days),
    linesOver(env.DB, first, today),
    spendByWallet(env.DB, first, today, TOP * 2),
  ]);

  const { topSkusBySales, topSkusByFailure, failuresBySupplier } = rankLines(lines);
  const [skus, wallets] = await Promise.all([
    skuRunOuts(env.DB, lines, days.length, today),
    walletRunOuts(env, spenders, days.length, today),
  ]);
  return {
    days,
    sales,
    topSkusBySales,
    topSkusByFailure,
    failuresBySupplier,
    wallets,
    skus,
  };
}

/** One day of a client's orders in one currency. */
export interface ClientDay {
  day: number;
  orders: number;
  spent: Money;
}

/** A client's orders and spend (charged less refunded) per day, per currency, over the chart's days. */
export async function clientFigures(
  db: D1Database,
  clientId: string,
  now: number,
): Promise<{ days: number[]; currencies: { currency: string; days: ClientDay[] }[] }> {
  const days = chartDays(now);
  const rows = await clientDays(db, clientId, days[0]!, days[days.length - 1]!);
  const currencies = [...new Set(rows.map((row) => row.currency))].sort();
  return {
    days,
    currencies: currencies.map((currency) => ({
      currency,
      days: days.map((day) => {
        const row = rows.find((candidate) => candidate.day === day && candidate.currency === currency);
        return {
          day,
          orders: row?.orders ?? 0,
          spent: row === undefined ? new Money(0) : fromThousandths(row.charged - row.refunded),
        };
      }),
    })),
  };
}

/** A wallet's balance at the end of each day (now, for today), its spend per day and when it runs out. */
export interface WalletFigures {
  days: number[];
  /** null: the wallet had no entry yet. */
  balances: (Money | null)[];
  spent: Money[];
  balance: Money;
  perDay: Money;
  runsOut: number | null;
}

/** The balances at `times` across every object the wallet has been: the newest that had an entry then. */
export async function balancesAt(
  env: Pick<Env, "WALLETS">,
  clientId: string,
  wallet: RegisteredWallet,
  times: number[],
): Promise<(Money | null)[]> {
  const answers = await Promise.all(
    historyOf(wallet).map((placement) => placedWallet(env, clientId, wallet.currency, placement).balancesAt(times)),
  );
  return times.map((_, index) => {
    for (let at = answers.length - 1; at >= 0; at -= 1) {
      const balance = answers[at]![index];
      if (balance !== null && balance !== undefined) return new Money(balance);
    }
    return null;
  });
}

/** The wallet's figures, or null when the client has no such wallet. */
export async function walletFigures(
  env: Pick<Env, "DB" | "WALLETS">,
  clientId: string,
  currency: string,
  now: number,
): Promise<WalletFigures | null> {
  const found = await findWallet(env.DB, clientStatement, clientId, currency);
  if (found.wallet === null) return null;
  const days = chartDays(now);
  const today = days[days.length - 1]!;
  const times = days.map((day) => (day === today ? now : (day + 1) * DAY_MS - 1));
  const [balances, client] = await Promise.all([
    balancesAt(env, clientId, found.wallet, times),
    clientFigures(env.DB, clientId, now),
  ]);
  const mine = client.currencies.find((entry) => entry.currency === currency);
  const spent = days.map((_, index) => mine?.days[index]!.spent ?? new Money(0));
  const balance = balances[balances.length - 1] ?? new Money(0);
  const rate = perDay(
    spent.reduce((sum, day) => sum.plus(day), new Money(0)),
    days.length,
  );
  return { days, balances, spent, balance, perDay: rate, runsOut: runOutDay(balance, rate, today) };
}

/** One value of a SKU: its codes in stock at the end of each day, now, its sales per day and its run-out. */
export interface ValueStock {
  value: string;
  /** Codes uploaded and not yet sold (available or held by an open order) at the end of each day. */
  inStock: number[];
  available: number;
  perDay: number;
  runsOut: number | null;
}

export interface SkuFigures {
  days: number[];
  values: ValueStock[];
  threshold: number | null;
}

/**
 * A SKU's codes per value over the chart's days: the unsold codes now, walked back day by day with that
 * day's uploads and sales (daily_stock), so only the window's days are read.
 */
export async function skuFigures(db: D1Database, sku: string, now: number): Promise<SkuFigures> {
  const days = chartDays(now);
  const today = days[days.length - 1]!;
  const [stock, rows, threshold] = await Promise.all([
    stockOf(db, sku),
    stockDays(db, sku, days[0]!),
    stockThresholdOf(db, sku),
  ]);
  const values = new Map<string, { available: number; unsold: number }>();
  for (const row of stock)
    values.set(new Money(row.value).toFixed(), { available: row.available, unsold: row.available + row.reserved });
  for (const row of rows) {
    const value = new Money(row.value).toFixed();
    if (!values.has(value)) values.set(value, { available: 0, unsold: 0 });
  }
  const result: ValueStock[] = [];
  for (const [value, now] of [...values].sort((a, b) => new Money(a[0]).comparedTo(b[0]))) {
    const mine = rows.filter((row) => new Money(row.value).toFixed() === value);
    const inStock: number[] = new Array<number>(days.length);
    let unsold = now.unsold;
    for (let index = days.length - 1; index >= 0; index -= 1) {
      inStock[index] = unsold;
      // Before this day's uploads and sales: what the previous day ended with.
      for (const row of mine) if (row.day === days[index]) unsold += row.sold - row.uploaded;
    }
    const sold = mine.reduce((sum, row) => sum + row.sold, 0);
    const rate = sold / days.length;
    result.push({
      value,
      inStock,
      available: now.available,
      perDay: rate,
      runsOut: runOutDay(now.available, rate, today),
    });
  }
  return { days, values: result, threshold };
}

export { RUN_OUT_HORIZON_DAYS };
