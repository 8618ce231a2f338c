// The order flows the benchmark drives, identical for the service and the floor.
import { closedLoop, summarise } from "./load.mjs";

export function productList(skus) {
  return skus.map((sku) => ({ sku, productType: "range", quote: 10, quantity: 1 }));
}

/** create → confirm → get, closed loop. Worker w uses keys[w % keys.length]. */
export async function flowPhase(
  target,
  { runId, label, concurrency, seconds, keys, skus, maxFlows = Infinity, evictedTo },
) {
  const list = productList(skus);
  const result = await closedLoop(
    target,
    { concurrency, seconds, maxIterations: maxFlows, evictedTo },
    async (worker, index, record) => {
      const key = keys[worker % keys.length];
      const t0 = performance.now();
      const created = await target.request("POST", "/order/create", {
        key,
        body: { productList: list, wallet: "USD", reference: `${runId}-${label}-${worker}-${index}` },
        parse: true,
      });
      const t1 = performance.now();
      if (!record("create", t1 - t0, created)) return false;
      const orderId = created.json.data.id;
      const confirmed = await target.request("PUT", "/order/confirm", { key, body: { orderId } });
      const t2 = performance.now();
      if (!record("confirm", t2 - t1, confirmed)) return false;
      const got = await target.request("GET", `/order/get?orderId=${encodeURIComponent(orderId)}`, { key });
      const t3 = performance.now();
      if (!record("get", t3 - t2, got)) return false;
      record("flow", t3 - t0);
    },
  );
  return { ...result, meta: { kind: "flow", label, clients: keys.length, skusPerOrder: skus.length, unit: "flow" } };
}

/** One endpoint alone, closed loop: create-only makes orders that confirm-only then confirms, get-only reads. */
export async function endpointPhase(target, { runId, label, endpoint, concurrency, seconds, key, skus, orders }) {
  const list = productList(skus);
  orders.cursor ??= { confirm: 0, get: 0 }; // shared by the slices of a phase: each order is confirmed once
  const result = await closedLoop(target, { concurrency, seconds }, async (worker, index, record) => {
    const t0 = performance.now();
    if (endpoint === "create") {
      const created = await target.request("POST", "/order/create", {
        key,
        body: { productList: list, wallet: "USD", reference: `${runId}-${label}-${worker}-${index}` },
        parse: true,
      });
      if (!record("create", performance.now() - t0, created)) return false;
      orders.created.push(created.json.data.id);
      return true;
    }
    if (endpoint === "confirm") {
      if (orders.cursor.confirm >= orders.created.length) return null;
      const orderId = orders.created[orders.cursor.confirm++];
      const confirmed = await target.request("PUT", "/order/confirm", { key, body: { orderId } });
      if (!record("confirm", performance.now() - t0, confirmed)) return false;
      orders.confirmed.push(orderId);
      return true;
    }
    const pool = orders.confirmed.length > 0 ? orders.confirmed : orders.created;
    const orderId = pool[orders.cursor.get++ % pool.length];
    const got = await target.request("GET", `/order/get?orderId=${encodeURIComponent(orderId)}`, { key });
    return record("get", performance.now() - t0, got);
  });
  return {
    ...result,
    meta: { kind: "endpoint", label, endpoint, clients: 1, skusPerOrder: skus.length, unit: "request" },
  };
}

/** Runs of one target (slices of a phase) merged into one phase result. */
function merge(runs) {
  const out = {
    ...runs[0],
    latencies: {},
    requests: {},
    errors: {},
    errorSamples: [],
    elapsedMs: 0,
    iterations: 0,
    completed: 0,
    clientCpuMs: 0,
    otherCpuMs: 0,
    workerdCpuMs: { inPhase: 0, withDrain: 0 },
  };
  for (const run of runs) {
    for (const [k, v] of Object.entries(run.latencies)) (out.latencies[k] ??= []).push(...v);
    for (const [k, v] of Object.entries(run.requests)) out.requests[k] = (out.requests[k] ?? 0) + v;
    for (const [k, v] of Object.entries(run.errors)) out.errors[k] = (out.errors[k] ?? 0) + v;
    out.errorSamples.push(...run.errorSamples.slice(0, 5 - out.errorSamples.length));
    for (const k of ["elapsedMs", "iterations", "completed", "clientCpuMs", "otherCpuMs"]) out[k] += run[k];
    out.workerdCpuMs.inPhase += run.workerdCpuMs.inPhase;
    out.workerdCpuMs.withDrain += run.workerdCpuMs.withDrain;
  }
  out.slices = runs.length;
  return out;
}

/**
 * Targets in alternating slices, forward then backward (A B C C B A, half the time each), so that load
 * from anything else on the machine, and drift, fall on all alike. Returns one phase per target, in order.
 */
export async function interleaved(targets, seconds, run) {
  const half = seconds / 2;
  const runs = targets.map(() => []);
  for (const [index, target] of targets.entries()) runs[index].push(await run(target, half, "a"));
  for (const [index, target] of [...targets.entries()].reverse()) runs[index].push(await run(target, half, "b"));
  return runs.map((slices) => finish(merge(slices)));
}

export function single(run) {
  return finish(merge([run]));
}

function finish(result) {
  const extra = result.meta;
  const latency = Object.fromEntries(Object.entries(result.latencies).map(([k, v]) => [k, summarise(v)]));
  const units = result.completed;
  const seconds = result.elapsedMs / 1000;
  const out = {
    ...extra,
    target: result.target,
    concurrency: result.concurrency,
    elapsedMs: result.elapsedMs,
    completed: units,
    throughput: Math.round((units / seconds) * 10) / 10,
    requests: result.requests,
    errors: result.errors,
    errorSamples: result.errorSamples,
    latency,
    workerdCpuMs: result.workerdCpuMs,
    cpuMsPerUnit: units ? Math.round((result.workerdCpuMs.withDrain / units) * 1000) / 1000 : null,
    cpuMsPerUnitInPhase: units ? Math.round((result.workerdCpuMs.inPhase / units) * 1000) / 1000 : null,
    workerdCoreUse: Math.round((result.workerdCpuMs.inPhase / result.elapsedMs) * 100) / 100,
    clientCpuMs: result.clientCpuMs,
    clientCoreUse: Math.round((result.clientCpuMs / result.elapsedMs) * 100) / 100,
    otherLoadCores: Math.round((result.otherCpuMs / result.elapsedMs) * 100) / 100,
    slices: result.slices,
  };
  delete out.latencies;
  delete out.meta;
  return out;
}
