// `npm run bench:index`: the client's books at scale, on this harness (docs/books.md). Bundles the service
// with its bindings counted (bench/instrument/: the same code, every binding wrapped), fills a local store
// with many wallets (one client and USD wallet each, funded through the operator API, so that each wallet
// object exists) and many orders (create → confirm over those clients, closed loop), and reports:
//   - the books' lag: for a sample of orders, the time from the client's answer to the client's own list
//     (GET /orders, read from the shards) showing the order (created: the create's answer until it is
//     listed; end: the confirm's answer until it is listed in its end state), p50 and p99;
//   - rows written per order in the shards (SQLite cursors' rowsWritten and key-value keys of the
//     BooksObject class) and in D1 (meta.rows_written), D1's by whose code wrote them: the books' own
//     (the day's registration, exceptions) and what the order object still writes while readers move
//     (the order index and its daily-figure triggers); the order and wallet objects' rows;
//   - requests per order to the shards, the order's and the shards' alarm runs;
//   - how many orders a second one shard takes here (GET /__bench/shard: rows written straight to one
//     client's shard, `INDEX_SHARD_CONCURRENCY` at a time);
//   - USD per million orders from those counts and bench/prices/ (what is measured and what is arithmetic
//     is said on each line), and the projection to 1,000,000 wallets and 100 million orders a day;
//   - the idle repair pass (POST /admin/orders/index/run with nothing open): D1 rows read, orders asked,
//     wall time, before and after 2,000 more idle wallets are added;
//   - RECONCILIATION_HOOK below: one reconciliation run over the fill's wallet-days (GET /admin/reconciliation,
//     within its budget of days) and one over a span with no change, each with its wall time, object calls
//     and rows read; the cost of one wallet-day's check and its projection.
// Settings: INDEX_WALLETS (10000), INDEX_ORDERS (100000), INDEX_MINUTES (10: the fill stops there and the
// report says how many it made), INDEX_CONCURRENCY (16), INDEX_SAMPLE (every Nth order's lag, 50),
// INDEX_SHARD_ORDERS (20000) and INDEX_SHARD_CONCURRENCY (32) for one shard's rate.
import os from "node:os";
import path from "node:path";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import { runWithCleanup } from "./lib/lifecycle.mjs";
import { Target, percentile } from "./lib/load.mjs";
import { ROOT, build, start, writeInstrumentedEntry } from "./lib/workers.mjs";
import { seedProject } from "./lib/seed.mjs";
import { booksCosts, projection } from "./lib/books.mjs";

const WALLETS = Number(process.env.INDEX_WALLETS ?? 10_000);
const ORDERS = Number(process.env.INDEX_ORDERS ?? 100_000);
const MINUTES = Number(process.env.INDEX_MINUTES ?? 10);
const CONCURRENCY = Number(process.env.INDEX_CONCURRENCY ?? 16);
const SAMPLE = Number(process.env.INDEX_SAMPLE ?? 50);
const SHARD_ORDERS = Number(process.env.INDEX_SHARD_ORDERS ?? 20_000);
const SHARD_CONCURRENCY = Number(process.env.INDEX_SHARD_CONCURRENCY ?? 32);
const MORE_IDLE_WALLETS = 2_000;
const ADMIN_TOKEN = "bench-admin-token-0123456789";
process.env.ADMIN_TOKEN ??= ADMIN_TOKEN;
process.env.UPSTREAM_API_KEY ??= "bench-upstream-key";
process.env.WRANGLER_LOG ??= "error";

/**
 * The mismatches of a run, those of the one-shard rate's made-up rows (GET /__bench/shard writes rows of
 * a client `shard-bench-…` with no order behind them, which the reconciliation rightly names) apart: any
 * other is a finding of the fill, and fails the bench.
 */
function fillMismatches(mismatches) {
  const madeUp = mismatches.filter((mismatch) => mismatch.clientId?.startsWith("shard-bench-"));
  return { madeUp, others: mismatches.filter((mismatch) => !madeUp.includes(mismatch)) };
}

function mismatchesText(mismatches) {
  const { madeUp, others } = fillMismatches(mismatches);
  return others.length > 0
    ? `${others.length} mismatches of the fill (${JSON.stringify(others.slice(0, 3))}), and ${madeUp.length} of the one-shard rate's made-up rows`
    : `0 mismatches of the fill (${madeUp.length} named the one-shard rate's made-up rows, as they should)`;
}

/**
 * The reconciliation's measurement at this scale (docs/operator-api.md, Reconciliation): called once the
 * store is filled and the books have caught up; answers rows to print. One run over the fill's days (GET
 * /admin/reconciliation: the checks a pass makes of each wallet-day, within its budget of days, storing
 * nothing) and one over a span with no books (a day to come); from the first, the cost of reconciling one active
 * wallet-day (its object requests and rows read as measured, and the one `reconciliation_days` row a stored
 * pass writes for it), and the projection to 1,000,000 wallets and 100 million orders a day.
 * @type {null | ((context: { target: Target, db: D1Database, adminToken: string, cost: () => Promise<any> }) => Promise<Record<string, number | string> | null>)}
 */
export const RECONCILIATION_HOOK = async ({ target, adminToken, cost }) => {
  const run = async (from, to) => {
    const before = await cost();
    const t0 = performance.now();
    const answer = await target.request("GET", `/admin/reconciliation?createdFrom=${from}&createdTo=${to}&grace=0`, {
      headers: { authorization: `Bearer ${adminToken}` },
      parse: true,
    });
    const ms = performance.now() - t0;
    if (answer.status !== 200) throw new Error(`reconciliation: ${answer.status} ${JSON.stringify(answer.json)}`);
    const after = await cost();
    const calls = (counts) => Object.values(counts ?? {}).reduce((sum, n) => sum + n, 0);
    return {
      ms,
      data: answer.json.data,
      rowsRead: after.d1.rowsRead - before.d1.rowsRead + (after.sqlite.rowsRead - before.sqlite.rowsRead),
      statements: after.d1.statements - before.d1.statements,
      doCalls: calls(after.doCalls) - calls(before.doCalls),
    };
  };
  const line = ({ ms, data, rowsRead, statements, doCalls }) =>
    `${ms.toFixed(0)} ms, ${doCalls} object calls, ${statements} D1 statements (${rowsRead} rows read, D1 and objects); ` +
    `checked ${data.checked.days} wallet-days (${data.checked.sealedDays} sealed), ${data.checked.ledgerEntries} ledger entries, ` +
    `${data.checked.orders} orders drilled, ${data.checked.postingAudits} postings and audit rows; ` +
    `${data.complete ? "complete" : "budget of days reached"}; ${mismatchesText(data.mismatches)}`;
  const busy = await run(Date.now() - 86_400_000, Date.now());
  // A span of a day to come: no books, no postings; what a run costs when nothing is due.
  const quiet = Date.now() + 2 * 86_400_000;
  const idle = await run(quiet, quiet + 1);
  for (const { data } of [busy, idle]) if (fillMismatches(data.mismatches).others.length > 0) process.exitCode = 1;
  const days = Math.max(1, busy.data.checked.days);
  // µUSD of one check of one wallet-day: requests at 0.15 per million, rows read at 0.001 per million, and
  // the stored pass's one row at 1.00 per million (a day sealed again keeps its index entries).
  const perDay = (busy.doCalls / days) * 0.15 + (busy.rowsRead / days) * 0.001 + 1.0;
  const checksPerDay = 27; // at most 24 publishes of a quiet day, and 3 re-verifications
  const perMillion = (orders) => (perDay * checksPerDay) / orders;
  return {
    "reconciliation run": line(busy),
    "reconciliation, idle": line(idle),
    "a wallet-day's check":
      `${(busy.doCalls / days).toFixed(2)} object requests, ${(busy.rowsRead / days).toFixed(0)} rows read, 1 row written: ` +
      `${perDay.toFixed(2)} µUSD (USD ${(perDay / 1e6).toFixed(8)}); ≤ ${checksPerDay} a day: ${(perDay * checksPerDay).toFixed(1)} µUSD a wallet-day`,
    "reconciliation, projected":
      `1,000,000 wallet-days of 100 orders: USD ${perMillion(100).toFixed(2)} per million orders (budget 0.50); ` +
      `about ${Math.round((1_000_000 * checksPerDay) / 86_400)} checks/s; one check: ${(busy.doCalls / days).toFixed(1)} object requests, ` +
      `one wallet object: one ledgerDay page a check; D1: one row a check`,
  };
};

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
  let started = 0;
  let made = 0;
  let stop = false;
  const worker = async (w) => {
    for (let n = 0; !stop; n += 1) {
      const index = started++;
      if (index >= ORDERS || Date.now() >= deadline) {
        stop = true;
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
      made += 1;
      if (index % SAMPLE === 0)
        samples.push({
          orderId,
          key,
          reference: `ib-${w}-${n}`,
          createdAt,
          confirmedAt: Date.now(),
          seen: null,
          ended: null,
        });
    }
  };
  // The lag: each sampled order as its client's own list shows it (GET /orders, read from the shards),
  // polled every 100 ms while the fill runs and after it. The polls' shard reads are counted apart.
  let polling = true;
  const ENDED = new Set(["successful", "partial", "failed", "rejected"]);
  const poller = (async () => {
    while (polling || samples.some((s) => s.ended === null)) {
      const open = samples.filter((s) => s.ended === null);
      for (let start = 0; start < open.length; start += 16) {
        await Promise.all(
          open.slice(start, start + 16).map(async (sample) => {
            const listed = await target.request("GET", `/orders?reference=${sample.reference}&limit=1`, {
              key: sample.key,
              parse: true,
            });
            const order = listed.json?.data?.orders?.[0];
            if (order === undefined || order.id !== sample.orderId) return;
            const now = Date.now();
            sample.seen ??= now;
            if (ENDED.has(order.state)) sample.ended = now;
          }),
        );
      }
      if (!polling && Date.now() > deadline + 120_000) break;
      await sleep(100);
    }
  })();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const fillSeconds = (Date.now() - startedAt) / 1000;
  polling = false;
  await poller;
  // Every order's row: written to its books by its `index` timer 2 s after its last change (D1's order
  // index is no longer written); the poller above saw the sampled orders end in their client's list.
  await sleep(5_000);
  const after = await cost(target);

  const lagOf = (field, from) =>
    samples
      .filter((s) => s[field] !== null)
      .map((s) => s[field] - s[from])
      .sort((a, b) => a - b);
  const seenLag = lagOf("seen", "createdAt");
  const endLag = lagOf("ended", "confirmedAt");
  const costs = booksCosts(before, after, made);
  const shard = (
    await target.request("GET", `/__bench/shard?orders=${SHARD_ORDERS}&concurrency=${SHARD_CONCURRENCY}`, {
      parse: true,
    })
  ).json;

  const idle = await idleRepair(target);
  const more = await addClients(db, WALLETS, MORE_IDLE_WALLETS);
  await fund(target, more);
  const idleMore = await idleRepair(target);

  const hooked =
    RECONCILIATION_HOOK === null
      ? null
      : await RECONCILIATION_HOOK({ target, db, adminToken: ADMIN_TOKEN, cost: () => cost(target) });

  const ms = (values, p) => (values.length === 0 ? "n/a" : `${percentile(values, p).toFixed(0)} ms`);
  const line = (name, value) => `\n  ${name.padEnd(31)} ${value}`;
  console.log(`
the client's books at scale (${new Date().toISOString()}, ${os.cpus().length} CPUs, concurrency ${CONCURRENCY})
  wallets                         ${WALLETS} (+${MORE_IDLE_WALLETS} idle for the second repair pass)
  orders made                     ${made}${made < ORDERS ? ` of ${ORDERS} asked: the ${MINUTES} min the fill may take ran out` : ""} in ${fillSeconds.toFixed(0)} s
  measured:${line("lag, create → listed", `p50 ${ms(seenLag, 50)}, p99 ${ms(seenLag, 99)} (${seenLag.length} sampled, GET /orders)`)}${line(
    "lag, confirm → listed ended",
    `p50 ${ms(endLag, 50)}, p99 ${ms(endLag, 99)}`,
  )}${Object.entries(costs.measured)
    .map(([name, value]) => line(name, value))
    .join("")}${line(
    "one shard's orders/s",
    `${shard.perSecond.toFixed(0)} (${shard.orders} rows written straight to one shard, ${shard.concurrency} at a time, ${(shard.ms / 1000).toFixed(1)} s)`,
  )}
  arithmetic (prices of bench/prices/, the counts above):${Object.entries(costs.priced)
    .map(([name, value]) => line(name, value))
    .join("")}
  projection to 1,000,000 wallets and 100 million orders a day (arithmetic):${Object.entries(
    projection(costs, shard.perSecond),
  )
    .map(([name, value]) => line(name, value))
    .join("")}
  idle repair pass                ${idle.ms.toFixed(1)} ms, ${idle.rowsRead} D1 rows read, ${idle.orders} orders asked (${WALLETS} wallets)
  idle repair pass                ${idleMore.ms.toFixed(1)} ms, ${idleMore.rowsRead} D1 rows read, ${idleMore.orders} orders asked (${WALLETS + MORE_IDLE_WALLETS} wallets)${
    hooked === null
      ? "\n  reconciliation run              (not measured here yet: RECONCILIATION_HOOK)"
      : Object.entries(hooked)
          .map(([name, value]) => line(name, value))
          .join("")
  }`);
  target.close();
}

async function cleanup() {
  if (instance !== null) await instance.mf.dispose().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}

await runWithCleanup(main, cleanup);
