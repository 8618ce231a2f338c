// `npm run bench:native`: where workerd's CPU goes per order flow, for the service and the floor, read from
// a native profile (Linux `perf`, workerd's own symbols and frame pointers) rather than from V8's sampler.
// V8's profile (`npm run bench`) sees only JavaScript frames: the time a storage call, an RPC or an alarm
// write spends inside workerd is charged to the JavaScript line that made it, and what workerd does
// outside any JavaScript (opening and closing an object's database, garbage collection threads) is not
// in it. Here every sample is put under the innermost workerd operation its stack passes through
// (RULES), so "opening an object" and "setting up its key-value table" are told apart. SQLite's own
// functions (preparing, stepping, writing pages) are charged to the operation that called them.
//
// Each target is built with local limiters (as on Cloudflare), warmed up, then recorded for one phase of
// create → confirm → get flows, counted until the orders it opened have been evicted (their databases
// closed: see bench/lib/load.mjs drainEvicted). Needs `perf` (Debian: apt-get install linux-perf) and
// permission to profile one's own processes (kernel.perf_event_paranoid ≤ 2). Not part of npm test.
// Settings: NATIVE_CONCURRENCY=16, NATIVE_SECONDS=6.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flowPhase, single } from "./lib/flows.mjs";
import { Target, settledOpenFiles } from "./lib/load.mjs";
import { runWithCleanup } from "./lib/lifecycle.mjs";
import { seedProject } from "./lib/seed.mjs";
import { ROOT, build, start, writeLocalLimiterEntry } from "./lib/workers.mjs";

const CONCURRENCY = Number(process.env.NATIVE_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.NATIVE_SECONDS ?? 6);
const ADMIN_TOKEN = "bench-admin-token-0123456789";
process.env.ADMIN_TOKEN ??= ADMIN_TOKEN;
process.env.UPSTREAM_API_KEY ??= "bench-upstream-key";
process.env.WRANGLER_LOG ??= "error";

/**
 * What a sample is charged to: the first rule that names a frame, walking from the sampled frame towards
 * the root, so that the innermost operation wins (a statement prepared while the key-value table is set
 * up is table setup; garbage collected during an RPC is garbage collection).
 */
const RULES = [
  [
    "garbage collection",
    /Heap::CollectGarbage|ConcurrentMarking|Sweeper|Scavenge|MinorMarkSweep|MarkCompactCollector|IncrementalMarking|cppgc::internal::(Marker|MarkingState|HeapVisitor|StatsCollector)/,
  ],
  [
    "object closed (database closed at eviction)",
    /Actor::~Actor|Actor::Impl::~Impl|~ActorSqlite|~SqliteDatabase|sqlite3_close|sqlite3Close|CloseZombie|unixClose/,
  ],
  ["key-value table set up (first write)", /SqliteKv::ensureInitialized|SqliteKv::Initialized/],
  ["alarm table set up (first alarm)", /SqliteMetadata::ensureInitialized|SqliteMetadata::Initialized/],
  ["object opened (database opened)", /Worker::Actor::Impl::Impl|worker_new_actor/],
  ["alarm writes", /setAlarm|deleteAlarm|AlarmScheduler/],
  ["commits (end of an implicit transaction)", /ActorSqlite::.*[Cc]ommit/],
  ["key-value reads and writes", /SqliteKv::(put|get|delete|list)|SyncKvStorage/],
  ["SQL statements (sql.exec)", /SqlStorage::(exec|Cursor)/],
  ["blockConcurrencyWhile", /blockConcurrencyWhile/],
  [
    "RPC (stubs, calls, serialisation)",
    /JsRpc|idFromName|idFromString|DurableObjectNamespace|Serializer::|Deserializer::|capnp::/,
  ],
  [
    "HTTP (requests in, responses out)",
    /WorkerEntrypoint::request|HttpServer|HttpService|api::Request|api::Response|api::Headers|kj::Http|ReadableStream/,
  ],
  ["crypto", /SubtleCrypto|EVP_|SHA256|sha256/],
  [
    "JavaScript (code, JSON, promises)",
    /^Builtins_|\[JIT\]|JsonStringifier|JsonParser|v8::internal::Runtime_|MicrotaskQueue/,
  ],
];

function classify(scriptText) {
  const counts = new Map();
  let samples = 0;
  for (const block of scriptText.split("\n\n")) {
    const frames = block
      .split("\n")
      .slice(1)
      .map((line) => line.trim().replace(/^[0-9a-f]+\s+/, ""))
      .filter(Boolean);
    if (frames.length === 0) continue;
    samples += 1;
    let category = "other (event loop, allocation, kernel)";
    search: for (const frame of frames) {
      for (const [name, pattern] of RULES) {
        if (pattern.test(frame)) {
          category = name;
          break search;
        }
      }
    }
    counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  return { counts, samples };
}

const tmp = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "order-native-"));
const running = [];

async function profile(name, configPath, seed) {
  const entry = seed
    ? writeLocalLimiterEntry({ configPath, file: path.join(tmp, `entry-${name}.js`), limit: 1_000_000_000 })
    : undefined;
  const bundle = await build({ configPath, outdir: path.join(tmp, `build-${name}`), entry });
  const instance = await start({
    name,
    configPath,
    bundle,
    persistDir: path.join(tmp, `state-${name}`),
    bindings: seed
      ? { ADMIN_TOKEN, UPSTREAM_API_KEY: "bench-upstream-key", SERVICE_MODE: "sandbox", UPSTREAM_SANDBOX: "true" }
      : {},
  });
  running.push(instance);
  const target = new Target(name, instance.url, instance.pid);
  if (seed) await seedProject(instance, target, { adminToken: ADMIN_TOKEN, clients: 1, skus: 0, topUp: 1_000_000_000 });
  const runId = `native${Date.now().toString(36)}`;
  const flow = (label, concurrency, seconds, maxFlows, evictedTo) =>
    flowPhase(target, {
      runId,
      label,
      concurrency,
      seconds,
      keys: ["sk_test_demo"],
      skus: ["DEMO-US-RANGE"],
      maxFlows,
      evictedTo,
    });
  await flow("warmup", 4, 30, 300);
  const baseline = await settledOpenFiles(instance.pid);
  const data = path.join(tmp, `${name}.perf`);
  const recorder = spawn(
    "perf",
    ["record", "-q", "-e", "cpu-clock", "-F", "2000", "-g", "-p", String(instance.pid), "-o", data],
    { stdio: "ignore" },
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const phase = single(await flow("profiled", CONCURRENCY, SECONDS, Infinity, baseline));
  recorder.kill("SIGINT");
  await new Promise((resolve) => recorder.on("exit", resolve));
  target.close();
  await instance.mf.dispose();
  running.pop();
  const script = execFileSync("perf", ["script", "-i", data, "-F", "ip,sym"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return { flows: phase.completed, cpuMsPerFlow: phase.cpuMsPerUnit, ...classify(script) };
}

async function main() {
  try {
    execFileSync("perf", ["--version"], { stdio: "ignore" });
  } catch {
    console.error("bench:native needs Linux perf (Debian: apt-get install linux-perf).");
    process.exitCode = 2;
    return;
  }
  const service = await profile("service", path.join(ROOT, "wrangler.toml"), true);
  const floor = await profile("floor", path.join(ROOT, "bench", "floor", "wrangler.toml"), false);
  const msPerFlow = (run, category) => ((run.counts.get(category) ?? 0) / run.samples) * run.cpuMsPerFlow;
  const categories = [...new Set([...service.counts.keys(), ...floor.counts.keys()])].sort(
    (a, b) => msPerFlow(service, b) - msPerFlow(service, a),
  );
  const rows = categories.map((category) => {
    const s = msPerFlow(service, category);
    const f = msPerFlow(floor, category);
    return `| ${category} | ${s.toFixed(3)} | ${f.toFixed(3)} | ${s - f >= 0 ? "+" : ""}${(s - f).toFixed(3)} |`;
  });
  const report = [
    `Native profile (\`npm run bench:native\`, ${new Date().toISOString()}): create → confirm → get at concurrency ${CONCURRENCY}, ${SECONDS} s, local limiters, CPU counted until the orders were evicted.`,
    "",
    `Service: ${service.flows} flows, ${service.cpuMsPerFlow} ms CPU per flow, ${service.samples} samples. Floor: ${floor.flows} flows, ${floor.cpuMsPerFlow} ms, ${floor.samples} samples.`,
    "",
    "| where workerd's CPU went (innermost operation) | service ms/flow | floor ms/flow | difference |",
    "| --- | ---: | ---: | ---: |",
    ...rows,
    "",
  ].join("\n");
  console.log(report);
  writeFileSync(path.join(ROOT, "bench", "results", "native-latest.md"), report);
}

async function cleanup() {
  for (const instance of running.splice(0)) await instance.mf.dispose().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}

await runWithCleanup(main, cleanup);
