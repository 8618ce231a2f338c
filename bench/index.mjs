// `npm run bench:index`: the order index at scale, on this harness. Bundles the service with its bindings
// counted (bench/instrument/: the same code, every binding wrapped), fills a local store with many wallets
// (one client and USD wallet each, funded through the operator API, so that each wallet object exists) and
// many orders (create → confirm over those clients, closed loop), and reports:
//   - the index's lag: for a sample of orders, the time from the client's answer to the row showing the
//     order (created: the create's answer until any row; end: the confirm's answer until the row shows
//     the end state), p50 and p99;
//   - D1 rows written per order (D1 `meta.rows_written` over the fill, every index entry included; the
//     sandbox flow writes no other D1 row) and the order objects' SQLite rows per order;
//   - the idle repair pass (POST /admin/orders/index/run with nothing open): D1 rows read, orders asked,
//     wall time, before and after 2,000 more idle wallets are added;
//   - RECONCILIATION_HOOK below: the reconciliation helper's measurement of one run plugs in there.
// Settings: INDEX_WALLETS (10000), INDEX_ORDERS (100000), INDEX_MINUTES (10: the fill stops there and the
// report says how many it made), INDEX_CONCURRENCY (16), INDEX_SAMPLE (every Nth order's lag, 50).
import os from "node:os";
import path from "node:path";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { runWithCleanup } from "./lib/lifecycle.mjs";
import { Target, percentile } from "./lib/load.mjs";
import { ROOT, build, start, writeInstrumentedEntry } from "./lib/workers.mjs";
import { seedProject } from "./lib/seed.mjs";

const WALLETS = Number(process.env.INDEX_WALLETS ?? 10_000);
const ORDERS = Number(process.env.INDEX_ORDERS ?? 100_000);
const MINUTES = Number(process.env.INDEX_MINUTES ?? 10);
const CONCURRENCY = Number(process.env.INDEX_CONCURRENCY ?? 16);
const SAMPLE = Number(process.env.INDEX_SAMPLE ?? 50);
const MORE_IDLE_WALLETS = 2_000;
const ADMIN_TOKEN = "bench-admin-token-0123456789";
process.env.ADMIN_TOKEN ??= ADMIN_TOKEN;
process.env.UPSTREAM_API_KEY ??= "bench-upstream-key";
process.env.WRANGLER_LOG ??= "error";

/**
 * The reconciliation's measurement of one run at this scale (the reconciliation's helper adds it): called
 * once the store is filled and the index has caught up, with what it needs; answers rows to print, or null.
 * @type {null | ((context: { target: Target, db: D1Database, adminToken: string, cost: () => Promise<any> }) => Promise<Record<string, number | string> | null>)}
 */
export const RECONCILIATION_HOOK = null;

const tmp = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "order-index-bench-"));
let instance = null;

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Adds `count` clients, each with an API key and a USD wallet row, starting at `from`; answers their keys. */
async function addClients(db, from, count) {
  const now = Date.now();
  const keys = [];
  for (let start = from; start < from + count; start += 100) {
    const statements = [];
    for (let i = start; i < Math.min(from + count, start + 100); i += 1) {
      const id = `idx-${String(i).padStart(6, "0")}`;
      const key = `sk_test_${id}_indexbench`;
      keys.push({ id, key });
      statements.push(
        db
          .prepare(`INSERT INTO clients (id, name, webhook_secret, created_at) VALUES (?1, ?1, ?2, ?3)`)
          .bind(id, `whsec_${id}`, now),
        db
          .prepare(`INSERT INTO api_keys (key_hash, client_id, label, created_at) VALUES (?1, ?2, 'bench', ?3)`)
          .bind(sha256(key), id, now),
        db.prepare(`INSERT INTO wallets (client_id, currency, created_at) VALUES (?1, 'USD', ?2)`).bind(id, now),
      );
    }
    await db.batch(statements);
  }
  return keys;
}

/** Funds each client's wallet through the operator API, so that each wallet object exists with a ledger. */
async function fund(target, clients) {
  let next = 0;
  const worker = async () => {
    while (next < clients.length) {
      const { id } = clients[next++];
      const answer = await target.request("POST", `/admin/wallets/${id}/USD/top-ups`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: { amount: 1_000_000, idempotencyKey: `fund-${id}`, reason: "index bench" },
        parse: true,
      });
      if (answer.status !== 200) throw new Error(`top-up of ${id}: ${answer.status} ${JSON.stringify(answer.json)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const cost = async (target) => (await target.request("GET", "/__bench/cost", { parse: true })).json;

async function repairPass(target) {
  const t0 = performance.now();
  const answer = await target.request("POST", "/admin/orders/index/run", {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    parse: true,
  });
  const ms = performance.now() - t0;
  if (answer.status !== 200) throw new Error(`repair pass: ${answer.status} ${JSON.stringify(answer.json)}`);
  return { ...answer.json.data, ms };
}

/** The repair pass idle, `runs` times once the store is quiet: the median wall time and what it read. */
async function idleRepair(target, runs = 15) {
  await sleep(5_000);
  const results = [];
  for (let run = 0; run < runs; run += 1) results.push(await repairPass(target));
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], rowsRead: results.at(-1).rowsRead, orders: results.at(-1).orders };
}

async function main() {
  const configPath = path.join(ROOT, "wrangler.toml");
  const bundle = await build({
    configPath,
    outdir: path.join(tmp, "build"),
    entry: writeInstrumentedEntry({ configPath, file: path.join(tmp, "entry.js") }),
  });
  instance = await start({
    name: "index-bench",
    configPath,
    bundle,
    persistDir: path.join(tmp, "state"),
    bindings: { ADMIN_TOKEN, UPSTREAM_API_KEY: "bench-upstream-key", SERVICE_MODE: "sandbox" },
  });
  const target = new Target("index-bench", instance.url, instance.pid);
  await seedProject(instance, target, { adminToken: ADMIN_TOKEN, clients: 1, skus: 0, topUp: 1_000_000 });
  const db = await instance.mf.getD1Database("DB");

  const startedAt = Date.now();
  const clients = await addClients(db, 0, WALLETS);
  await fund(target, clients);
  console.log(`${WALLETS} wallets made and funded in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);

  // The fill: create → confirm, closed loop over the clients, until ORDERS or the time is up.
  const deadline = startedAt + MINUTES * 60_000;
  const before = await cost(target);
  const samples = [];
  let made = 0;
  let stop = false;
  const worker = async (w) => {
    for (let n = 0; !stop; n += 1) {
      const index = made++;
      if (index >= ORDERS || Date.now() >= deadline) {
        stop = true;
        made = Math.min(made, ORDERS);
        return;
      }
      const { key } = clients[index % clients.length];
      const created = await target.request("POST", "/order/create", {
        key,
        body: {
          productList: [{ sku: "DEMO-US-RANGE", productType: "range", quote: 5, quantity: 1 }],
          wallet: "USD",
          reference: `ib-${w}-${n}`,
        },
        parse: true,
      });
      if (created.status !== 200) throw new Error(`create: ${created.status} ${JSON.stringify(created.json)}`);
      const createdAt = Date.now();
      const orderId = created.json.data.id;
      const confirmed = await target.request("PUT", "/order/confirm", { key, body: { orderId } });
      if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status}`);
      if (index % SAMPLE === 0) samples.push({ orderId, createdAt, confirmedAt: Date.now(), seen: null, ended: null });
    }
  };
  // The lag: the sampled orders' rows, polled every 100 ms while the fill runs and after it.
  let polling = true;
  const poller = (async () => {
    while (polling || samples.some((s) => s.ended === null)) {
      const open = samples.filter((s) => s.ended === null);
      for (let start = 0; start < open.length; start += 90) {
        const chunk = open.slice(start, start + 90);
        const { results } = await db
          .prepare(`SELECT id, stage FROM order_index WHERE id IN (${chunk.map((_, i) => `?${i + 1}`).join(", ")})`)
          .bind(...chunk.map((s) => s.orderId))
          .all();
        const now = Date.now();
        for (const row of results) {
          const sample = chunk.find((s) => s.orderId === row.id);
          sample.seen ??= now;
          if (row.stage === 2) sample.ended = now;
        }
      }
      if (!polling && Date.now() > deadline + 120_000) break;
      await sleep(100);
    }
  })();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const fillSeconds = (Date.now() - startedAt) / 1000;
  polling = false;
  await poller;
  // Every order's row: the index has caught up once it holds every order made.
  for (let wait = 0; wait < 600; wait += 1) {
    const { n } = await db.prepare(`SELECT COUNT(*) AS n FROM order_index WHERE stage = 2`).first();
    if (n >= made) break;
    await sleep(500);
  }
  await sleep(3_000);
  const after = await cost(target);
  const indexed = (await db.prepare(`SELECT COUNT(*) AS n FROM order_index`).first()).n;

  const lagOf = (field, from) =>
    samples
      .filter((s) => s[field] !== null)
      .map((s) => s[field] - s[from])
      .sort((a, b) => a - b);
  const seenLag = lagOf("seen", "createdAt");
  const endLag = lagOf("ended", "confirmedAt");
  const d1Rows = (after.d1.rowsWritten - before.d1.rowsWritten) / made;
  // The objects' rows: key-value keys and SQL rows written, order and wallet objects together.
  const objectRows =
    after.kv.keysWritten + after.sqlite.rowsWritten - (before.kv.keysWritten + before.sqlite.rowsWritten);
  const alarmRuns = (after.doAlarms.OrderObject ?? 0) - (before.doAlarms.OrderObject ?? 0);

  const idle = await idleRepair(target);
  const more = await addClients(db, WALLETS, MORE_IDLE_WALLETS);
  await fund(target, more);
  const idleMore = await idleRepair(target);

  const hooked =
    RECONCILIATION_HOOK === null
      ? null
      : await RECONCILIATION_HOOK({ target, db, adminToken: ADMIN_TOKEN, cost: () => cost(target) });

  const ms = (values, p) => (values.length === 0 ? "n/a" : `${percentile(values, p).toFixed(0)} ms`);
  console.log(`
order index at scale (${new Date().toISOString()}, ${os.cpus().length} CPUs, concurrency ${CONCURRENCY})
  wallets                 ${WALLETS} (+${MORE_IDLE_WALLETS} idle for the second repair pass)
  orders made             ${made}${made < ORDERS ? ` of ${ORDERS} asked: the ${MINUTES} min the fill may take ran out` : ""} in ${fillSeconds.toFixed(0)} s; ${indexed} rows in the index
  lag, create → any row   p50 ${ms(seenLag, 0.5)}, p99 ${ms(seenLag, 0.99)} (${seenLag.length} sampled)
  lag, confirm → end row  p50 ${ms(endLag, 0.5)}, p99 ${ms(endLag, 0.99)} (${endLag.length} sampled)
  D1 rows written/order   ${d1Rows.toFixed(2)} (meta.rows_written over the fill: the index's row and its index entries)
  object rows/order       ${(objectRows / made).toFixed(2)} (every key and row the order and wallet objects wrote, the index timer's included)
  order alarm runs/order  ${(alarmRuns / made).toFixed(2)} (the index timer's write is one)
  idle repair pass        ${idle.ms.toFixed(1)} ms, ${idle.rowsRead} D1 rows read, ${idle.orders} orders asked (${WALLETS} wallets)
  idle repair pass        ${idleMore.ms.toFixed(1)} ms, ${idleMore.rowsRead} D1 rows read, ${idleMore.orders} orders asked (${WALLETS + MORE_IDLE_WALLETS} wallets)${
    hooked === null
      ? "\n  reconciliation run      (not measured here yet: RECONCILIATION_HOOK)"
      : Object.entries(hooked)
          .map(([name, value]) => `\n  ${name.padEnd(23)} ${value}`)
          .join("")
  }`);
  target.close();
}

async function cleanup() {
  if (instance !== null) await instance.mf.dispose().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}

await runWithCleanup(main, cleanup);
