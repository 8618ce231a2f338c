#!/usr/bin/env node
/**
 * `npm run startup [-- REV …]`: the Worker's start-up CPU as `wrangler check startup` reports it ("Active":
 * the CPU sampled in workerd while the bundle's modules are evaluated), STARTUP_RUNS times (default 7),
 * with every run and the median. The profiler samples about once a millisecond and other load on the
 * machine shows in it, so one run says little: compare medians.
 *
 * Without a revision it measures this tree. With revisions (`npm run startup -- main HEAD`) each is
 * exported into a temporary directory (scripts/revision-tree.mjs) and they are measured alternately, A B B A …, so that other load falls on all alike.
 *
 * "Active" is not the Worker's own work alone: it adds up the sampling intervals of the non-idle samples,
 * and the first one carries the time the sampler took to start (≈ 8 ms here). So a calibration Worker is
 * measured in the same turns: its top level only runs a loop of CALIBRATION_ITERATIONS (≈ 0.5 ms), and
 * each target's median is also shown less the calibration's, which is the start-up work that is the
 * Worker's own (to within that half millisecond). Measured this way, Workers whose top level runs a
 * loop for 0.45, 4.5, 14 and 45 ms read 8.2, 13, 22 and 53 ms Active.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportRevision } from "./revision-tree.mjs";
import { root } from "./source-facts.mjs";

const RUNS = Number(process.env.STARTUP_RUNS ?? 7);
const revisions = process.argv.slice(2);
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const tmp = mkdtempSync(join(tmpdir(), "order-startup-"));
const CALIBRATION_ITERATIONS = 100_000;

/** A Worker that does nothing at start-up but a short loop: its Active is the sampler's own share. */
function calibrationWorker(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "wrangler.toml"),
    `name = "startup-calibration"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\n`,
  );
  // performance.now() stands still while a Worker starts (workerd's timing rules), so the loop is counted.
  writeFileSync(
    join(dir, "index.js"),
    `let x = 0;\nfor (let i = 0; i < ${CALIBRATION_ITERATIONS}; i++) x = (x * 31 + i) % 1000003;\nexport default { fetch: () => new Response(String(x)) };\n`,
  );
  return dir;
}

/** One `wrangler check startup` in `dir`: its Active milliseconds. */
function measure(dir) {
  const run = spawnSync(
    process.execPath,
    [wrangler, "check", "startup", "--outfile", join(tmp, "startup.cpuprofile")],
    {
      cwd: dir,
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      encoding: "utf8",
    },
  );
  const active = /Active: ([\d.]+) ms/.exec(run.stdout + run.stderr);
  if (run.status !== 0 || active === null)
    throw new Error(`wrangler check startup failed in ${dir}:\n${run.stdout}${run.stderr}`);
  return Number(active[1]);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

try {
  const targets =
    revisions.length === 0
      ? [{ name: "this tree", dir: root }]
      : revisions.map((revision, index) => ({
          name: `${revision} (${execFileSync("git", ["rev-parse", "--short", revision], { cwd: root, encoding: "utf8" }).trim()})`,
          dir: exportRevision(root, revision, join(tmp, `rev-${index}`)),
        }));
  targets.push({
    name: "calibration (a loop of ≈ 0.5 ms, nothing else)",
    dir: calibrationWorker(join(tmp, "calibration")),
    calibration: true,
  });
  const runs = targets.map(() => []);
  for (let round = 0; round < RUNS; round += 1) {
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const index of order) runs[index].push(measure(targets[index].dir));
    process.stderr.write(".");
  }
  process.stderr.write("\n");
  const overhead = median(runs[targets.length - 1]);
  console.log(`wrangler check startup, Active ms, ${RUNS} runs each, alternately:`);
  for (const [index, target] of targets.entries()) {
    const own = target.calibration
      ? ""
      : `; own start-up work ≈ ${(median(runs[index]) - overhead).toFixed(1)} (less the calibration's median)`;
    console.log(
      `  ${target.name}: median ${median(runs[index]).toFixed(1)} (${runs[index].map((ms) => ms.toFixed(1)).join(", ")})${own}`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
