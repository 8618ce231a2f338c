// `npm run bench:compare -- REV [REV …]`: CPU per order flow of two or more revisions of the service, in one
// sitting, on this harness. Each revision is exported into a temporary directory (scripts/revision-tree.mjs:
// node_modules and the built docs renderer shared with this tree), bundled with local rate limiters (as `limit()` runs on
// Cloudflare) and reached directly (not through Miniflare's asset router, see bench/lib/workers.mjs), seeded from its own schema, warmed up, and driven with create → confirm → get flows in
// turns (A B …, then … B A in the next round, so that other load on the machine falls on all alike), ROUNDS
// times at each concurrency. Each turn's CPU is counted until the orders it opened have been evicted
// (bench/lib/load.mjs drainEvicted): workerd closes an idle object's database seconds later, and counted
// only until quiet that work fell into whichever turn ran then, which made rounds differ by up to 20 %.
// Prints workerd CPU ms per flow per round and the mean, and each revision against the first.
// Settings: COMPARE_ROUNDS=3, COMPARE_SECONDS=6 (per round and revision), COMPARE_CONCURRENCY=16,64.
// This is how a change is judged "within N % of before"; `npm run bench` is the full report.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flowPhase, single } from "./lib/flows.mjs";
import { Target, settledOpenFiles } from "./lib/load.mjs";
import { seedProject } from "./lib/seed.mjs";
import { runWithCleanup } from "./lib/lifecycle.mjs";
import { ROOT, build, start, writeLocalLimiterEntry } from "./lib/workers.mjs";
import { exportRevision } from "../scripts/revision-tree.mjs";

const revisions = process.argv.slice(2);
if (revisions.length < 2) {
  console.error("usage: npm run bench:compare -- REV REV [REV …]   (e.g. HEAD~3 HEAD)");
  process.exit(2);
}
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 3);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 6);
const CONCURRENCY = (process.env.COMPARE_CONCURRENCY ?? "16,64").split(",").map(Number);
const ADMIN_TOKEN = "bench-admin-token-0123456789";
process.env.ADMIN_TOKEN ??= ADMIN_TOKEN;
process.env.UPSTREAM_API_KEY ??= "bench-upstream-key";
process.env.WRANGLER_LOG ??= "error";

const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
const tmp = mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "order-compare-"));
const running = [];

async function main() {
  const targets = [];
  for (const [index, revision] of revisions.entries()) {
    const commit = git("rev-parse", "--short", revision);
    const tree = exportRevision(ROOT, commit, path.join(tmp, `tree-${index}`));
    const configPath = path.join(tree, "wrangler.toml");
    const bundle = await build({
      configPath,
      outdir: path.join(tmp, `build-${index}`),
      entry: writeLocalLimiterEntry({ configPath, file: path.join(tmp, `entry-${index}.js`), limit: 1_000_000_000 }),
    });
    const instance = await start({
      name: `rev-${index}`,
      configPath,
      bundle,
      persistDir: path.join(tmp, `state-${index}`),
      bindings: {
        ADMIN_TOKEN,
        UPSTREAM_API_KEY: "bench-upstream-key",
        SERVICE_MODE: "sandbox",
        UPSTREAM_SANDBOX: "true",
      },
    });
    running.push(instance);
    const target = new Target(`${revision} (${commit})`, instance.url, instance.pid);
    await seedProject(instance, target, {
      adminToken: ADMIN_TOKEN,
      clients: 1,
      skus: 0,
      topUp: 1_000_000_000,
      root: tree,
    });
    targets.push(target);
    console.log(`${target.name}: built and seeded`);
  }
  const runId = `cmp${Date.now().toString(36)}`;
  const flow = (target, label, concurrency, seconds, maxFlows, evictedTo) =>
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
  for (const target of targets) await flow(target, "warmup", 4, 30, 300);
  // What each process holds open with no order open: the warm-up's orders evicted.
  const baseline = await Promise.all(targets.map((target) => settledOpenFiles(target.pid)));
  for (const concurrency of CONCURRENCY) {
    const perRound = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
      for (const index of order) {
        const phase = single(
          await flow(targets[index], `c${concurrency}-${round}`, concurrency, SECONDS, Infinity, baseline[index]),
        );
        perRound[index].push(phase.cpuMsPerUnit);
      }
    }
    const means = perRound.map((values) => values.reduce((a, b) => a + b, 0) / values.length);
    console.log(
      `\nconcurrency ${concurrency}: workerd CPU ms per flow, objects' eviction included (${ROUNDS} rounds of ${SECONDS} s each)`,
    );
    targets.forEach((target, index) => {
      const change =
        index === 0
          ? ""
          : `, ${means[index] >= means[0] ? "+" : ""}${(((means[index] - means[0]) / means[0]) * 100).toFixed(1)} % against ${revisions[0]}`;
      console.log(
        `  ${target.name}: ${perRound[index].map((v) => v.toFixed(3)).join(" / ")}, mean ${means[index].toFixed(3)}${change}`,
      );
    });
  }
  for (const target of targets) target.close();
}

async function cleanup() {
  for (const instance of running.splice(0)) await instance.mf.dispose().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}

await runWithCleanup(main, cleanup);
