// Cost counters for the benchmark's metrics pass (`npm run bench`), bundled around a Worker without
// touching its source: bench/run.mjs generates an entry that re-exports the Worker's default handler and
// Durable Object classes through `instrumentHandler` / `instrumentClass`. Every binding the code reaches
// through `env` is wrapped (D1 queries and their meta, Durable Object RPCs, queue sends), and every
// SQLite statement a Durable Object runs is counted from its cursor (rowsRead / rowsWritten). The Worker
// and its objects share one isolate in workerd, so the counters are module globals; GET /__bench/cost
// returns them. Only the metrics pass runs this build: the timed phases run the plain bundle.
import { DurableObject } from "cloudflare:workers";
import { shardName } from "../../src/books/shard-rules.ts";

function fresh() {
  return {
    requests: 0,
    doCalls: {}, // "BINDING.method" → count (RPCs and fetches to Durable Object stubs)
    doAlarms: {}, // "Class" → alarm invocations (counted as each run starts)
    doAlarmsDone: {}, // "Class" → alarm runs finished (returned or threw): what a run wrote is counted by then
    doStarts: {}, // "Class" → constructor runs
    doActiveMs: 0, // wall-clock ms from each RPC's call to its answer, and of each alarm run (billed duration)
    // byOwner: the same, by whose code made the query ("Worker", or a Durable Object class)
    d1: { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0, byOp: {}, byOwner: {} },
    sqlite: { statements: 0, rowsRead: 0, rowsWritten: 0, byClass: {} },
    // keysRead/keysWritten: rows billed; byClass: the synchronous API's keys written, by object class
    kv: { gets: 0, puts: 0, deletes: 0, keysRead: 0, keysWritten: 0, byClass: {} },
    alarmsSet: 0,
    queue: { sends: 0, messages: 0, consumerInvocations: 0, messagesConsumed: 0 },
    outboundFetches: 0,
  };
}

let counters = fresh();
const pendingCursors = new Set();
const bump = (record, key, n = 1) => (record[key] = (record[key] ?? 0) + n);

/** Cursors count rows as they are consumed; they are read off when the counters are asked for. */
function settleCursors() {
  for (const entry of pendingCursors) {
    const { cursor, cls, table } = entry;
    let read = 0;
    let written = 0;
    try {
      read = cursor.rowsRead;
      written = cursor.rowsWritten;
    } catch {
      // a cursor of a finished transaction may refuse; keep what it reported last
      read = entry.read;
      written = entry.written;
    }
    counters.sqlite.rowsRead += read - entry.read;
    counters.sqlite.rowsWritten += written - entry.written;
    const c = (counters.sqlite.byClass[cls] ??= { statements: 0, rowsRead: 0, rowsWritten: 0 });
    c.rowsRead += read - entry.read;
    c.rowsWritten += written - entry.written;
    if (table !== null) bump((c.byTable ??= {}), table, written - entry.written);
    entry.read = read;
    entry.written = written;
  }
  // Cursors stay readable; drop those older than the snapshot horizon to bound memory.
  if (pendingCursors.size > 5000) pendingCursors.clear();
}

export function snapshot() {
  settleCursors();
  return structuredClone(counters);
}

// ---- D1 -------------------------------------------------------------------------------------------
const innerStatement = new WeakMap();

const ownerCounts = (owner) =>
  (counters.d1.byOwner[owner] ??= { roundTrips: 0, statements: 0, rowsRead: 0, rowsWritten: 0 });

function d1Sent(owner, op, statements) {
  counters.d1.roundTrips += 1;
  counters.d1.statements += statements;
  bump(counters.d1.byOp, op);
  const mine = ownerCounts(owner);
  mine.roundTrips += 1;
  mine.statements += statements;
}

function d1Meta(result, owner) {
  const meta = result?.meta ?? {};
  const read = Number(meta.rows_read ?? 0);
  const written = Number(meta.rows_written ?? 0);
  counters.d1.rowsRead += read;
  counters.d1.rowsWritten += written;
  const mine = ownerCounts(owner);
  mine.rowsRead += read;
  mine.rowsWritten += written;
}

function wrapStatement(statement, sql, owner) {
  const wrapper = {
    bind: (...args) => wrapStatement(statement.bind(...args), sql, owner),
    async first(column) {
      d1Sent(owner, "first", 1);
      const result = await statement.all(); // same query; `all` carries the meta that `first` hides
      d1Meta(result, owner);
      const row = result.results[0] ?? null;
      return column === undefined ? row : row === null ? null : (row[column] ?? null);
    },
    async run() {
      d1Sent(owner, "run", 1);
      const result = await statement.run();
      d1Meta(result, owner);
      return result;
    },
    async all() {
      d1Sent(owner, "all", 1);
      const result = await statement.all();
      d1Meta(result, owner);
      return result;
    },
    async raw(options) {
      d1Sent(owner, "raw", 1);
      const result = await statement.all();
      d1Meta(result, owner);
      return statement.raw(options).then((rows) => rows); // rows as the caller expects them (second read, not counted)
    },
  };
  innerStatement.set(wrapper, statement);
  return wrapper;
}

/** `owner`: whose code holds this binding ("Worker" or a Durable Object class), for `d1.byOwner`. */
function wrapD1(db, owner) {
  const wrapped = {
    prepare: (sql) => wrapStatement(db.prepare(sql), sql, owner),
    async batch(statements) {
      d1Sent(owner, "batch", statements.length);
      const results = await db.batch(statements.map((s) => innerStatement.get(s) ?? s));
      for (const result of results) d1Meta(result, owner);
      return results;
    },
    async exec(sql) {
      counters.d1.roundTrips += 1;
      ownerCounts(owner).roundTrips += 1;
      bump(counters.d1.byOp, "exec");
      const result = await db.exec(sql);
      counters.d1.statements += Number(result?.count ?? 1);
      ownerCounts(owner).statements += Number(result?.count ?? 1);
      return result;
    },
    withSession: (...args) => {
      const session = db.withSession(...args);
      const inner = wrapD1(session, owner);
      inner.getBookmark = () => session.getBookmark();
      return inner;
    },
    dump: () => db.dump(),
  };
  return wrapped;
}

// ---- Durable Object namespaces, queues ------------------------------------------------------------
function wrapStub(stub, binding) {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (
        typeof prop === "symbol" ||
        prop === "then" ||
        prop === "id" ||
        prop === "name" ||
        typeof value !== "function"
      )
        return value;
      return (...args) => {
        bump(counters.doCalls, `${binding}.${prop}`);
        const started = performance.now();
        const settle = () => (counters.doActiveMs += performance.now() - started);
        const result = Reflect.apply(value, target, args);
        if (result && typeof result.then === "function") result.then(settle, settle);
        return result;
      };
    },
  });
}

function wrapNamespace(ns, binding) {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") return (...args) => wrapStub(value.apply(target, args), binding);
      if (prop === "jurisdiction") return (...args) => wrapNamespace(value.apply(target, args), binding);
      return value.bind(target);
    },
  });
}

function wrapQueue(queue) {
  return {
    send(body, options) {
      counters.queue.sends += 1;
      counters.queue.messages += 1;
      return queue.send(body, options);
    },
    sendBatch(messages, options) {
      counters.queue.sends += 1;
      counters.queue.messages += [...messages].length;
      return queue.sendBatch(messages, options);
    },
  };
}

const wrappedEnvs = new WeakMap(); // env → owner → wrapped env
/** `owner`: "Worker" for the handler's env, the class name for a Durable Object's (see d1.byOwner). */
export function wrapEnv(env, owner = "Worker") {
  const byOwner = wrappedEnvs.get(env) ?? new Map();
  wrappedEnvs.set(env, byOwner);
  if (byOwner.has(owner)) return byOwner.get(owner);
  const out = {};
  for (const [name, value] of Object.entries(env)) {
    if (value && typeof value === "object" && typeof value.prepare === "function" && typeof value.batch === "function")
      out[name] = wrapD1(value, owner);
    else if (
      value &&
      typeof value === "object" &&
      typeof value.idFromName === "function" &&
      typeof value.get === "function"
    )
      out[name] = wrapNamespace(value, name);
    else if (
      value &&
      typeof value === "object" &&
      typeof value.send === "function" &&
      typeof value.sendBatch === "function"
    )
      out[name] = wrapQueue(value);
    else out[name] = value;
  }
  byOwner.set(owner, out);
  return out;
}

// ---- Durable Object storage -----------------------------------------------------------------------
/**
 * The table a statement writes (its first INSERT, REPLACE, UPDATE or DELETE), or null: lets the books'
 * report tell one table's rows from another's (the events' from the order rows').
 */
function writtenTable(sql) {
  const found =
    /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+"?(\w+)/i.exec(
      typeof sql === "string" ? sql : "",
    );
  return found === null ? null : found[1];
}
const sqlOwner = new WeakMap();
const kvOwner = new WeakMap();
let patched = false;
function patchStorage(storage) {
  if (patched) return;
  patched = true;
  const sqlProto = Object.getPrototypeOf(storage.sql);
  const exec = sqlProto.exec;
  sqlProto.exec = function (...args) {
    const cls = sqlOwner.get(this) ?? "?";
    counters.sqlite.statements += 1;
    (counters.sqlite.byClass[cls] ??= { statements: 0, rowsRead: 0, rowsWritten: 0 }).statements += 1;
    const cursor = exec.apply(this, args);
    pendingCursors.add({ cursor, cls, table: writtenTable(args[0]), read: 0, written: 0 });
    return cursor;
  };
  const storageProto = Object.getPrototypeOf(storage);
  // The key-value API of a SQLite-backed object is billed as rows: one per key read, written or deleted.
  const keysIn = (method, first) =>
    method === "put" && first !== null && typeof first === "object"
      ? Object.keys(first).length
      : Array.isArray(first)
        ? first.length
        : 1;
  for (const [method, key] of [
    ["get", "gets"],
    ["put", "puts"],
    ["delete", "deletes"],
  ]) {
    const original = storageProto[method];
    if (typeof original !== "function") continue;
    storageProto[method] = function (...args) {
      counters.kv[key] += 1;
      counters.kv[method === "get" ? "keysRead" : "keysWritten"] += keysIn(method, args[0]);
      return original.apply(this, args);
    };
  }
  // The synchronous key-value API (ctx.storage.kv) of a SQLite-backed object: the same billing, one row a key.
  const kvProto = storage.kv ? Object.getPrototypeOf(storage.kv) : null;
  for (const [method, key] of kvProto
    ? [
        ["get", "gets"],
        ["put", "puts"],
        ["delete", "deletes"],
      ]
    : []) {
    const original = kvProto[method];
    if (typeof original !== "function") continue;
    kvProto[method] = function (...args) {
      counters.kv[key] += 1;
      counters.kv[method === "get" ? "keysRead" : "keysWritten"] += 1;
      if (method !== "get") bump(counters.kv.byClass, kvOwner.get(this) ?? "?");
      return original.apply(this, args);
    };
  }
  if (kvProto && typeof kvProto.list === "function") {
    const list = kvProto.list;
    kvProto.list = function (...args) {
      const entries = [...list.apply(this, args)];
      counters.kv.keysRead += entries.length;
      return entries[Symbol.iterator]();
    };
  }
  const setAlarm = storageProto.setAlarm;
  if (typeof setAlarm === "function") {
    storageProto.setAlarm = function (...args) {
      counters.alarmsSet += 1;
      return setAlarm.apply(this, args);
    };
  }
}

export function instrumentClass(Base, name) {
  if (!(typeof Base === "function" && Base.prototype instanceof DurableObject)) return Base;
  const Instrumented = class extends Base {
    constructor(ctx, env) {
      patchStorage(ctx.storage);
      sqlOwner.set(ctx.storage.sql, name);
      if (ctx.storage.kv) kvOwner.set(ctx.storage.kv, name);
      bump(counters.doStarts, name);
      super(ctx, wrapEnv(env, name));
    }
  };
  if (typeof Base.prototype.alarm === "function") {
    Instrumented.prototype.alarm = async function (...args) {
      bump(counters.doAlarms, name);
      const started = performance.now();
      try {
        return await Base.prototype.alarm.apply(this, args);
      } finally {
        counters.doActiveMs += performance.now() - started;
        bump(counters.doAlarmsDone, name);
      }
    };
  }
  Object.defineProperty(Instrumented, "name", { value: name });
  return Instrumented;
}

/**
 * GET /__bench/shard?orders=&concurrency=: how many orders a second one shard of the books takes here.
 * Writes `orders` rows of one new client and day straight to its shard (part 0), `concurrency` at a
 * time, through the shard's own RPC (each row hashed and stored with its counters, as an order's write
 * is); the env is the raw one, so that nothing here is counted with the service's costs.
 */
async function shardThroughput(url, env) {
  const orders = Number(url.searchParams.get("orders") ?? 2000);
  const concurrency = Number(url.searchParams.get("concurrency") ?? 32);
  const clientId = `shard-bench-${crypto.randomUUID().slice(0, 8)}`;
  const day = Math.floor(Date.now() / 86_400_000);
  const address = { clientId, day, part: 0 };
  const stub = env.BOOKS.get(env.BOOKS.idFromName(shardName(address)));
  const start = day * 86_400_000;
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < orders; n = next++) {
      const createdAt = start + (n % 86_000_000);
      const id = `ord_${n.toString(16).padStart(8, "0")}${"0".repeat(56)}`;
      await stub.write(address, {
        id,
        clientId,
        reference: `bench-${n}`,
        state: "successful",
        wallet: "USD",
        total: "5",
        charged: "5",
        refunded: "0",
        skus: ["DEMO-US-RANGE"],
        lines: [{ sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: "5", outcome: "delivered" }],
        createdAt,
        modifiedAt: createdAt + 10,
        expiresAt: createdAt + 600_000,
        version: 3,
        deliveredCodes: [],
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  return Response.json({ orders, concurrency, ms, perSecond: orders / (ms / 1000) });
}

function costResponse(url) {
  const body = snapshot();
  if (url.searchParams.has("reset")) {
    counters = fresh();
    pendingCursors.clear();
  }
  return Response.json(body);
}

export function instrumentHandler(handler) {
  if (typeof handler === "function") {
    // a WorkerEntrypoint class: wrap env in the constructor, answer /__bench/cost before its fetch
    return class extends handler {
      constructor(ctx, env) {
        super(ctx, wrapEnv(env));
      }
      fetch(request) {
        const url = new URL(request.url);
        if (url.pathname === "/__bench/cost") return costResponse(url);
        counters.requests += 1;
        return super.fetch(request);
      }
    };
  }
  const out = {};
  for (const [key, value] of Object.entries(handler)) {
    if (typeof value !== "function") {
      out[key] = value;
      continue;
    }
    if (key === "fetch") {
      out.fetch = async (request, env, ctx) => {
        const url = new URL(request.url);
        if (url.pathname === "/__bench/cost") return costResponse(url);
        if (url.pathname === "/__bench/shard") return shardThroughput(url, env);
        counters.requests += 1;
        return value.call(handler, request, wrapEnv(env), ctx);
      };
    } else if (key === "queue") {
      out.queue = (batch, env, ctx) => {
        counters.queue.consumerInvocations += 1;
        counters.queue.messagesConsumed += batch.messages.length;
        return value.call(handler, batch, wrapEnv(env), ctx);
      };
    } else {
      out[key] = (event, env, ctx) => value.call(handler, event, wrapEnv(env), ctx);
    }
  }
  return out;
}
