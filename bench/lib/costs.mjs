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

/**
 * What a flow should produce, as counts that grow from a baseline taken before its create: each
 * `{ what, counter, atLeast }` holds once `counter` has grown by `atLeast` since `base`.
 */
const grown = (now, base, counter) => (now[counter] ?? 0) - (base[counter] ?? 0);
const missing = (now, base, wants) => wants.filter((want) => grown(now, base, want.counter) < want.atLeast);

/**
 * Counters once every one of `wants` has arrived (webhook deliveries wait on the queue's batch timeout, the
 * order index on its timer), then settled; else an error that names what did not arrive, and how far it got.
 */
async function until(target, base, wants, { what, waitMs = 10_000 } = {}) {
  const start = performance.now();
  let now = await counters(target);
  while (missing(now, base, wants).length > 0) {
    if (performance.now() - start >= waitMs) {
      const short = missing(now, base, wants)
        .map((want) => `${want.what} (${want.counter}): ${grown(now, base, want.counter)} of ${want.atLeast}`)
        .join("; ");
      throw new Error(`metrics: ${what}: not there ${waitMs / 1000} s after confirm: ${short}`);
    }
    await sleep(50);
    now = await counters(target);
  }
  return settled(target);
}

/**
 * One order, create → confirm → (its webhook events consumed) → (its row in the order index) → get, each
 * part's counters apart. `indexedBy`: the Durable Object class whose alarm writes the order's row to the
 * order index (the service's `index` timer, INDEX_DELAY_MS after a change); null for a target with no order
 * index (the floor). That alarm run is waited for by what it certainly leaves (a finished alarm run of that
 * class, and D1 rows written by that class's code) counted from before the create, so that a run which
 * came early is still seen, and its D1 write counts as the index's rather than the get's.
 */
async function oneFlow(target, { key, list, reference, webhookUrl, indexedBy, waitMs }) {
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
  const s3 = webhookUrl
    ? await until(target, s0, [{ what: "webhook events consumed", counter: "queue.messagesConsumed", atLeast: 2 }], {
        what: `order ${orderId}'s webhook deliveries`,
        waitMs,
      })
    : await settled(target);
  const indexWants = indexedBy
    ? [
        { what: `${indexedBy} alarm runs finished`, counter: `doAlarmsDone.${indexedBy}`, atLeast: 1 },
        { what: "rows written to the books", counter: "sqlite.byClass.BooksObject.rowsWritten", atLeast: 1 },
      ]
    : [];
  // Already there before the afterConfirm part ended (a slow webhook delivery): then the index's write is
  // counted in afterConfirm, and the part `index` of this order is empty. Counted, so the report can say so.
  const indexEarly = indexedBy ? missing(s3, s0, indexWants).length === 0 : false;
  const s3i = indexedBy
    ? await until(target, s0, indexWants, { what: `order ${orderId}'s order index write`, waitMs })
    : s3;
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
    indexEarly,
  };
}

/**
 * Per order and per endpoint: the first order after start (cold isolate: API key not cached yet) and the
 * mean of `flows` orders after it.
 */
export async function measureCosts(
  target,
  { runId, key, skus, list = productList(skus), webhookUrl, flows = 8, label, indexedBy = null, waitMs },
) {
  const flow = (reference) => oneFlow(target, { key, list, webhookUrl, reference, indexedBy, waitMs });
  const cold = await flow(`${runId}-${label}-cold`);
  const totals = {};
  const states = {};
  let indexEarly = 0;
  for (let i = 0; i < flows; i += 1) {
    const one = await flow(`${runId}-${label}-${i}`);
    for (const part of ["create", "confirm", "afterConfirm", "index", "get", "order"])
      add((totals[part] ??= {}), one[part], 1 / flows);
    states[one.finalState] = (states[one.finalState] ?? 0) + 1;
    if (one.indexEarly) indexEarly += 1;
  }
  const round = (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  const warm = Object.fromEntries(
    Object.entries(totals).map(([part, d]) => [part, { summary: summary(round(d)), counters: round(d) }]),
  );
  return {
    flows,
    skusPerOrder: list.length,
    stateSeenByGet: states,
    // Orders (of `flows`) whose index write came before their afterConfirm part ended, and so counts there.
    indexEarly,
    warm,
    cold: Object.fromEntries(
      ["create", "confirm", "afterConfirm", "index", "get", "order"].map((part) => [
        part,
        { summary: summary(cold[part]), counters: cold[part] },
      ]),
    ),
  };
}
