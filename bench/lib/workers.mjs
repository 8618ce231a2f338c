// Builds Workers the way `wrangler deploy` bundles them and runs them on workerd through Miniflare's API
// (no wrangler dev proxy): each instance is its own workerd process, reached over a direct socket on
// 127.0.0.1, with all state under the run's temporary directory.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Log, LogLevel, Miniflare, convertV4MiniflareOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { workerdPids } from "./load.mjs";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const WRANGLER = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/**
 * `wrangler deploy --dry-run --outdir`: the bundle that would be uploaded, except that it is not minified
 * (the profile names each line's source module from esbuild's `// path` comments; minifying changes
 * start-up parsing, not the per-request work measured here). Returns the bundle's path.
 */
export function build({ configPath, outdir, entry }) {
  mkdirSync(outdir, { recursive: true });
  const args = [
    WRANGLER,
    "deploy",
    ...(entry ? [entry] : []),
    "--config",
    configPath,
    "--dry-run",
    "--no-minify",
    "--outdir",
    outdir,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => {
      if (code !== 0)
        return reject(new Error(`build of ${entry ?? configPath} failed (exit ${code}):\n${output.slice(-4000)}`));
      const bundle = readdirSync(outdir).find((f) => f.endsWith(".js"));
      if (!bundle) return reject(new Error(`build of ${configPath} wrote no .js to ${outdir}`));
      resolve(path.join(outdir, bundle));
    });
  });
}

/**
 * Writes an entry that re-exports a Worker through bench/instrument/instrument.js: same code, every
 * binding and Durable Object class wrapped with counters (used only by the metrics pass).
 */
export function writeInstrumentedEntry({ configPath, file }) {
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(configPath);
  const classes = [
    ...new Set(
      Object.values(workerOptions.durableObjects ?? {})
        .map((d) => (typeof d === "string" ? d : d.className))
        .filter(Boolean),
    ),
  ];
  const instrument = path.join(ROOT, "bench", "instrument", "instrument.js");
  const lines = [
    `import * as worker from ${JSON.stringify(main)};`,
    `import { instrumentClass, instrumentHandler } from ${JSON.stringify(instrument)};`,
    `export default instrumentHandler(worker.default);`,
    ...classes.map((name) => `export const ${name} = instrumentClass(worker.${name}, ${JSON.stringify(name)});`),
  ];
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/**
 * Writes an entry that runs the same Worker with its rate limiters as local in-memory counters
 * (bench/local-limiter/): the "local limiter" variant, the service as it runs on Cloudflare, where limit()
 * is a counter on the machine rather than Miniflare's Durable Object with a SQLite write per call.
 */
export function writeLocalLimiterEntry({ configPath, file, limit }) {
  const { workerOptions, main } = unstable_getMiniflareWorkerOptions(configPath);
  const classes = [
    ...new Set(
      Object.values(workerOptions.durableObjects ?? {})
        .map((d) => (typeof d === "string" ? d : d.className))
        .filter(Boolean),
    ),
  ];
  const limiters = Object.fromEntries(
    Object.entries(workerOptions.ratelimits ?? {}).map(([name, rl]) => [name, { limit, period: rl.simple.period }]),
  );
  const local = path.join(ROOT, "bench", "local-limiter", "local-limiter.js");
  const lines = [
    `import * as worker from ${JSON.stringify(main)};`,
    `import { withLocalLimiters } from ${JSON.stringify(local)};`,
    `export default withLocalLimiters(worker.default, ${JSON.stringify(limiters)});`,
    ...classes.map((name) => `export const ${name} = worker.${name};`),
  ];
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/**
 * Starts a bundle on its own workerd with the bindings of its wrangler config. `bindings` are added to
 * (and override) the config's vars and .dev.vars. Outbound fetches never leave the machine: `answer` may
 * answer those to 127.0.0.1, and everything else is answered 599 by a Node handler and counted.
 * `assetRouter`: keep Miniflare's asset router in front of the Worker (see below).
 */
export async function start({
  name,
  configPath,
  bundle,
  persistDir,
  bindings = {},
  inspectorPort,
  answer,
  assetRouter = false,
}) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const before = new Set(workerdPids());
  const outbound = { blocked: 0, urls: [] };
  const { modulesRules: _ignored, assets, ...options } = workerOptions;
  // Static assets: Miniflare serves them by putting two Workers of its own in front of the service (an RPC
  // proxy and the asset router, each in its own isolate), so every request runs three Workers' JavaScript.
  // On Cloudflare a Worker with `run_worker_first = true` gets every request directly and asset routing is
  // not its CPU, so the bench reaches the service directly unless `assetRouter` asks for Miniflare's path
  // (then the ASSETS binding, used only by GET /docs, is there too).
  if (assetRouter && assets) options.assets = assets;
  // Rate limits stay in the code path (every limit() call is made and costs what it costs) but are raised
  // out of reach: the bench measures throughput, not the configured cap.
  if (options.ratelimits) {
    options.ratelimits = Object.fromEntries(
      Object.entries(options.ratelimits).map(([name, rl]) => [
        name,
        { ...rl, simple: { ...rl.simple, limit: 1_000_000_000 } },
      ]),
    );
  }
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      log: new Log(LogLevel.WARN),
      logRequests: false,
      cf: false,
      resourcePersistencePath: persistDir,
      ...(inspectorPort !== undefined ? { inspectorPort, inspectorHost: "127.0.0.1" } : {}),
      workers: [
        {
          ...options,
          name,
          modules: [{ type: "ESModule", path: bundle }],
          modulesRoot: path.dirname(bundle),
          bindings: { ...(options.bindings ?? {}), ...bindings },
          unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
          outboundService: async (request) => {
            // `answer` plays a service outside this one (the upstream supplier, a webhook receiver) in this
            // process, for URLs on 127.0.0.1 only; nothing leaves the machine.
            const answered = answer && new URL(request.url).hostname === "127.0.0.1" ? await answer(request) : null;
            if (answered) {
              outbound.answered = (outbound.answered ?? 0) + 1;
              return answered;
            }
            outbound.blocked += 1;
            if (outbound.urls.length < 5) outbound.urls.push(request.url);
            return new Response("outbound traffic is blocked during the benchmark", { status: 599 });
          },
        },
      ],
    }),
  );
  await mf.ready;
  const url = await mf.unsafeGetDirectURL(name);
  const pids = workerdPids().filter((pid) => !before.has(pid));
  if (pids.length !== 1) throw new Error(`expected one new workerd process for ${name}, found ${pids.length}`);
  return { mf, url: url.href, pid: pids[0], outbound };
}

/** A free TCP port on 127.0.0.1 (for the inspector, which needs a number up front). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
