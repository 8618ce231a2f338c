/**
 * The charts' figures agree with what they summarise: a day's orders and sales per currency with the sum
 * of that day's rows in the orders CSV (GET /admin/orders/export), a client's days with its rows, and a
 * wallet's balance over time and spend with its ledger.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { clientFigures, homeFigures, salesByDay, walletFigures } from "../../src/figures/figures";
import { DAY_MS, dayOf } from "../../src/figures/figures-rules";
import { Money } from "../../src/pricing/money";
import { admin } from "../admin-helpers";
import { confirmOrder, createOrder, line, seedDemo, topUp } from "../helpers";
import { ended, expectOk, freshClient, indexNow, ledgerOf, publishBooks, uid } from "../order-helpers";

interface CsvOrder {
  id: string;
  clientId: string;
  state: string;
  wallet: string;
  charged: string;
  refunded: string;
  createdAt: number;
}

/** The export's rows (no cell of these orders holds a comma or a quote). */
async function exported(): Promise<CsvOrder[]> {
  const answer = await admin("GET", "/admin/orders/export");
  expect(answer.status).toBe(200);
  const [header, ...lines] = (answer.body as string).trim().split(/\r?\n/);
  const columns = header!.split(",");
  return lines.map((text) => {
    const cells = Object.fromEntries(text.split(",").map((cell, index) => [columns[index]!, cell]));
    return {
      id: cells.id!,
      clientId: cells.client_id!,
      state: cells.state!,
      wallet: cells.wallet!,
      charged: cells.charged!,
      refunded: cells.refunded!,
      createdAt: Number(cells.created_at),
    };
  });
}

/**
 * An order, created, confirmed and ended, whose index row is written after each step (as its `index` timer
 * does a few seconds after each change), so that the figures move it from bucket to bucket as in life.
 */
async function ordered(key: string, wallet: string, productList: unknown[], end: string): Promise<void> {
  const created = expectOk(await createOrder({ productList, wallet, reference: uid("ref") }, key));
  await indexNow(created.id);
  expectOk(await confirmOrder(created.id, key));
  await indexNow(created.id);
  expect(await ended(created.id)).toBe(end);
  await indexNow(created.id);
}

let usd: { id: string; key: string };
let eur: { id: string; key: string };

beforeAll(async () => {
  await seedDemo();
  usd = await freshClient({ USD: "1000" });
  eur = await freshClient({ EUR: "200" });
  await ordered(usd.key, "USD", [line("DEMO-US-RANGE", 5, 1)], "successful");
  await ordered(usd.key, "USD", [line("DEMO-US-RANGE", 8, 2)], "successful");
  await ordered(usd.key, "USD", [line("DEMO-US-FAILING", 3, 1)], "failed");
  await ordered(usd.key, "USD", [line("DEMO-US-RANGE", 6, 1), line("DEMO-US-FAILING", 2.5, 1)], "partial");
  await topUp(usd.id, "USD", "33.33");
  await ordered(eur.key, "EUR", [line("DEMO-EU-FIXED", 10, 1)], "successful");
  // The charts read the books' published figures: each shard publishes within the hour of a change.
  await publishBooks();
});

describe("the figures agree with the orders CSV", () => {
  it("has each day's orders, states and sales per currency as the sum of that day's CSV rows", async () => {
    const rows = await exported();
    expect(rows.length).toBe(5);
    const days = [...new Set(rows.map((row) => dayOf(row.createdAt)))].sort();
    const figures = await salesByDay(env.DB, days);
    const expected = new Map<string, { orders: number; failed: number; partial: number; sales: string }>();
    for (const row of rows) {
      const key = `${dayOf(row.createdAt)} ${row.wallet}`;
      const sum = expected.get(key) ?? { orders: 0, failed: 0, partial: 0, sales: "0" };
      sum.orders += 1;
      if (row.state === "failed") sum.failed += 1;
      if (row.state === "partial") sum.partial += 1;
      sum.sales = new Money(sum.sales).plus(row.charged).minus(row.refunded).toFixed();
      expected.set(key, sum);
    }
    const charted = new Map<string, { orders: number; failed: number; partial: number; sales: string }>();
    for (const { currency, days: charts } of figures)
      for (const day of charts)
        if (day.orders > 0)
          charted.set(`${day.day} ${currency}`, {
            orders: day.orders,
            failed: day.byState.failed,
            partial: day.byState.partial,
            sales: day.sales.toFixed(),
          });
    expect(charted).toEqual(expected);
    // Not empty by accident: 4 USD orders (one failed, one partial) and 1 EUR order.
    expect([...expected.values()].reduce((total, sum) => total + sum.orders, 0)).toBe(5);
  });

  it("has a client's orders and spend per day as the sum of its CSV rows", async () => {
    const rows = (await exported()).filter((row) => row.clientId === usd.id);
    const figures = await clientFigures(env.DB, usd.id, Date.now());
    expect(figures.currencies.map((entry) => entry.currency)).toEqual(["USD"]);
    const days = figures.currencies[0]!.days;
    for (const day of days) {
      const mine = rows.filter((row) => dayOf(row.createdAt) === day.day);
      expect(day.orders).toBe(mine.length);
      expect(day.spent.toFixed()).toBe(
        mine.reduce((sum, row) => sum.plus(row.charged).minus(row.refunded), new Money(0)).toFixed(),
      );
    }
    expect(days.reduce((total, day) => total + day.orders, 0)).toBe(4);
  });
});

describe("the SKUs' and suppliers' figures agree with the orders' lines", () => {
  it("counts each ended line once, by SKU and supplier, with the failed ones", async () => {
    const figures = await homeFigures(env, Date.now());
    const bySku = Object.fromEntries(
      figures.topSkusBySales.map((sku) => [`${sku.sku} ${sku.currency}`, [sku.lines, sku.failed, sku.sales.toFixed()]]),
    );
    // DEMO-US-RANGE: 5, 2 × 8 and 6 delivered; DEMO-EU-FIXED: one of 10 EUR (at the deal-free price).
    expect(bySku["DEMO-US-RANGE USD"]).toEqual([3, 0, "27"]);
    expect(bySku["DEMO-EU-FIXED EUR"]?.slice(0, 2)).toEqual([1, 0]);
    const failing = figures.topSkusByFailure.find((sku) => sku.sku === "DEMO-US-FAILING")!;
    expect([failing.lines, failing.failed]).toEqual([2, 2]);
    expect(figures.failuresBySupplier.find((row) => row.supplier === "sandbox")).toEqual({
      supplier: "sandbox",
      lines: 5,
      failed: 2,
    });
  });
});

describe("a wallet's figures agree with its ledger", () => {
  it("has the balance at each day's end and now as the ledger's, and the spend as its orders' entries", async () => {
    const now = Date.now();
    const figures = (await walletFigures(env, usd.id, "USD", now))!;
    const ledger = await ledgerOf(usd.id, "USD");
    expect(ledger.length).toBeGreaterThan(4);
    figures.days.forEach((day, index) => {
      const end = index === figures.days.length - 1 ? now : (day + 1) * DAY_MS - 1;
      const before = ledger.filter((entry) => entry.createdAt <= end);
      const expected = before.length === 0 ? null : before[before.length - 1]!.balanceAfter;
      expect(figures.balances[index]?.toFixed() ?? null, `balance at the end of day ${day}`).toBe(
        expected === null ? null : new Money(expected).toFixed(),
      );
    });
    expect(figures.balance.toFixed()).toBe(new Money(ledger[ledger.length - 1]!.balanceAfter).toFixed());
    // What its orders took (charges less refunds): the ledger's entries naming an order, by the day of
    // the order's creation, which the export gives.
    const orderDay = new Map((await exported()).map((row) => [row.id, dayOf(row.createdAt)]));
    expect(orderDay.size).toBe(5);
    figures.days.forEach((day, index) => {
      const spent = ledger
        .filter((entry) => entry.orderId !== null && orderDay.get(entry.orderId) === day)
        .reduce((sum, entry) => sum.minus(entry.amount), new Money(0));
      expect(figures.spent[index]!.toFixed(), `spent on day ${day}`).toBe(spent.toFixed());
    });
    const total = figures.spent.reduce((sum, day) => sum.plus(day), new Money(0));
    expect(total.greaterThan(0)).toBe(true);
    expect(figures.perDay.toFixed()).toBe(total.dividedBy(figures.days.length).toFixed());
  });
});
