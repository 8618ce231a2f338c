/**
 * The console's charts: SVG drawn on the server into the page, from strings, with no DOM and no script,
 * so that they run in a Worker as they are and pass the console's Content-Security-Policy (no inline
 * style: colours are the stylesheet's classes). Each chart is a figure with its title, axes labelled with
 * their units, an SVG title and description, a sentence of what it shows, and the same numbers as a
 * table a screen reader reads. Why a module of our own and not a library: docs/console.md#charts.
 *
 * Positions are computed with floats (they are pixels); every number a person reads, in the sentence and
 * the table, is given by the page exactly as the figures hold it.
 */
import { html, raw, type Html } from "./html";

const WIDTH = 560;
const HEIGHT = 280;
const LEFT = 64;
const RIGHT = 16;
const TOP = 16;
const BOTTOM = 48;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

/** One series: its name in the legend and the table, its stylesheet class, a number per x. */
export interface Series {
  label: string;
  /** chart-1 … chart-6, chart-bad, chart-warn, chart-good, chart-quiet: colours in the stylesheet. */
  tone: string;
  values: number[];
}

export interface ChartParts {
  /** Unique in the page: the ids of its title and description. */
  id: string;
  title: string;
  /** The x axis's name, with its unit: "Day (UTC)". */
  xLabel: string;
  /** The y axis's name, with its unit or currency: "Sales (USD)". */
  yLabel: string;
  /** A label per x (a day: YYYY-MM-DD). */
  x: string[];
  series: Series[];
  /** What it shows in a sentence or two: read with the chart, and shown under it. */
  summary: string;
  /** The numbers as a table: the header's cells, then a row per x. */
  table: { head: string[]; rows: (string | number)[][] };
  /** A horizontal line across the plot (a threshold): its label in the legend, its short name by the line. */
  rule?: { value: number; label: string; short: string };
  /** The y axis counts things (orders, codes): its ticks are whole numbers. */
  whole?: boolean;
}

/** Ticks of the y axis: 0 to a round maximum at or above `max`, in 4 or 5 steps (whole ones if `whole`). */
export function ticks(max: number, whole = false): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = whole ? Math.max(1, max / 4) : max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const steps = whole && magnitude === 1 ? [1, 2, 5, 10] : [1, 2, 2.5, 5, 10];
  const step = steps.map((m) => m * magnitude).find((candidate) => candidate >= rough)!;
  const count = Math.ceil(max / step - 1e-9);
  return Array.from({ length: count + 1 }, (_, index) => Number((index * step).toPrecision(12)));
}

function tickText(value: number): string {
  return Number.isInteger(value)
    ? String(value)
    : value.toFixed(Math.min(3, Math.max(1, -Math.floor(Math.log10(value)))));
}

/** x labels shown: about 6 of them, the last always. */
function shownLabel(index: number, count: number): boolean {
  const every = Math.max(1, Math.ceil(count / 6));
  return index === count - 1 || (count - 1 - index) % every === 0;
}

type Plot = (y: (value: number) => number, slot: number) => Html;

function frame(parts: ChartParts, top: number, plot: Plot): Html {
  const scale = ticks(top, parts.whole === true);
  const highest = scale[scale.length - 1]!;
  const y = (value: number) => TOP + PLOT_H - (value / highest) * PLOT_H;
  const slot = PLOT_W / parts.x.length;
  const grid = scale.map(
    (tick) => html`<line class="chart-grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(tick)}" y2="${y(tick)}" />
      <text class="chart-tick" x="${LEFT - 6}" y="${y(tick) + 4}" text-anchor="end">${tickText(tick)}</text>`,
  );
  const labels = parts.x.map((label, index) =>
    shownLabel(index, parts.x.length)
      ? html`<text class="chart-tick" x="${LEFT + slot * (index + 0.5)}" y="${TOP + PLOT_H + 16}" text-anchor="middle">${label.length === 10 ? label.slice(5) : label}</text>`
      : "",
  );
  const rule =
    parts.rule === undefined
      ? ""
      : html`<line class="chart-rule" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(parts.rule.value)}" y2="${y(parts.rule.value)}" />
        <text class="chart-rule-label" x="${WIDTH - RIGHT - 4}" y="${y(parts.rule.value) - 4}" text-anchor="end">${parts.rule.short}</text>`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${parts.id}-title ${parts.id}-desc" focusable="false">
      <title id="${parts.id}-title">${parts.title}</title>
      <desc id="${parts.id}-desc">${parts.summary}</desc>
      ${grid}
      ${plot(y, slot)}
      ${rule}
      <line class="chart-axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${TOP + PLOT_H}" y2="${TOP + PLOT_H}" />
      <line class="chart-axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${TOP + PLOT_H}" />
      ${labels}
      <text class="chart-axis-label" x="${LEFT + PLOT_W / 2}" y="${HEIGHT - 8}" text-anchor="middle">${parts.xLabel}</text>
      <text class="chart-axis-label" x="14" y="${TOP + PLOT_H / 2}" text-anchor="middle" transform="rotate(-90 14 ${TOP + PLOT_H / 2})">${parts.yLabel}</text>
    </svg>`;
}

/** The figure around a drawing: title, legend, the drawing, the sentence, the numbers. */
function figure(parts: ChartParts, drawing: Html): Html {
  const legend =
    parts.series.length > 1 || parts.rule !== undefined
      ? html`<ul class="chart-legend" aria-hidden="true">${parts.series.map(
          (series) => html`<li><span class="chart-key ${series.tone}"></span>${series.label}</li>`,
        )}${parts.rule !== undefined ? html`<li><span class="chart-key chart-rule-key"></span>${parts.rule.label}</li>` : ""}</ul>`
      : "";
  return html`<figure class="chart-figure" id="${parts.id}" data-chart="${parts.id}">
      <figcaption><strong>${parts.title}</strong></figcaption>
      ${legend}
      ${drawing}
      <p class="chart-summary">${parts.summary}</p>
      <details class="chart-numbers"><summary>The numbers of “${parts.title}”</summary>
        <table><thead><tr>${parts.table.head.map((cell, index) => html`<th scope="col" ${index > 0 ? raw('class="num"') : ""}>${cell}</th>`)}</tr></thead>
        <tbody>${parts.table.rows.map(
          (row) =>
            html`<tr>${row.map((cell, index) => (index === 0 ? html`<th scope="row">${cell}</th>` : html`<td class="num">${cell}</td>`))}</tr>`,
        )}</tbody></table>
      </details>
    </figure>`;
}

function drawn(parts: ChartParts, top: number, plot: Plot): Html {
  return figure(parts, frame(parts, top, plot));
}

/** Bars per x, the series stacked (orders by state) or one series (sales). */
export function barChart(parts: ChartParts): Html {
  const totals = parts.x.map((_, index) => parts.series.reduce((sum, series) => sum + (series.values[index] ?? 0), 0));
  const top = Math.max(...totals, parts.rule?.value ?? 0);
  return drawn(parts, top, (y, slot) => {
    const bars: Html[] = [];
    parts.x.forEach((label, index) => {
      let base = 0;
      for (const series of parts.series) {
        const value = series.values[index] ?? 0;
        if (value <= 0) continue;
        const from = y(base);
        const to = y(base + value);
        bars.push(
          html`<rect class="${series.tone}" x="${LEFT + slot * index + slot * 0.15}" y="${to}" width="${slot * 0.7}" height="${Math.max(from - to, 1)}"><title>${label}: ${series.label} ${value}</title></rect>`,
        );
        base += value;
      }
    });
    return html`${bars}`;
  });
}

/** A line per series over x (stock per value, a balance), with a dot at each point. */
export function lineChart(parts: ChartParts): Html {
  const top = Math.max(
    0,
    ...parts.series.flatMap((series) => series.values.filter((value) => Number.isFinite(value))),
    parts.rule?.value ?? 0,
  );
  return drawn(parts, top, (y, slot) => {
    const lines = parts.series.map((series) => {
      const points = series.values
        .map((value, index) =>
          Number.isFinite(value) ? `${(LEFT + slot * (index + 0.5)).toFixed(1)},${y(value).toFixed(1)}` : null,
        )
        .filter((point): point is string => point !== null);
      // A dot at each point, so that a day alone (a wallet opened today) still shows.
      const dots = series.values.map((value, index) =>
        Number.isFinite(value)
          ? html`<circle class="${series.tone}" cx="${(LEFT + slot * (index + 0.5)).toFixed(1)}" cy="${y(value).toFixed(1)}" r="2.5" />`
          : "",
      );
      return html`<polyline class="chart-line ${series.tone}" fill="none" points="${points.join(" ")}" />${dots}`;
    });
    return html`${lines}`;
  });
}

/** One bar of a ranking: its label, its length, and the text written at its end. */
export interface RankedBar {
  label: string;
  value: number;
  text: string;
  tone: string;
}

/** Horizontal bars, one per row (the SKUs that sell or fail most): the x axis is `xLabel`. */
export function rankingChart(parts: Omit<ChartParts, "x" | "series" | "rule"> & { bars: RankedBar[] }): Html {
  const row = 26;
  const labelWidth = 190;
  const height = TOP + parts.bars.length * row + 36;
  const longest = Math.max(...parts.bars.map((bar) => bar.value), 0) || 1;
  const span = WIDTH - labelWidth - RIGHT - 110;
  const bars = parts.bars.map((bar, index) => {
    const y = TOP + index * row;
    const length = Math.max((bar.value / longest) * span, bar.value > 0 ? 2 : 0);
    const label = bar.label.length > 26 ? `${bar.label.slice(0, 25)}…` : bar.label;
    return html`<text class="chart-tick" x="${labelWidth - 8}" y="${y + 16}" text-anchor="end">${label}</text>
      <rect class="${bar.tone}" x="${labelWidth}" y="${y + 4}" width="${length}" height="${row - 8}"><title>${bar.label}: ${bar.text}</title></rect>
      <text class="chart-tick" x="${labelWidth + length + 6}" y="${y + 16}">${bar.text}</text>`;
  });
  const drawing = html`<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${parts.id}-title ${parts.id}-desc" focusable="false">
      <title id="${parts.id}-title">${parts.title}</title>
      <desc id="${parts.id}-desc">${parts.summary}</desc>
      ${bars}
      <line class="chart-axis" x1="${labelWidth}" x2="${labelWidth}" y1="${TOP}" y2="${TOP + parts.bars.length * row}" />
      <text class="chart-axis-label" x="${labelWidth + span / 2}" y="${height - 8}" text-anchor="middle">${parts.xLabel}</text>
    </svg>`;
  return figure({ ...parts, x: [], series: [] }, drawing);
}
