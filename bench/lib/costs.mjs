// The metrics pass: drives a few flows one at a time against an instrumented build and reads the
// counters (GET /__bench/cost) around each request, so every Durable Object call, D1 query and row is
// attributed to the endpoint that caused it.
import { setTimeout as sleep } from "node:timers/promises";
import { productList } from "./flows.mjs";

function flatten(value, prefix = "", out = {}) {
  for (const [k, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === "object") flatten(v, name, out);
    else if (typeof v === "number") out[name] = v;
  }
  return out;
}

const diff = (after, before) => {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) !== 0) out[k] = v - (before[k] ?? 0);
  return out;
};

const add = (a, b, scale = 1) => {
  for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v * scale;
  return a;
};

async function counters(target) {
  const response = await target.request("GET", "/__bench/cost", { parse: true });
  if (response.status !== 200) throw new Error(`/__bench/cost answered ${response.status}`);
  return flatten(response.json);
}

/** Counters once they stop moving (background work such as alarms after a confirm has finished). */
async function settled(target, { maxMs = 2000 } = {}) {
  let last = await counters(target);
  const start = performance.now();
  let still = 0;
  while (performance.now() - start < maxMs && still < 3) {
    await sleep(40);
    const now = await counters(target);
    still = JSON.stringify(now) === JSON.stringify(last) ? still + 1 : 0;
    last = now;
  }
  return last;
}

/** Sums of a counter diff, in the units the report uses. */
export function summary(d) {
  const sum = (prefix) =>
    Object.entries(d)
      .filter(([k]) => k.startsWith(prefix))
      .reduce((a, [, v]) => a + v, 0);
  return {
    doCalls: sum("doCalls.") + sum("doAlarms."),
    doRpcs: sum("doCalls."),
    doAlarms: sum("doAlarms."),
    doStarts: sum("doStarts."),
    d1RoundTrips: d["d1.roundTrips"] ?? 0,
    d1Statements: d["d1.statements"] ?? 0,
    d1RowsRead: d["d1.rowsRead"] ?? 0,
    d1RowsWritten: d["d1.rowsWritten"] ?? 0,
    sqliteStatements: d["sqlite.statements"] ?? 0,
    sqliteRowsRead: d["sqlite.rowsRead"] ?? 0,
    sqliteRowsWritten: d["sqlite.rowsWritten"] ?? 0,
    kvOps: (d["kv.gets"] ?? 0) + (d["kv.puts"] ?? 0) + (d["kv.deletes"] ?? 0),
    kvKeysRead: d["kv.keysRead"] ?? 0,
    kvKeysWritten: d["kv.keysWritten"] ?? 0,
    doActiveMs: d.doActiveMs ?? 0,
    workerRequests: d.requests ?? 0,
    queueConsumerInvocations: d["queue.consumerInvocations"] ?? 0,
    queueMessagesConsumed: d["queue.messagesConsumed"] ?? 0,
    alarmsSet: d.alarmsSet ?? 0,
    queueMessages: d["queue.messages"] ?? 0,
  };
}

/** Counters once `done` holds for them (webhook deliveries wait on the queue's batch timeout), then settled. */
async function until(target, done, { maxMs = 10_000 } = {}) {
  const start = performance.now();
  while (performance.now() - start < maxMs) {
    if (done(await counters(target))) return settled(target);
    await sleep(50);
  }
  throw new Error("metrics: the counters did not reach what the flow should produce (webhook deliveries?)");
}

async function oneFlow(target, { key, list, reference, webhookUrl }) {
  const s0 = await settled(target);
  const body = { productList: list, wallet: "USD", reference, ...(webhookUrl ? { webhookUrl } : {}) };
  const created = await target.request("POST", "/order/create", { key, body, parse: true });
  if (created.status !== 200) throw new Error(`metrics create: ${created.status} ${JSON.stringify(created.json)}`);
  const orderId = created.json.data.id;
  const s1 = await counters(target);
  const confirmed = await target.request("PUT", "/order/confirm", { key, body: { orderId } });
  if (confirmed.status !== 200)
    throw new Error(`metrics confirm: ${confirmed.status} ${JSON.stringify(confirmed.json)}`);
  const s2 = await counters(target);
  // With a webhook, an order makes two events (confirmed, then its end state): wait until both are consumed.
  const consumed = s0["queue.messagesConsumed"] ?? 0;
  const s3 = webhookUrl
    ? await until(target, (now) => (now["queue.messagesConsumed"] ?? 0) >= consumed + 2)
    : await settled(target);
  // The order then writes its row to the order index, from an alarm run about 2 s after its create (its
  // `index` timer): wait for that run, so that its D1 write counts as the index's, where it runs, and not
  // in whichever request happens to be under way when it fires.
  const alarmRuns = (counts) =>
    Object.entries(counts)
      .filter(([k]) => k.startsWith("doAlarms."))
      .reduce((a, [, v]) => a + v, 0);
  const s3i = await until(target, (now) => alarmRuns(now) > alarmRuns(s3));
  const got = await target.request("GET", `/order/get?orderId=${encodeURIComponent(orderId)}`, { key, parse: true });
  if (got.status !== 200) throw new Error(`metrics get: ${got.status} ${JSON.stringify(got.json)}`);
  const s4 = await settled(target);
  return {
    create: diff(s1, s0),
    confirm: diff(s2, s1),
    afterConfirm: diff(s3, s2),
    index: diff(s3i, s3),
    get: diff(s4, s3i),
    order: diff(s4, s0),
    finalState: got.json?.data?.state ?? null,
  };
}

/**
 * Per order and per endpoint: the first order after start (cold isolate: API key not cached yet) and the
 * mean of `flows` orders after it.
 */
export async function measureCosts(
  target,
  { runId, key, skus, list = productList(skus), webhookUrl, flows = 8, label },
) {
  const cold = await oneFlow(target, { key, list, webhookUrl, reference: `${runId}-${label}-cold` });
  const totals = {};
  const states = {};
  for (let i = 0; i < flows; i += 1) {
    const one = await oneFlow(target, { key, list, webhookUrl, reference: `${runId}-${label}-${i}` });
    for (const part of ["create", "confirm", "afterConfirm", "index", "get", "order"])
      add((totals[part] ??= {}), one[part], 1 / flows);
    states[one.finalState] = (states[one.finalState] ?? 0) + 1;
  }
  const round = (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  const warm = Object.fromEntries(
    Object.entries(totals).map(([part, d]) => [part, { summary: summary(round(d)), counters: round(d) }]),
  );
  return {
    flows,
    skusPerOrder: list.length,
    stateSeenByGet: states,
    warm,
    cold: Object.fromEntries(
      ["create", "confirm", "afterConfirm", "index", "get", "order"].map((part) => [
        part,
        { summary: summary(cold[part]), counters: cold[part] },
      ]),
    ),
  };
}
