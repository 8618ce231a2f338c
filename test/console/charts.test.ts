/**
 * The console's charts: SVG drawn on the server with their title, axes and numbers as text, everything a
 * client or an operator wrote escaped, no inline style or script (the console's policy allows neither);
 * and the pages that draw them from the daily figures: the home page, a wallet's, a SKU's and a client's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { barChart, lineChart, rankingChart, ticks } from "../../src/console/charts";
import * as attentionPage from "../../src/console/pages/attention";
import * as clientPage from "../../src/console/pages/client";
import * as productPage from "../../src/console/pages/product";
import * as walletPage from "../../src/console/pages/wallet";
import { dayOf, dayText, DAY_MS } from "../../src/figures/figures-rules";
import { admin } from "../admin-helpers";
import { addClient, seedDemo } from "../helpers";
import type { IndexLine } from "../../src/order-index/order-index-store";
import { addCodes, bareIndexRow, publishBooks, uid, writeBooksRow } from "../order-helpers";
import { callPage, PROBE, PROBE_ESCAPED } from "./pages-helpers";

/** Every chart in `text`: its id, whether its svg names a title and a description that exist, its table's rows. */
function chartsIn(text: string): Map<string, { labelled: boolean; rows: number; summary: string }> {
  const charts = new Map<string, { labelled: boolean; rows: number; summary: string }>();
  for (const match of text.matchAll(/<figure class="chart-figure" id="([^"]+)"[\s\S]*?<\/figure>/g)) {
    const id = match[1]!;
    const figure = match[0];
    const labelled =
      figure.includes(`aria-labelledby="${id}-title ${id}-desc"`) &&
      figure.includes(`<title id="${id}-title">`) &&
      figure.includes(`<desc id="${id}-desc">`) &&
      figure.includes('role="img"');
    const rows = (figure.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1]?.match(/<tr>/g) ?? []).length;
    const summary = figure.match(/<p class="chart-summary">([\s\S]*?)<\/p>/)?.[1] ?? "";
    charts.set(id, { labelled, rows, summary });
  }
  return charts;
}

function expectNoInlineStyleOrScript(text: string) {
  expect(text).not.toMatch(/\sstyle=/);
  expect(text).not.toMatch(/<style/);
  expect(text).not.toMatch(/<script(?! src="\/console\/)/);
  expect(text).not.toMatch(/<[^>]*\son[a-z]+=/);
}

describe("the SVG charts", () => {
  it("rounds the y axis up to a round maximum in a few steps", () => {
    expect(ticks(0)).toEqual([0, 1]);
    expect(ticks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(ticks(100)).toEqual([0, 25, 50, 75, 100]);
    expect(ticks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(ticks(1234)).toEqual([0, 500, 1000, 1500]);
    // Counts: whole steps only.
    expect(ticks(10, true)).toEqual([0, 5, 10]);
    expect(ticks(3, true)).toEqual([0, 1, 2, 3]);
    expect(ticks(10)).toEqual([0, 2.5, 5, 7.5, 10]);
  });

  it("draws a titled, labelled figure whose numbers are a table, with everything written escaped", () => {
    const parts = {
      id: "probe",
      title: `Sales of ${PROBE}`,
      xLabel: "Day (UTC)",
      yLabel: "Sales (USD)",
      x: ["2026-11-01", "2026-11-02"],
      summary: `Most on 2026-11-02 for ${PROBE}.`,
      table: {
        head: ["Day", "Sales (USD)"],
        rows: [
          ["2026-11-01", "1.5"],
          ["2026-11-02", PROBE],
        ],
      },
    };
    for (const text of [
      barChart({ ...parts, series: [{ label: PROBE, tone: "chart-1", values: [1.5, 3] }] }).toString(),
      lineChart({
        ...parts,
        series: [{ label: PROBE, tone: "chart-1", values: [1.5, Number.NaN] }],
        rule: { value: 2, label: `Threshold ${PROBE}`, short: PROBE },
      }).toString(),
      rankingChart({ ...parts, bars: [{ label: PROBE, value: 3, text: PROBE, tone: "chart-bad" }] }).toString(),
    ]) {
      expect(text).toContain(PROBE_ESCAPED);
      expect(text).not.toContain("<img");
      expectNoInlineStyleOrScript(text);
      const chart = chartsIn(text).get("probe")!;
      expect(chart.labelled).toBe(true);
      expect(chart.rows).toBe(2);
      expect(chart.summary).toContain(`Most on 2026-11-02 for ${PROBE_ESCAPED}.`);
      expect(text).toContain("<figcaption><strong>Sales of &lt;img");
    }
    const bars = barChart({ ...parts, series: [{ label: "Sales", tone: "chart-1", values: [1.5, 3] }] }).toString();
    expect(bars).toContain(">Day (UTC)</text>");
    expect(bars).toContain(">Sales (USD)</text>");
    // Two bars, the second twice the first's height.
    const heights = [...bars.matchAll(/<rect class="chart-1"[^>]* height="([\d.]+)"/g)].map((match) =>
      Number(match[1]),
    );
    expect(heights).toHaveLength(2);
    expect(heights[1]! / heights[0]!).toBeCloseTo(2, 5);
  });
});

describe("the pages' charts", () => {
  const today = dayOf(Date.now());
  const at = today * DAY_MS + 1;
  const clientId = uid("chart");
  const sku = `${PROBE}-SKU`;

  beforeAll(async () => {
    await seedDemo();
    await addClient(clientId, { USD: "100" });
    // Three ended orders today as the order index holds them: one successful, one partial, one failed.
    const rows = [
      {
        state: "successful",
        charged: "12.5",
        refunded: "0",
        lines: [{ sku, supplier: "upstream", quantity: 1, amount: "12.5", outcome: "delivered" }],
      },
      {
        state: "partial",
        charged: "10",
        refunded: "4",
        lines: [
          { sku, supplier: "upstream", quantity: 1, amount: "6", outcome: "delivered" },
          { sku: "DEMO-EU-FIXED", supplier: "inventory", quantity: 1, amount: "4", outcome: "failed" },
        ],
      },
      {
        state: "failed",
        charged: "3",
        refunded: "3",
        lines: [{ sku, supplier: "upstream", quantity: 1, amount: "3", outcome: "failed" }],
      },
    ];
    for (const [index, row] of rows.entries())
      await writeBooksRow(
        bareIndexRow({
          clientId,
          reference: `ref-${index}`,
          id: `ord_${String(index).repeat(64)}`,
          state: row.state as "successful",
          total: row.charged,
          charged: row.charged,
          refunded: row.refunded,
          skus: ["x"],
          createdAt: at,
          modifiedAt: at,
          expiresAt: at,
          lines: row.lines as IndexLine[],
        }),
      );
    // The charts read the books' published figures: each shard publishes within the hour of a change.
    await publishBooks();
  });

  it("shows the last 30 days on the home page: orders and sales per currency, SKUs, suppliers, run-outs", async () => {
    const { text } = await callPage(attentionPage, "GET", "/console");
    const charts = chartsIn(text);
    expect([...charts.keys()]).toEqual([
      "orders-usd",
      "sales-usd",
      "top-skus-sales",
      "top-skus-failing",
      "supplier-failures",
    ]);
    for (const [id, chart] of charts) expect(chart.labelled, id).toBe(true);
    expect(charts.get("orders-usd")!.rows).toBe(30);
    expect(charts.get("orders-usd")!.summary).toContain("3 orders over the 30 days");
    expect(charts.get("orders-usd")!.summary).toContain("1 successful, 1 partial, 1 failed, 0 rejected, 0 open");
    // 12.5 + (10 - 4) + (3 - 3): sales are what was charged less what was refunded.
    expect(text).toContain(
      `<tr><th scope="row">${dayText(today)}</th><td class="num">18.5</td><td class="num">3</td><td class="num">1</td><td class="num">1</td></tr>`,
    );
    expect(charts.get("sales-usd")!.summary).toContain(
      `1 day had failed or partial orders (each is in the table); the most on ${dayText(today)} (1 failed, 1 partial).`,
    );
    expect(charts.get("top-skus-sales")!.summary).toContain(`${PROBE_ESCAPED}-SKU 18.5 USD`);
    expect(charts.get("top-skus-failing")!.summary).toContain("DEMO-EU-FIXED 100.0% (1 of 1 lines)");
    expect(charts.get("top-skus-failing")!.summary).toContain(`${PROBE_ESCAPED}-SKU 33.3% (1 of 3 lines)`);
    expect(charts.get("supplier-failures")!.summary).toContain(
      "upstream 1 of 3 lines failed, inventory 1 of 1 lines failed",
    );
    // The wallet that spent, with its balance and the day it runs out (100 USD at 18.5 / 30 a day: 162 days).
    expect(text).toContain(`${clientId} USD</a></td>`);
    expect(text).toMatch(
      /<td class="num">100 USD<\/td><td class="num">0\.617 USD<\/td>\s*<td>not within 90 days<\/td>/,
    );
    expect(text).not.toContain("<img");
    expectNoInlineStyleOrScript(text);
  });

  it("shows a wallet's balance over time from its ledger, its spend and when it runs out", async () => {
    const { text } = await callPage(walletPage, "GET", `/console/wallets/${clientId}/USD`, {
      params: { clientId, currency: "USD" },
    });
    const charts = chartsIn(text);
    expect([...charts.keys()]).toEqual(["wallet-balance", "wallet-spend"]);
    expect(charts.get("wallet-balance")!.labelled).toBe(true);
    expect(charts.get("wallet-balance")!.summary).toContain("The balance is 100 USD now");
    expect(charts.get("wallet-balance")!.summary).toContain("runs out not within 90 days");
    expect(text).toContain(
      `<tr><th scope="row">${dayText(today)}</th><td class="num">100</td><td class="num">18.5</td></tr>`,
    );
    expect(charts.get("wallet-spend")!.summary).toContain("charged 18.5 USD less refunds");
  });

  it("shows a SKU's codes per value over time, the threshold drawn, and each value's run-out", async () => {
    await admin("PUT", "/admin/products/DEMO-EU-FIXED/low-stock-threshold", { threshold: 4 });
    await addCodes("DEMO-EU-FIXED", "25", 2);
    const { text } = await callPage(productPage, "GET", "/console/catalogue/DEMO-EU-FIXED", {
      params: { sku: "DEMO-EU-FIXED" },
    });
    const charts = chartsIn(text);
    const chart = charts.get("sku-stock")!;
    expect(chart.labelled).toBe(true);
    expect(chart.rows).toBe(30);
    expect(text).toContain('class="chart-rule"');
    expect(text).toContain("Low-stock threshold: 4 codes (all values)");
    expect(chart.summary).toMatch(/Value 25: \d+ available now, 0\.00 sold a day, runs out not within 90 days/);
    expectNoInlineStyleOrScript(text);
  });

  it("shows a client's orders and spend per day", async () => {
    const { text } = await callPage(clientPage, "GET", `/console/clients/${clientId}`, { params: { clientId } });
    const charts = chartsIn(text);
    expect([...charts.keys()]).toEqual(["client-orders-usd", "client-spend-usd"]);
    expect(charts.get("client-orders-usd")!.summary).toBe(
      "3 orders over the 30 days " + `${dayText(today - 29)} to ${dayText(today)} (UTC).`,
    );
    expect(charts.get("client-spend-usd")!.summary).toContain("18.5 USD charged less refunds");
  });
});
