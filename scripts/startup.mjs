#!/usr/bin/env node
/**
 * `npm run startup [-- REV …]`: the Worker's start-up CPU as `wrangler check startup` reports it ("Active":
 * the CPU sampled in workerd while the bundle's modules are evaluated), STARTUP_RUNS times (default 7),
 * with every run and the median. The profiler samples about once a millisecond and other load on the
 * machine shows in it, so one run says little: compare medians.
 *
 * Without a revision it measures this tree. With revisions (`npm run startup -- main HEAD`) each is
 * exported into a temporary directory (scripts/revision-tree.mjs) and they are measured alternately, A B B A …, so that other load falls on all alike.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportRevision } from "./revision-tree.mjs";
import { root } from "./source-facts.mjs";

const RUNS = Number(process.env.STARTUP_RUNS ?? 7);
const revisions = process.argv.slice(2);
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const tmp = mkdtempSync(join(tmpdir(), "order-startup-"));

/** One `wrangler check startup` in `dir`: its Active milliseconds. */
function measure(dir) {
  const run = spawnSync(process.execPath, [wrangler, "check", "startup", "--outfile", join(tmp, "startup.cpuprofile")], {
    cwd: dir,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    encoding: "utf8",
  });
  const active = /Active: ([\d.]+) ms/.exec(run.stdout + run.stderr);
  if (run.status !== 0 || active === null) throw new Error(`wrangler check startup failed in ${dir}:\n${run.stdout}${run.stderr}`);
  return Number(active[1]);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

try {
  const targets = revisions.length === 0
    ? [{ name: "this tree", dir: root }]
    : revisions.map((revision, index) => ({ name: `${revision} (${execFileSync("git", ["rev-parse", "--short", revision], { cwd: root, encoding: "utf8" }).trim()})`, dir: exportRevision(root, revision, join(tmp, `rev-${index}`)) }));
  const runs = targets.map(() => []);
  for (let round = 0; round < RUNS; round += 1) {
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const index of order) runs[index].push(measure(targets[index].dir));
    process.stderr.write(".");
  }
  process.stderr.write("\n");
  console.log(`wrangler check startup, Active ms, ${RUNS} runs each${targets.length > 1 ? ", alternately" : ""}:`);
  for (const [index, target] of targets.entries()) {
    console.log(`  ${target.name}: median ${median(runs[index]).toFixed(1)} (${runs[index].map((ms) => ms.toFixed(1)).join(", ")})`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
