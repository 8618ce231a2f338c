/**
 * The console's charts of the daily figures (src/figures/figures.ts), drawn by ../charts.ts: the home
 * page's glance at the last 30 days, and a wallet's, a SKU's and a client's own. Every chart carries its
 * numbers as a sentence and a table; the amounts in them are the figures' exact decimals.
 */
import {
  clientFigures,
  DAY_STATES,
  homeFigures,
  skuFigures,
  walletFigures,
  RUN_OUT_HORIZON_DAYS,
  type ClientDay,
  type CurrencySales,
  type HomeFigures,
  type SkuFigures,
  type WalletFigures,
} from "../../figures/figures";
import { dayText } from "../../figures/figures-rules";
import type { Money } from "../../pricing/money";
import { barChart, lineChart, rankingChart, type Series } from "../charts";
import { amount } from "../format";
import { html, path, type Html } from "../html";
import type { PageContext } from "../page";

const STATE_TONES: Record<(typeof DAY_STATES)[number], string> = {
  successful: "chart-good",
  partial: "chart-warn",
  failed: "chart-bad",
  rejected: "chart-quiet",
  open: "chart-open",
};

/** "not within 90 days" or the day. */
export function runOutText(day: number | null): string {
  return day === null ? `not within ${RUN_OUT_HORIZON_DAYS} days` : dayText(day);
}

function sum(values: Money[], zero: Money): Money {
  return values.reduce((total, value) => total.plus(value), zero);
}

function period(days: number[]): string {
  return `the ${days.length} days ${dayText(days[0]!)} to ${dayText(days[days.length - 1]!)} (UTC)`;
}

/** The busiest of `values` (by number) as "YYYY-MM-DD (text)", or null when all are 0. */
function peak(days: number[], values: number[], text: (index: number) => string): string | null {
  let best = -1;
  values.forEach((value, index) => {
    if (value > 0 && (best < 0 || value > values[best]!)) best = index;
  });
  return best < 0 ? null : `${dayText(days[best]!)} (${text(best)})`;
}

/** The day of `rows` with the most failed and partial orders, as "YYYY-MM-DD (n failed, m partial)". */
function worst(rows: CurrencySales["days"]): string {
  const day = rows.reduce((most, row) =>
    row.byState.failed + row.byState.partial > most.byState.failed + most.byState.partial ? row : most,
  );
  return `${dayText(day.day)} (${day.byState.failed} failed, ${day.byState.partial} partial)`;
}

function currencyCharts(days: number[], { currency, days: rows }: CurrencySales): Html {
  const id = currency.toLowerCase();
  const states = DAY_STATES.map((state) => rows.reduce((total, row) => total + row.byState[state], 0));
  const orders = rows.reduce((total, row) => total + row.orders, 0);
  const stateText = DAY_STATES.map((state, index) => `${states[index]} ${state}`).join(", ");
  const busiest = peak(
    days,
    rows.map((row) => row.orders),
    (index) => `${rows[index]!.orders} orders`,
  );
  const ordersChart = barChart({
    id: `orders-${id}`,
    title: `Orders per day, ${currency} wallets`,
    xLabel: "Day (UTC)",
    yLabel: "Orders",
    whole: true,
    x: days.map(dayText),
    series: DAY_STATES.map((state) => ({
      label: state,
      tone: STATE_TONES[state],
      values: rows.map((row) => row.byState[state]),
    })),
    summary: `${orders} orders over ${period(days)}: ${stateText}.${busiest === null ? "" : ` The most on ${busiest}.`}`,
    table: {
      head: ["Day", "Orders", ...DAY_STATES.map((state) => state[0]!.toUpperCase() + state.slice(1))],
      rows: rows.map((row) => [dayText(row.day), row.orders, ...DAY_STATES.map((state) => row.byState[state])]),
    },
  });
  const total = sum(
    rows.map((row) => row.sales),
    rows[0]!.sales.minus(rows[0]!.sales),
  );
  const best = peak(
    days,
    rows.map((row) => row.sales.toNumber()),
    (index) => amount(rows[index]!.sales, currency),
  );
  const marked = rows.filter((row) => row.byState.failed + row.byState.partial > 0);
  const salesChart = barChart({
    id: `sales-${id}`,
    title: `Sales per day (${currency})`,
    xLabel: "Day (UTC)",
    yLabel: `Sales (${currency})`,
    x: days.map(dayText),
    series: [{ label: `Sales (${currency})`, tone: "chart-1", values: rows.map((row) => row.sales.toNumber()) }],
    summary:
      `Sales (charged less refunded) of ${amount(total, currency)} over ${period(days)}.` +
      (best === null ? "" : ` The most on ${best}.`) +
      (marked.length === 0
        ? " No day had a failed or partial order."
        : ` ${marked.length} ${marked.length === 1 ? "day" : "days"} had failed or partial orders (each is in the table); the most on ${worst(marked)}.`),
    table: {
      head: ["Day", `Sales (${currency})`, "Orders", "Failed", "Partial"],
      rows: rows.map((row) => [
        dayText(row.day),
        amount(row.sales),
        row.orders,
        row.byState.failed,
        row.byState.partial,
      ]),
    },
  });
  return html`${ordersChart}${salesChart}`;
}

/** The failed share of `lines`, as a percentage. */
const rate = (failed: number, lines: number) => `${((100 * failed) / lines).toFixed(1)}%`;

function salesRanking(figures: HomeFigures): Html {
  const { days } = figures;
  return figures.topSkusBySales.length === 0
    ? html`<p>No SKU delivered anything over ${period(days)}.</p>`
    : rankingChart({
        id: "top-skus-sales",
        title: "SKUs that sold most",
        xLabel: "Sales of delivered lines (wallet currency)",
        yLabel: "SKU",
        summary: `Over ${period(days)}: ${figures.topSkusBySales.map((sku) => `${sku.sku} ${amount(sku.sales, sku.currency)}`).join(", ")}.`,
        bars: figures.topSkusBySales.map((sku) => ({
          label: `${sku.sku} (${sku.currency})`,
          value: sku.sales.toNumber(),
          text: amount(sku.sales, sku.currency),
          tone: "chart-1",
        })),
        table: {
          head: ["SKU", "Currency", "Sales", "Lines", "Failed lines"],
          rows: figures.topSkusBySales.map((sku) => [sku.sku, sku.currency, amount(sku.sales), sku.lines, sku.failed]),
        },
      });
}

function failureRanking(figures: HomeFigures): Html {
  const { days } = figures;
  return figures.topSkusByFailure.length === 0
    ? html`<p>No line failed over ${period(days)}.</p>`
    : rankingChart({
        id: "top-skus-failing",
        title: "SKUs that fail most",
        xLabel: "Lines failed (% of ended lines)",
        yLabel: "SKU",
        summary: `Over ${period(days)}: ${figures.topSkusByFailure.map((sku) => `${sku.sku} ${rate(sku.failed, sku.lines)} (${sku.failed} of ${sku.lines} lines)`).join(", ")}.`,
        bars: figures.topSkusByFailure.map((sku) => ({
          label: `${sku.sku} (${sku.currency})`,
          value: sku.failed / sku.lines,
          text: `${rate(sku.failed, sku.lines)} (${sku.failed} of ${sku.lines})`,
          tone: "chart-bad",
        })),
        table: {
          head: ["SKU", "Currency", "Failure rate", "Failed lines", "Lines"],
          rows: figures.topSkusByFailure.map((sku) => [
            sku.sku,
            sku.currency,
            rate(sku.failed, sku.lines),
            sku.failed,
            sku.lines,
          ]),
        },
      });
}

function supplierRanking(figures: HomeFigures): Html {
  const { days } = figures;
  return figures.failuresBySupplier.length === 0
    ? html`<p>No line ended over ${period(days)}.</p>`
    : rankingChart({
        id: "supplier-failures",
        title: "Failures by supplier",
        xLabel: "Lines failed",
        yLabel: "Supplier",
        summary: `Over ${period(days)}: ${figures.failuresBySupplier.map((row) => `${row.supplier} ${row.failed} of ${row.lines} lines failed`).join(", ")}.`,
        bars: figures.failuresBySupplier.map((row) => ({
          label: row.supplier,
          value: row.failed,
          text: `${row.failed} of ${row.lines} (${rate(row.failed, row.lines)})`,
          tone: "chart-bad",
        })),
        table: {
          head: ["Supplier", "Failed lines", "Lines", "Failure rate"],
          rows: figures.failuresBySupplier.map((row) => [
            row.supplier,
            row.failed,
            row.lines,
            rate(row.failed, row.lines),
          ]),
        },
      });
}

function rankings(figures: HomeFigures): Html {
  return html`${salesRanking(figures)}${failureRanking(figures)}${supplierRanking(figures)}`;
}

function runOuts(figures: HomeFigures): Html {
  const wallets =
    figures.wallets.length === 0
      ? html`<p>No wallet spent anything over ${period(figures.days)}.</p>`
      : html`<table class="compact"><caption>Wallets that spent most over ${period(figures.days)}, soonest to run out first</caption>
        <thead><tr><th scope="col">Wallet</th><th scope="col" class="num">Balance</th><th scope="col" class="num">Spend a day</th><th scope="col">Runs out</th></tr></thead>
        <tbody>${figures.wallets.map(
          (
            row,
          ) => html`<tr><td><a href="${path("/console/wallets", row.clientId, row.currency)}">${row.clientId} ${row.currency}</a></td>
            <td class="num">${amount(row.balance, row.currency)}</td><td class="num">${amount(row.perDay.toDecimalPlaces(3), row.currency)}</td>
            <td>${runOutText(row.runsOut)}</td></tr>`,
        )}</tbody></table>`;
  const skus =
    figures.skus.length === 0
      ? html`<p>No inventory SKU sold a code over ${period(figures.days)}.</p>`
      : html`<table class="compact"><caption>Inventory SKUs that sold most over ${period(figures.days)}, soonest to run out first</caption>
        <thead><tr><th scope="col">SKU</th><th scope="col" class="num">Codes available</th><th scope="col" class="num">Sold a day</th><th scope="col">Runs out</th></tr></thead>
        <tbody>${figures.skus.map(
          (row) => html`<tr><td><a href="${path("/console/catalogue", row.sku)}">${row.sku}</a></td>
            <td class="num">${row.available}</td><td class="num">${row.perDay.toFixed(2)}</td><td>${runOutText(row.runsOut)}</td></tr>`,
        )}</tbody></table>`;
  return html`<div class="charts"><div>${wallets}</div><div>${skus}</div></div>`;
}

/** The home page's glance: the last 30 days' orders and sales, the SKUs and suppliers, what runs out. */
export async function glance(ctx: PageContext): Promise<Html> {
  const figures = await homeFigures(ctx.env, Date.now());
  const sales =
    figures.sales.length === 0
      ? html`<p>No orders over ${period(figures.days)}.</p>`
      : html`<div class="charts">${figures.sales.map((currency) => currencyCharts(figures.days, currency))}</div>`;
  return html`<section aria-labelledby="glance-heading"><h2 id="glance-heading">The last ${figures.days.length} days at a glance</h2>
      <p class="hint">Orders by the day they were created (UTC), as the order index holds them.</p>
      ${sales}
      <h3>SKUs and suppliers</h3>
      <div class="charts">${rankings(figures)}</div>
      <h3>What runs out first, at the last ${figures.days.length} days' rate</h3>
      ${runOuts(figures)}
    </section>`;
}

/** A wallet's balance over time, its spend per day, and when it runs out. */
export function walletCharts(clientId: string, currency: string, figures: WalletFigures): Html {
  const { days } = figures;
  const balances = figures.balances.map((balance) => (balance === null ? Number.NaN : balance.toNumber()));
  const balanceChart = lineChart({
    id: "wallet-balance",
    title: `Balance at the end of each day (${currency})`,
    xLabel: "Day (UTC)",
    yLabel: `Balance (${currency})`,
    x: days.map(dayText),
    series: [{ label: `Balance (${currency})`, tone: "chart-1", values: balances }],
    summary: `The balance is ${amount(figures.balance, currency)} now; it was ${figures.balances[0] === null ? "not yet open" : amount(figures.balances[0]!, currency)} at the end of ${dayText(days[0]!)}. Average spend ${amount(figures.perDay.toDecimalPlaces(3), currency)} a day over ${period(days)}: at that rate it runs out ${figures.runsOut === null ? `not within ${RUN_OUT_HORIZON_DAYS} days` : `on ${dayText(figures.runsOut)}`}.`,
    table: {
      head: ["Day", `Balance (${currency})`, `Spent (${currency})`],
      rows: days.map((day, index) => [
        dayText(day),
        figures.balances[index] === null ? "—" : amount(figures.balances[index]!),
        amount(figures.spent[index]!),
      ]),
    },
  });
  const spendChart = barChart({
    id: "wallet-spend",
    title: `Spent per day (${currency})`,
    xLabel: "Day (UTC)",
    yLabel: `Spent (${currency})`,
    x: days.map(dayText),
    series: [{ label: `Spent (${currency})`, tone: "chart-2", values: figures.spent.map((value) => value.toNumber()) }],
    summary: `Orders of ${clientId} charged ${amount(
      sum(figures.spent, figures.balance.minus(figures.balance)),
      currency,
    )} less refunds over ${period(days)}, ${amount(figures.perDay.toDecimalPlaces(3), currency)} a day on average.`,
    table: {
      head: ["Day", `Spent (${currency})`],
      rows: days.map((day, index) => [dayText(day), amount(figures.spent[index]!)]),
    },
  });
  return html`<section aria-labelledby="wallet-figures-heading"><h2 id="wallet-figures-heading">Balance and spend</h2>
      <dl class="facts"><dt>Spend a day</dt><dd>${amount(figures.perDay.toDecimalPlaces(3), currency)} (the last ${days.length} days' average)</dd>
        <dt>Runs out</dt><dd>${runOutText(figures.runsOut)}</dd></dl>
      <div class="charts">${balanceChart}${spendChart}</div></section>`;
}

/** A SKU's codes in stock per value over time, the threshold, its sales rate and run-out per value. */
export function skuCharts(figures: SkuFigures): Html {
  const { days } = figures;
  if (figures.values.length === 0) return html``;
  const tones = ["chart-1", "chart-2", "chart-3", "chart-good", "chart-bad", "chart-quiet"];
  const series: Series[] = figures.values.map((value, index) => ({
    label: `Value ${value.value}`,
    tone: tones[index % tones.length]!,
    values: value.inStock,
  }));
  const chart = lineChart({
    id: "sku-stock",
    title: "Codes in stock per value at the end of each day",
    xLabel: "Day (UTC)",
    yLabel: "Codes",
    whole: true,
    x: days.map(dayText),
    series,
    ...(figures.threshold === null
      ? {}
      : {
          rule: {
            value: figures.threshold,
            label: `Low-stock threshold: ${figures.threshold} codes (all values)`,
            short: `threshold ${figures.threshold}`,
          },
        }),
    summary: `${figures.values
      .map(
        (value) =>
          `Value ${value.value}: ${value.available} available now, ${value.perDay.toFixed(2)} sold a day, runs out ${value.runsOut === null ? `not within ${RUN_OUT_HORIZON_DAYS} days` : `on ${dayText(value.runsOut)}`}`,
      )
      .join(
        ". ",
      )}.${figures.threshold === null ? "" : ` The low-stock threshold is ${figures.threshold} codes, all values together.`}`,
    table: {
      head: ["Day", ...figures.values.map((value) => `Value ${value.value}`)],
      rows: days.map((day, index) => [dayText(day), ...figures.values.map((value) => value.inStock[index]!)]),
    },
  });
  return html`<section aria-labelledby="sku-figures-heading"><h2 id="sku-figures-heading">Stock over time</h2>
      <p class="hint">In stock: uploaded and not sold (available, or held by an open order). Sold a day: the last ${days.length} days' average.</p>
      ${chart}
      <table class="compact"><thead><tr><th scope="col" class="num">Value</th><th scope="col" class="num">Available now</th><th scope="col" class="num">Sold a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${figures.values.map((value) => html`<tr><td class="num">${value.value}</td><td class="num">${value.available}</td><td class="num">${value.perDay.toFixed(2)}</td><td>${runOutText(value.runsOut)}</td></tr>`)}</tbody></table>
    </section>`;
}

/** A client's orders and spend per day, per currency. */
export function clientCharts(figures: { days: number[]; currencies: { currency: string; days: ClientDay[] }[] }): Html {
  const { days } = figures;
  const charts = figures.currencies.map(({ currency, days: rows }) => {
    const id = currency.toLowerCase();
    const orders = rows.reduce((total, row) => total + row.orders, 0);
    const spent = sum(
      rows.map((row) => row.spent),
      rows[0]!.spent.minus(rows[0]!.spent),
    );
    return html`${barChart({
      id: `client-orders-${id}`,
      title: `Orders per day, ${currency} wallet`,
      xLabel: "Day (UTC)",
      yLabel: "Orders",
      whole: true,
      x: days.map(dayText),
      series: [{ label: "Orders", tone: "chart-1", values: rows.map((row) => row.orders) }],
      summary: `${orders} orders over ${period(days)}.`,
      table: { head: ["Day", "Orders"], rows: rows.map((row) => [dayText(row.day), row.orders]) },
    })}${barChart({
      id: `client-spend-${id}`,
      title: `Spent per day (${currency})`,
      xLabel: "Day (UTC)",
      yLabel: `Spent (${currency})`,
      x: days.map(dayText),
      series: [{ label: `Spent (${currency})`, tone: "chart-2", values: rows.map((row) => row.spent.toNumber()) }],
      summary: `${amount(spent, currency)} charged less refunds over ${period(days)}.`,
      table: { head: ["Day", `Spent (${currency})`], rows: rows.map((row) => [dayText(row.day), amount(row.spent)]) },
    })}`;
  });
  return html`<section aria-labelledby="client-figures-heading"><h2 id="client-figures-heading">Orders and spend, the last ${days.length} days</h2>
      ${figures.currencies.length === 0 ? html`<p>No orders over ${period(days)}.</p>` : html`<div class="charts">${charts}</div>`}</section>`;
}

/** The wallet page's section: nothing when the client has no such wallet. */
export async function walletSection(ctx: PageContext, clientId: string, currency: string): Promise<Html> {
  const figures = await walletFigures(ctx.env, clientId, currency, Date.now());
  return figures === null ? html`` : walletCharts(clientId, currency, figures);
}

/** The SKU page's section (an inventory SKU's). */
export async function skuSection(ctx: PageContext, sku: string): Promise<Html> {
  return skuCharts(await skuFigures(ctx.env.DB, sku, Date.now()));
}

/** The client page's section. */
export async function clientSection(ctx: PageContext, clientId: string): Promise<Html> {
  return clientCharts(await clientFigures(ctx.env.DB, clientId, Date.now()));
}
