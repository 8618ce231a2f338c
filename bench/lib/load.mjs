// Closed-loop load over keep-alive HTTP/1.1 to 127.0.0.1, and workerd CPU read from /proc.
import http from "node:http";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch {
  // Linux default
}

/** Every process below `pid` (Linux /proc/<pid>/task/<tid>/children). */
export function descendants(pid = process.pid) {
  const out = [];
  const walk = (parent) => {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let children = "";
      try {
        children = readFileSync(`/proc/${parent}/task/${tid}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

export function workerdPids() {
  return descendants().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
    } catch {
      return false;
    }
  });
}

/** utime + stime of a process (all its threads), in ms. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); utime is field 14, stime field 15
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** Busy CPU time of the whole machine (all processes), in ms, from /proc/stat. */
export function machineBusyMs() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
  return (busy * 1000) / clockTicks;
}

/** CPU of this process and every workerd it started, in ms. */
export function ownCpuMs() {
  const self = process.cpuUsage();
  let total = (self.user + self.system) / 1000;
  for (const pid of workerdPids()) {
    try {
      total += cpuMs(pid);
    } catch {
      // exited
    }
  }
  return total;
}

/** Waits until the process stops spending CPU (alarms, queues and other work a phase left behind). */
export async function drain(pid, { quietMs = 300, maxMs = 3000 } = {}) {
  const start = performance.now();
  let last = cpuMs(pid);
  let quietSince = performance.now();
  while (performance.now() - start < maxMs) {
    await sleep(100);
    const now = cpuMs(pid);
    if (now - last > 1000 / clockTicks) quietSince = performance.now();
    last = now;
    if (performance.now() - quietSince >= quietMs) break;
  }
  return last;
}

/** Open file descriptors of a process: workerd holds a few for each Durable Object it has open (its SQLite files). */
export function openFiles(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * Waits until the Durable Objects a phase opened have been evicted, then until the process is quiet, and
 * returns its CPU. workerd evicts an object some seconds after its last event and closes its database
 * then, work that belongs to the phase that opened it but would otherwise land in whatever phase runs
 * at that moment. Done when the open files are back within a few of `baseline` (the count with no order
 * open), or after `maxMs`.
 */
export async function drainEvicted(pid, baseline, { maxMs = 30_000 } = {}) {
  const start = performance.now();
  while (performance.now() - start < maxMs && openFiles(pid) > baseline + 5) await sleep(250);
  return drain(pid, { quietMs: 500 });
}

/** The open files of a process once they stop falling (objects of earlier phases evicted): a baseline for drainEvicted. */
export async function settledOpenFiles(pid, { stableMs = 3_000, maxMs = 30_000 } = {}) {
  const start = performance.now();
  let count = openFiles(pid);
  let stableSince = performance.now();
  while (performance.now() - start < maxMs && performance.now() - stableSince < stableMs) {
    await sleep(250);
    const now = openFiles(pid);
    if (now < count) stableSince = performance.now();
    count = Math.min(count, now);
  }
  return count;
}

export class Target {
  constructor(name, url, pid) {
    this.name = name;
    this.url = new URL(url);
    this.pid = pid;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  }

  /** One request; the body is read fully, parsed only when `parse` is set. */
  request(method, path, { key, body, parse = false, headers = {} } = {}) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const h = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (payload) {
      h["content-type"] = "application/json";
      h["content-length"] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: this.url.hostname, port: this.url.port, path, method, headers: h, agent: this.agent },
        (res) => {
          const chunks = [];
          res.on("data", (chunk) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json = null;
            if (parse || res.statusCode >= 400) {
              try {
                json = JSON.parse(text);
              } catch {
                json = { raw: text.slice(0, 300) };
              }
            }
            resolve({ status: res.statusCode, json, headers: res.headers });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  close() {
    this.agent.destroy();
  }
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarise(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null;
  const r = (x) => (x === null ? null : Math.round(x * 1000) / 1000);
  return {
    count: sorted.length,
    p50: r(percentile(sorted, 50)),
    p99: r(percentile(sorted, 99)),
    mean: r(mean),
    max: r(sorted.at(-1) ?? null),
  };
}

/**
 * Runs `concurrency` workers in a closed loop for `seconds` (or until `maxIterations`), each calling
 * `iteration(worker, index, record)`; returns counts, latencies, workerd CPU and client CPU.
 */
export async function closedLoop(target, { concurrency, seconds, maxIterations = Infinity, evictedTo }, iteration) {
  const latencies = {};
  const errors = {};
  const errorSamples = [];
  const requests = {};
  let iterations = 0;
  let completed = 0;
  let started = 0;
  const record = (endpoint, ms, response) => {
    (latencies[endpoint] ??= []).push(ms);
    requests[endpoint] = (requests[endpoint] ?? 0) + 1;
    if (response && response.status >= 300) {
      errors[endpoint] = (errors[endpoint] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push({ endpoint, status: response.status, body: response.json });
      return false;
    }
    return true;
  };
  const cpu0 = cpuMs(target.pid);
  const client0 = process.cpuUsage();
  const machine0 = machineBusyMs();
  const own0 = ownCpuMs();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      let index = 0;
      while (performance.now() < deadline && started < maxIterations) {
        started += 1;
        iterations += 1;
        const ok = await iteration(worker, index++, record);
        if (ok === false) continue;
        if (ok === null) break; // the worker has nothing more to do
        completed += 1;
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const cpuInPhase = cpuMs(target.pid) - cpu0;
  const clientCpu = process.cpuUsage(client0);
  // CPU that neither the bench nor its workerd processes spent: other work on the machine during the phase
  const otherCpuMs = Math.max(0, machineBusyMs() - machine0 - (ownCpuMs() - own0));
  // `evictedTo`: count the phase's CPU until its objects are evicted (see drainEvicted), not only until it is quiet.
  const cpuAfterDrain =
    (evictedTo === undefined ? await drain(target.pid) : await drainEvicted(target.pid, evictedTo)) - cpu0;
  return {
    target: target.name,
    concurrency,
    elapsedMs: Math.round(elapsedMs),
    iterations,
    completed,
    requests,
    errors,
    errorSamples,
    latencies,
    workerdCpuMs: { inPhase: Math.round(cpuInPhase), withDrain: Math.round(cpuAfterDrain) },
    clientCpuMs: Math.round((clientCpu.user + clientCpu.system) / 1000),
    otherCpuMs: Math.round(otherCpuMs),
  };
}
