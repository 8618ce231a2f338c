// `npm run bench`: the order service on workerd against a floor Worker, side by side, with the cost of an
// order counted. See docs/benchmarks.md. Settings (environment variables):
//   BENCH_SECONDS=4          seconds per flow phase (each concurrency, each target; each of its two slices
//                            is then counted until its orders are evicted, ≈ 10 s more)
//   BENCH_CONCURRENCY=1,4,16,64
//   BENCH_ENDPOINT_SECONDS=3 seconds per single-endpoint phase; BENCH_ENDPOINT_CONCURRENCY=16
//   BENCH_PROFILE=1          CPU profile of the service (V8 inspector) after the timed phases; 0 to skip
//   BENCH_PROFILE_CONCURRENCY=16  the concurrency of the profiled flows
//   BENCH_SCALE=1            extra service phases: many clients, five SKUs per order; 0 to skip
//   BENCH_KEEP=1             keep the temporary directory (bundles, D1 and Durable Object state)
import { execFileSync } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { endpointPhase, flowPhase, interleaved, single } from "./lib/flows.mjs";
import { measureCosts } from "./lib/costs.mjs";
import { Target, settledOpenFiles } from "./lib/load.mjs";
import { profilePhase } from "./lib/profile.mjs";
import { printReport, renderMarkdown, renderSvg, verdicts } from "./lib/report.mjs";
import { UPSTREAM_URL, WEBHOOK_URL, answerOutbound, seedProject, seedSupplierKinds } from "./lib/seed.mjs";
import { PRICE_FILE, priceOfOrders, readPrices } from "./lib/pricing.mjs";
import { runWithCleanup } from "./lib/lifecycle.mjs";
import { ROOT, build, freePort, start, writeInstrumentedEntry, writeLocalLimiterEntry } from "./lib/workers.mjs";

// Wrangler reads these while it builds and resolves the config; the bench passes its own values as bindings.
process.env.ADMIN_TOKEN ??= "bench-admin-token-0123456789";
process.env.UPSTREAM_API_KEY ??= "bench-upstream-key";
process.env.WRANGLER_LOG ??= "error";

const settings = {
  flowSeconds: Number(process.env.BENCH_SECONDS ?? 4),
  concurrency: (process.env.BENCH_CONCURRENCY ?? "1,4,16,64")
    .split(",")
    .map(Number)
    .filter((n) => n > 0),
  endpointSeconds: Number(process.env.BENCH_ENDPOINT_SECONDS ?? 3),
  endpointConcurrency: Number(process.env.BENCH_ENDPOINT_CONCURRENCY ?? 16),
  warmupFlows: 300,
  metricsFlows: 8,
  costFlows: 6, // orders per supplier kind and webhook choice in the priced metrics pass
  profile: process.env.BENCH_PROFILE !== "0",
  profileConcurrency: Number(process.env.BENCH_PROFILE_CONCURRENCY ?? 16),
  scale: process.env.BENCH_SCALE !== "0",
  scaleClients: 16,
  scaleSkus: 5,
  rateLimitsRaisedTo: 1_000_000_000,
};

const ADMIN_TOKEN = "bench-admin-token-0123456789"; // ≥ 16 characters, as the operator API requires
const PROJECT_CONFIG = path.join(ROOT, "wrangler.toml");
const FLOOR_CONFIG = path.join(ROOT, "bench", "floor", "wrangler.toml");
const RESULTS = path.join(ROOT, "bench", "results");
const SKU = "DEMO-US-RANGE";

const runStarted = Date.now();
const runId = `bench${runStarted.toString(36)}`;
// State on tmpfs when there is one: the bench measures the code, not this machine's disk (fsyncs of
// thousands of new Durable Object databases); BENCH_TMPDIR chooses another place.
const tmpBase = process.env.BENCH_TMPDIR ?? (isWritableDir("/dev/shm") ? "/dev/shm" : os.tmpdir());
const tmp = mkdtempSync(path.join(tmpBase, "order-bench-"));
const log = (message) => console.log(`[${((Date.now() - runStarted) / 1000).toFixed(1).padStart(5)}s] ${message}`);
const instances = [];

function isWritableDir(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function gitInfo() {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", "src", "wrangler.toml", "schema"], {
        cwd: ROOT,
        encoding: "utf8",
      }).trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

async function main() {
  log(`temporary state in ${tmp}`);
  mkdirSync(RESULTS, { recursive: true });
  log("building the service and the floor (wrangler deploy --dry-run), plain and instrumented");
  const [projectBundle, localBundle, floorBundle, projectMetricsBundle, floorMetricsBundle] = await Promise.all([
    build({ configPath: PROJECT_CONFIG, outdir: path.join(tmp, "build", "project") }),
    build({
      configPath: PROJECT_CONFIG,
      outdir: path.join(tmp, "build", "project-local"),
      entry: writeLocalLimiterEntry({
        configPath: PROJECT_CONFIG,
        file: path.join(tmp, "project-local-entry.js"),
        limit: settings.rateLimitsRaisedTo,
      }),
    }),
    build({ configPath: FLOOR_CONFIG, outdir: path.join(tmp, "build", "floor") }),
    build({
      configPath: PROJECT_CONFIG,
      outdir: path.join(tmp, "build", "project-metrics"),
      entry: writeInstrumentedEntry({ configPath: PROJECT_CONFIG, file: path.join(tmp, "project-metrics-entry.js") }),
    }),
    build({
      configPath: FLOOR_CONFIG,
      outdir: path.join(tmp, "build", "floor-metrics"),
      entry: writeInstrumentedEntry({ configPath: FLOOR_CONFIG, file: path.join(tmp, "floor-metrics-entry.js") }),
    }),
  ]);

  // Sandbox mode, as npm start runs: the flows use the demo's sk_test_ key.
  const projectBindings = {
    ADMIN_TOKEN,
    UPSTREAM_API_KEY: "bench-upstream-key",
    SERVICE_MODE: "sandbox",
    UPSTREAM_SANDBOX: "true",
    // The create phase makes orders that the confirm phase confirms later, all of one client in one
    // wallet: under the deployed bound of open orders (100) every create past the 100th would be a
    // refusal, and the phase would time refusals instead of creates. The bound is checked all the same.
    MAX_OPEN_ORDERS: "1000000",
  };
  log(
    "starting workerd: the service as Miniflare simulates it (rate-limit simulator, asset router in front), the service as on Cloudflare (local limiters, reached directly), and the floor",
  );
  const project = await start({
    name: "order-service",
    configPath: PROJECT_CONFIG,
    bundle: projectBundle,
    persistDir: path.join(tmp, "state", "project"),
    bindings: projectBindings,
    assetRouter: true,
  });
  instances.push(project);
  const local = await start({
    name: "order-service-local",
    configPath: PROJECT_CONFIG,
    bundle: localBundle,
    persistDir: path.join(tmp, "state", "project-local"),
    bindings: projectBindings,
  });
  instances.push(local);
  const floor = await start({
    name: "order-floor",
    configPath: FLOOR_CONFIG,
    bundle: floorBundle,
    persistDir: path.join(tmp, "state", "floor"),
  });
  instances.push(floor);
  const P = new Target("project", project.url, project.pid);
  const L = new Target("local", local.url, local.pid);
  const F = new Target("floor", floor.url, floor.pid);

  log("seeding D1 (migrations, demo seed, bench clients and SKUs) and funding wallets through the operator API");
  const seeded = await seedProject(project, P, {
    adminToken: ADMIN_TOKEN,
    clients: settings.scaleClients,
    skus: settings.scaleSkus,
    topUp: 1_000_000_000,
  });
  await seedProject(local, L, { adminToken: ADMIN_TOKEN, clients: 1, skus: 0, topUp: 1_000_000_000 });
  const demoKey = [seeded.keys[0]];

  log(`warming up (${settings.warmupFlows} flows each at concurrency 4)`);
  for (const target of [P, L, F]) {
    const warm = single(
      await flowPhase(target, {
        runId,
        label: "warmup",
        concurrency: 4,
        seconds: 30,
        keys: demoKey,
        skus: [SKU],
        maxFlows: settings.warmupFlows,
      }),
    );
    if (warm.completed === 0)
      throw new Error(`${target.name}: no flow completed during warm-up: ${JSON.stringify(warm.errorSamples)}`);
  }

  // What each process holds open with no order open (the warm-up's orders evicted): each flow slice is then
  // counted until the orders it opened are evicted too, as bench:compare counts (bench/lib/load.mjs
  // drainEvicted). workerd closes an idle object's database seconds after its last event; counted only
  // until quiet, that work fell into a later slice of the same process, or (while another target ran)
  // into no count at all, and the ratios moved by up to 15 % from run to run (docs/performance-notes.md).
  const baseline = Object.fromEntries(
    await Promise.all([P, L, F].map(async (target) => [target.name, await settledOpenFiles(target.pid)])),
  );

  const phases = [];
  const runPhase = (phase) => {
    phases.push(phase);
    const errors = Object.values(phase.errors).reduce((a, b) => a + b, 0);
    const lat = phase.latency[phase.endpoint ?? "flow"];
    log(
      `${phase.target.padEnd(7)} ${(phase.endpoint ?? phase.kind).padEnd(7)} c=${String(phase.concurrency).padEnd(3)} clients=${phase.clients} skus=${phase.skusPerOrder}: ` +
        `${phase.throughput} ${phase.unit}/s, p50 ${lat?.p50} ms, p99 ${lat?.p99} ms, workerd ${phase.cpuMsPerUnit} ms CPU/${phase.unit}` +
        `, other load ${phase.otherLoadCores} cores` +
        (errors ? `, ${errors} errors ${JSON.stringify(phase.errorSamples[0])}` : ""),
    );
  };

  const record = (list) => list.forEach((phase) => runPhase(phase));
  for (const concurrency of settings.concurrency) {
    record(
      await interleaved([P, L, F], settings.flowSeconds, (target, seconds, slice) =>
        flowPhase(target, {
          runId,
          label: `flow-c${concurrency}-${slice}`,
          concurrency,
          seconds,
          keys: demoKey,
          skus: [SKU],
          evictedTo: baseline[target.name],
        }),
      ),
    );
  }

  const orders = {
    project: { created: [], confirmed: [] },
    local: { created: [], confirmed: [] },
    floor: { created: [], confirmed: [] },
  };
  for (const endpoint of ["create", "confirm", "get"]) {
    record(
      await interleaved([P, L, F], settings.endpointSeconds, (target, seconds, slice) =>
        endpointPhase(target, {
          runId,
          label: `ep-${endpoint}-${slice}`,
          endpoint,
          concurrency: settings.endpointConcurrency,
          seconds,
          key: demoKey[0],
          skus: [SKU],
          orders: orders[target.name],
        }),
      ),
    );
  }

  if (settings.scale) {
    const c = 16;
    record([
      single(
        await flowPhase(P, {
          runId,
          label: "scale-clients",
          concurrency: c,
          seconds: settings.flowSeconds,
          keys: seeded.keys.slice(0, settings.scaleClients),
          skus: [SKU],
        }),
      ),
    ]);
    record([
      single(
        await flowPhase(P, {
          runId,
          label: "scale-skus",
          concurrency: c,
          seconds: settings.flowSeconds,
          keys: demoKey,
          skus: [SKU, ...seeded.extraSkus.slice(0, settings.scaleSkus - 1)],
        }),
      ),
    ]);
  }

  const outbound = { project: project.outbound, local: local.outbound, floor: floor.outbound };
  P.close();
  L.close();
  F.close();
  await project.mf.dispose();
  await local.mf.dispose();
  await floor.mf.dispose();
  instances.length = 0;

  let profile = null;
  if (settings.profile) {
    // The service is profiled with local limiters, as limit() runs on Cloudflare: the simulator's own
    // Durable Object would otherwise fill the profile with work that is not the service's.
    log(
      `profiling the service (local limiters) and the floor (V8 sampling profiler over the inspector, flows at concurrency ${settings.profileConcurrency})`,
    );
    profile = {};
    for (const [name, configPath, bundle, bindings, seed] of [
      ["project", PROJECT_CONFIG, localBundle, projectBindings, true],
      ["floor", FLOOR_CONFIG, floorBundle, {}, false],
    ]) {
      const port = await freePort();
      const instance = await start({
        name: `${name}-profiled`,
        configPath,
        bundle,
        persistDir: path.join(tmp, "state", `${name}-profile`),
        bindings,
        inspectorPort: port,
      });
      instances.push(instance);
      const target = new Target(name, instance.url, instance.pid);
      if (seed)
        await seedProject(instance, target, { adminToken: ADMIN_TOKEN, clients: 1, skus: 0, topUp: 1_000_000_000 });
      await flowPhase(target, {
        runId,
        label: "profile-warmup",
        concurrency: 4,
        seconds: 30,
        keys: demoKey,
        skus: [SKU],
        maxFlows: settings.warmupFlows,
      });
      profile[name] = await profilePhase(
        instance,
        bundle,
        async () =>
          single(
            await flowPhase(target, {
              runId,
              label: "profile",
              concurrency: settings.profileConcurrency,
              seconds: 3,
              keys: demoKey,
              skus: [SKU],
            }),
          ),
        {
          workerName: `${name}-profiled`,
          saveTo: path.join(RESULTS, `${name}.cpuprofile.tmp`),
        },
      );
      profile[name].concurrency = settings.profileConcurrency;
      target.close();
      await instance.mf.dispose();
      instances.pop();
    }
  }

  log("metrics pass: instrumented builds, one order at a time, counters read around each request");
  const costs = {};
  const byKind = {};
  for (const [name, configPath, bundle, bindings, seed] of [
    ["project", PROJECT_CONFIG, projectMetricsBundle, projectBindings, true],
    ["floor", FLOOR_CONFIG, floorMetricsBundle, {}, false],
  ]) {
    const metricsBindings = seed
      ? { ...bindings, UPSTREAM_BASE_URL: UPSTREAM_URL, ALLOW_INSECURE_WEBHOOKS: "true" }
      : bindings;
    const instance = await start({
      name: `${name}-metrics`,
      configPath,
      bundle,
      persistDir: path.join(tmp, "state", `${name}-metrics`),
      bindings: metricsBindings,
      answer: answerOutbound,
    });
    instances.push(instance);
    const target = new Target(name, instance.url, instance.pid);
    if (seed)
      await seedProject(instance, target, {
        adminToken: ADMIN_TOKEN,
        clients: 1,
        skus: settings.scaleSkus,
        topUp: 1_000_000_000,
      });
    // The service's order writes its row to the order index from its alarm (the `index` timer); the floor
    // has no index and no alarm, and its metrics wait for none.
    const indexedBy = name === "project" ? "OrderObject" : null;
    costs[name] = await measureCosts(target, {
      runId,
      key: demoKey[0],
      skus: [SKU],
      flows: settings.metricsFlows,
      label: "metrics",
      indexedBy,
    });
    if (name === "project" && settings.scale) {
      costs[`${name}-${settings.scaleSkus}skus`] = await measureCosts(target, {
        runId,
        key: demoKey[0],
        skus: [SKU, ...seeded.extraSkus].slice(0, settings.scaleSkus),
        flows: 3,
        label: "metrics-skus",
        indexedBy,
      });
    }
    if (name === "project") {
      // What an order costs by supplier kind, without and with a webhook (two events, each one delivery).
      const kinds = await seedSupplierKinds(target, { adminToken: ADMIN_TOKEN, codes: 2 * (settings.costFlows + 1) });
      for (const [kind, list] of Object.entries(kinds)) {
        for (const webhook of [false, true]) {
          const label = `cost-${kind}${webhook ? "-webhook" : ""}`;
          byKind[label] = {
            kind,
            webhook,
            ...(await measureCosts(target, {
              runId,
              key: demoKey[0],
              list,
              webhookUrl: webhook ? WEBHOOK_URL : undefined,
              flows: settings.costFlows,
              label,
              indexedBy,
            })),
          };
        }
      }
    }
    target.close();
    await instance.mf.dispose();
    instances.pop();
  }

  // The price of an order: the counters above with the Worker CPU per flow of the timed phase (local
  // limiters, as on Cloudflare, concurrency 16; measured for the sandbox SKU, used for every kind).
  const prices = readPrices();
  const cpuPhase =
    phases.find(
      (p) =>
        p.kind === "flow" && p.target === "local" && p.concurrency === 16 && p.clients === 1 && p.skusPerOrder === 1,
    ) ?? phases.find((p) => p.kind === "flow" && p.target === "local");
  const cpuMsPerOrder = cpuPhase?.cpuMsPerUnit ?? null;
  const orderPrices = {
    priceFile: PRICE_FILE,
    asOf: prices.asOf,
    cpuMsPerOrder,
    rows: Object.entries(byKind).map(([label, m]) => ({
      label,
      kind: m.kind,
      webhook: m.webhook,
      flows: m.flows,
      stateSeenByGet: m.stateSeenByGet,
      ...priceOfOrders(m.warm.order.summary, cpuMsPerOrder ?? 0, prices),
    })),
  };

  const result = {
    generatedAt: new Date(runStarted).toISOString(),
    command: "npm run bench",
    durationSeconds: Math.round((Date.now() - runStarted) / 100) / 10,
    git: gitInfo(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      node: process.version,
      workerd: readVersion("workerd"),
      wrangler: readVersion("wrangler"),
      miniflare: readVersion("miniflare"),
    },
    settings,
    stateDir: tmpBase,
    phases,
    costs,
    // Per supplier kind, with and without a webhook: the counters per part of the flow behind orderPrices.
    costsByKind: byKind,
    orderPrices,
    profile,
    outbound,
  };
  result.verdicts = verdicts(result);
  mkdirSync(RESULTS, { recursive: true });
  const json = JSON.stringify(result, null, 2) + "\n";
  writeFileSync(path.join(RESULTS, "latest.json"), json);
  writeFileSync(path.join(RESULTS, `${result.generatedAt.replace(/[:.]/g, "-")}.json`), json);
  writeFileSync(path.join(RESULTS, "latest.svg"), renderSvg(result));
  writeFileSync(path.join(RESULTS, "latest.md"), renderMarkdown(result));
  printReport(result);
  log(
    `wrote bench/results/latest.json (+ a timestamped copy), latest.svg and latest.md (${result.durationSeconds} s in all)`,
  );
}

function readVersion(pkg) {
  try {
    return JSON.parse(readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

async function cleanup() {
  for (const instance of instances.splice(0)) await instance.mf.dispose().catch(() => {});
  if (process.env.BENCH_KEEP !== "1") rmSync(tmp, { recursive: true, force: true });
}

await runWithCleanup(main, cleanup);
