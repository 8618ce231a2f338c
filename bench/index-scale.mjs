// `npm run bench:index`: the order index at scale on local D1. Fills `order_index` (and its SKU table) of a
// fresh local D1 with INDEX_SCALE_ORDERS orders (default 1,000,000) across INDEX_SCALE_CLIENTS clients
// (default 1,000) over 30 days, then times each list filter's first page (the queries the routes run,
// from src/orders/order-index.ts) and an export of 10,000 rows (walked 500 at a time, as the export
// route does), and prints p50 and p99 of each. Local D1 is SQLite in workerd, reached through Miniflare's
// binding from Node: each query's time includes that hop (≈ 1 ms), which Cloudflare's D1 replaces with
// its own network hop. Nothing here leaves this machine. Results are printed, not written.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { Log, LogLevel, Miniflare, convertV4MiniflareOptions } from "miniflare";
import { unstable_splitSqlQuery } from "wrangler";

const ROOT = path.resolve(import.meta.dirname, "..");
const ORDERS = Number(process.env.INDEX_SCALE_ORDERS ?? 1_000_000);
const CLIENTS = Number(process.env.INDEX_SCALE_CLIENTS ?? 1_000);
const SAMPLES = Number(process.env.INDEX_SCALE_SAMPLES ?? 200);
const EXPORT_ROWS = Math.min(10_000, ORDERS);
const SKUS = 50;
const DAYS = 30;
const T0 = Date.UTC(2026, 9, 1);
// Milliseconds between two orders, so that ORDERS span DAYS.
const STEP = Math.max(1, Math.floor((DAYS * 86_400_000) / ORDERS));

const tmp = mkdtempSync(path.join(os.tmpdir(), "index-scale-"));
const cleanup = () => rmSync(tmp, { recursive: true, force: true });

// The routes' own queries: order-index.ts bundled for Node.
await build({ entryPoints: [path.join(ROOT, "src/orders/order-index.ts")], bundle: true, format: "esm", platform: "node", outfile: path.join(tmp, "order-index.mjs"), logLevel: "error" });
const { listQuery } = await import(pathToFileURL(path.join(tmp, "order-index.mjs")).href);

// A Worker that only holds the D1 binding: the queries go to D1 through Miniflare's binding from Node.
const mf = new Miniflare(
  convertV4MiniflareOptions({
    log: new Log(LogLevel.WARN),
    cf: false,
    resourcePersistencePath: path.join(tmp, "state"),
    workers: [{ name: "index-scale", modules: true, script: "export default { fetch: () => new Response('') }", d1Databases: { DB: "index-scale" } }],
  }),
);
const db = await mf.getD1Database("DB");

try {
  for (const file of readdirSync(path.join(ROOT, "schema/migrations")).filter((name) => name.endsWith(".sql")).sort()) {
    const statements = unstable_splitSqlQuery(readFileSync(path.join(ROOT, "schema/migrations", file), "utf8")).filter((sql) => sql.trim());
    await db.batch(statements.map((sql) => db.prepare(sql)));
  }

  // --- fill: SQLite generates the rows, 50,000 per statement (one transaction each)
  const filled = performance.now();
  const CHUNK = 50_000;
  for (let start = 0; start < ORDERS; start += CHUNK) {
    const end = Math.min(ORDERS, start + CHUNK) - 1;
    // Integers throughout: D1 binds a JS number as a REAL.
    const series = `WITH RECURSIVE n(i) AS (SELECT CAST(?1 AS INTEGER) UNION ALL SELECT i + 1 FROM n WHERE i < ?2)`;
    const state = `CASE i % 20 WHEN 0 THEN 'failed' WHEN 1 THEN 'rejected' WHEN 2 THEN 'partial' WHEN 3 THEN 'created' ELSE 'successful' END`;
    await db.batch([
      db
        .prepare(
          `${series} INSERT INTO order_index (client_id, created_at, id, reference, state, wallet, total, charged, refunded, skus, modified_at, expires_at, version)
           SELECT 'scale-' || (i % CAST(?3 AS INTEGER)), ?4 + i * ?5, 'ord_' || printf('%064x', i), 'po-' || (i / CAST(?3 AS INTEGER)), ${state}, 'USD', '10', '10', '0',
                  '["SKU-' || (i % ${SKUS}) || '"]', ?4 + i * ?5 + 100, ?4 + i * ?5 + 600000, 2 FROM n`,
        )
        .bind(start, end, CLIENTS, T0, STEP),
      db
        .prepare(`${series} INSERT INTO order_index_skus (sku, created_at, order_id, client_id) SELECT 'SKU-' || (i % ${SKUS}), ?4 + i * ?5, 'ord_' || printf('%064x', i), 'scale-' || (i % CAST(?3 AS INTEGER)) FROM n`)
        .bind(start, end, CLIENTS, T0, STEP),
    ]);
  }
  const fillSeconds = (performance.now() - filled) / 1000;

  // --- the filters, each with a random client, state, SKU, period or prefix per sample
  const pick = (n) => Math.floor(Math.random() * n);
  const client = () => `scale-${pick(CLIENTS)}`;
  const states = ["created", "successful", "failed", "partial", "rejected"];
  const day = () => {
    const from = T0 + pick(DAYS - 1) * 86_400_000;
    return { createdFrom: from, createdTo: from + 86_400_000 - 1 };
  };
  const filters = {
    "client": () => ({ clientId: client() }),
    "client + state": () => ({ clientId: client(), state: states[pick(states.length)] }),
    "client + a day": () => ({ clientId: client(), ...day() }),
    "client + state + a day": () => ({ clientId: client(), state: "failed", ...day() }),
    "client + reference prefix": () => ({ clientId: client(), reference: `po-${pick(Math.max(1, Math.floor(ORDERS / CLIENTS / 10)))}` }),
    "all clients": () => ({}),
    "all clients + a day": () => day(),
    "all clients + state": () => ({ state: states[pick(states.length)] }),
    "all clients + state + a day": () => ({ state: "failed", ...day() }),
    "sku": () => ({ sku: `SKU-${pick(SKUS)}` }),
    "sku + client + state": () => ({ sku: `SKU-${pick(SKUS)}`, clientId: client(), state: "successful" }),
  };
  const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  const rows = [];
  for (const [name, make] of Object.entries(filters)) {
    const times = [];
    let returned = 0;
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const { sql, params } = listQuery(make(), null, 101);
      const started = performance.now();
      const { results } = await db.prepare(sql).bind(...params).all();
      times.push(performance.now() - started);
      returned += results.length;
    }
    times.sort((a, b) => a - b);
    rows.push({ query: `list: ${name}`, p50: percentile(times, 50), p99: percentile(times, 99), rows: Math.round(returned / SAMPLES) });
  }

  // --- an export of EXPORT_ROWS rows: a period holding that many orders, walked 500 rows at a time
  const exportTimes = [];
  for (let sample = 0; sample < Math.max(5, Math.floor(SAMPLES / 10)); sample += 1) {
    const first = pick(Math.max(1, ORDERS - EXPORT_ROWS));
    const filter = { createdFrom: T0 + first * STEP, createdTo: T0 + (first + EXPORT_ROWS - 1) * STEP };
    let after = null;
    let count = 0;
    const started = performance.now();
    for (;;) {
      const { sql, params } = listQuery(filter, after, 500);
      const { results } = await db.prepare(sql).bind(...params).all();
      count += results.length;
      if (results.length < 500) break;
      const last = results[results.length - 1];
      after = { createdAt: last.created_at, id: last.id };
    }
    exportTimes.push(performance.now() - started);
    if (count !== EXPORT_ROWS) throw new Error(`export walked ${count} rows, expected ${EXPORT_ROWS}`);
  }
  exportTimes.sort((a, b) => a - b);
  rows.push({ query: `export of ${EXPORT_ROWS} rows (500 per query)`, p50: percentile(exportTimes, 50), p99: percentile(exportTimes, 99), rows: EXPORT_ROWS });

  console.log(`\norder index at scale: ${ORDERS.toLocaleString("en")} orders, ${CLIENTS.toLocaleString("en")} clients, ${SKUS} SKUs over ${DAYS} days; filled in ${fillSeconds.toFixed(1)} s; ${SAMPLES} samples per list query\n`);
  console.log("| query | p50 ms | p99 ms | rows |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const row of rows) console.log(`| ${row.query} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.rows} |`);
} finally {
  await mf.dispose();
  cleanup();
}
