/**
 * The console's own files: its stylesheet (a constant here, small) and htmx, which the Worker serves from
 * its static assets (scripts/docs-renderer.mjs copies node_modules/htmx.org/dist/htmx.min.js there). Each
 * URL names its version, so a browser may keep it for good: a new stylesheet or a new htmx is a new URL.
 */

/** htmx, pinned to this exact version in package.json (a test holds the two together). */
export const HTMX_VERSION = "2.0.11";
export const HTMX_FILE = `htmx-${HTMX_VERSION}.min.js`;
/** Where the file is among the static assets (the ASSETS binding). */
export const HTMX_ASSET = `/console/${HTMX_FILE}`;

/** Bumped with every change of STYLESHEET, which is cached for good under its name. */
export const STYLESHEET_FILE = "console-2.css";

export const STYLESHEET = `
:root { color-scheme: light; --ink: #1a1f36; --muted: #4f566b; --line: #d5d9e2; --accent: #3d3aa8;
  --bad: #a4161a; --good: #1e6b34; --paper: #ffffff; --shade: #f6f8fa; font-family: system-ui, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--paper); line-height: 1.45; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #1b64f2; outline-offset: 2px; }
.skip { position: absolute; left: 0.5rem; top: -3rem; background: var(--paper); padding: 0.5rem 1rem; z-index: 10; }
.skip:focus { top: 0.5rem; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: 0.75rem 1.5rem;
  border-bottom: 1px solid var(--line); background: var(--shade); }
header.top .brand { font-weight: 700; margin-right: 1rem; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 1rem; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.who { margin-left: auto; display: flex; align-items: center; gap: 0.75rem; color: var(--muted); }
main { padding: 1.5rem; max-width: 72rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin-top: 0; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--shade); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
form.card, section.card { border: 1px solid var(--line); border-radius: 6px; padding: 1rem; margin: 1rem 0; }
.field { display: flex; flex-direction: column; gap: 0.25rem; margin-bottom: 0.75rem; max-width: 30rem; }
label { font-weight: 600; }
input, select, textarea, button { font: inherit; padding: 0.4rem 0.6rem; border: 1px solid #8792a2; border-radius: 4px; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.quiet { background: var(--paper); color: var(--accent); }
.inline { display: inline; }
.error { color: var(--bad); font-weight: 600; }
[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
.notice { border-left: 4px solid var(--accent); background: var(--shade); padding: 0.5rem 1rem; }
.notice.bad { border-color: var(--bad); }
.notice.good { border-color: var(--good); }
.hint { color: var(--muted); font-size: 0.9rem; }
code, .mono { font-family: ui-monospace, monospace; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(26rem, 1fr)); gap: 1rem 1.5rem; }
figure.chart-figure { margin: 0 0 1rem; border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; }
svg.chart { width: 100%; max-width: 44rem; height: auto; display: block; }
.chart-grid { stroke: #e3e6ec; stroke-width: 1; }
.chart-axis { stroke: var(--muted); stroke-width: 1; }
.chart-tick { fill: var(--muted); font-size: 13px; }
.chart-axis-label { fill: var(--ink); font-size: 14px; font-weight: 600; }
.chart-rule { stroke: var(--bad); stroke-width: 2; stroke-dasharray: 6 4; }
.chart-rule-label { fill: var(--bad); font-size: 13px; font-weight: 600; }
.chart-line { stroke-width: 2.5; fill: none; }
.chart-summary { margin: 0.5rem 0 0; }
.chart-numbers summary { cursor: pointer; color: var(--accent); }
.chart-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; padding: 0; margin: 0.25rem 0; font-size: 0.9rem; }
.chart-key { display: inline-block; width: 0.8rem; height: 0.8rem; margin-right: 0.3rem; vertical-align: middle; border-radius: 2px; }
.chart-rule-key { background: var(--bad); height: 0.2rem; }
rect.chart-1, .chart-key.chart-1 { fill: #3d3aa8; background: #3d3aa8; }
rect.chart-2, .chart-key.chart-2 { fill: #0f7c8c; background: #0f7c8c; }
rect.chart-3, .chart-key.chart-3 { fill: #b35c00; background: #b35c00; }
rect.chart-good, .chart-key.chart-good { fill: #2e8b57; background: #2e8b57; }
rect.chart-warn, .chart-key.chart-warn { fill: #d08700; background: #d08700; }
rect.chart-bad, .chart-key.chart-bad { fill: #a4161a; background: #a4161a; }
rect.chart-quiet, .chart-key.chart-quiet { fill: #9aa3b2; background: #9aa3b2; }
rect.chart-open, .chart-key.chart-open { fill: #c9cfe0; background: #c9cfe0; }
polyline.chart-1 { stroke: #3d3aa8; } polyline.chart-2 { stroke: #0f7c8c; } polyline.chart-3 { stroke: #b35c00; }
polyline.chart-good { stroke: #2e8b57; } polyline.chart-bad { stroke: #a4161a; } polyline.chart-quiet { stroke: #6b7385; }
circle.chart-1 { fill: #3d3aa8; } circle.chart-2 { fill: #0f7c8c; } circle.chart-3 { fill: #b35c00; }
circle.chart-good { fill: #2e8b57; } circle.chart-bad { fill: #a4161a; } circle.chart-quiet { fill: #6b7385; }
table.compact td, table.compact th { padding: 0.25rem 0.5rem; }
`;
