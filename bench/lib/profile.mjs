// CPU profile of a Worker's isolate while a phase runs: V8's sampling profiler over workerd's inspector
// (Miniflare `inspectorPort`), self time grouped by function and by the module it was bundled from
// (esbuild marks each module in the bundle with a `// path` comment line).
import { readFileSync, writeFileSync } from "node:fs";

function moduleIndex(bundle, lines) {
  const marks = [];
  lines.forEach((line, index) => {
    const match = /^\/\/ ((?:\.\.\/)*(?:src|node_modules|bench|dev|tmp)\/\S+)$/.exec(line);
    if (match) marks.push([index, match[1].replace(/^(\.\.\/)+/, "")]);
  });
  return (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        found = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

function groupOf(file) {
  if (file === null) return "(bundle glue)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1];
  return file;
}

class Inspector {
  constructor(url) {
    this.ws = new WebSocket(url);
    this.nextId = 1;
    this.pending = new Map();
    this.ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data));
      const waiter = message.id !== undefined ? this.pending.get(message.id) : undefined;
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${JSON.stringify(message.error)}`));
      else waiter.resolve(message.result);
    });
    this.open = new Promise((resolve, reject) => {
      this.ws.addEventListener("open", resolve, { once: true });
      this.ws.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), { once: true });
    });
  }

  send(method, params = {}) {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
  }

  close() {
    this.ws.close();
  }
}

/** Profiles the instance's user Worker while `run` runs; returns the top functions and modules by self time. */
export async function profilePhase(instance, bundle, run, { saveTo, workerName } = {}) {
  const base = new URL(String(await instance.mf.getInspectorURL()));
  const list = await (await fetch(`http://${base.host}/json/list`)).json();
  const target =
    list.find((t) => t.id === `core:user:${workerName}`) ?? list.find((t) => t.id.startsWith("core:user:"));
  if (!target) throw new Error(`no user worker among inspector targets: ${list.map((t) => t.id).join(", ")}`);
  const inspector = new Inspector(target.webSocketDebuggerUrl);
  await inspector.open;
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 250 });
  await inspector.send("Profiler.start");
  const phase = await run();
  const { profile } = await inspector.send("Profiler.stop");
  inspector.close();
  if (saveTo) writeFileSync(saveTo, JSON.stringify(profile));

  const source = readFileSync(bundle, "utf8").split("\n");
  const moduleOf = moduleIndex(bundle, source);
  const byLine = new Map(); // bundle line → self samples (V8 position ticks)
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const bundleName = bundle.split("/").at(-1);
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const byFunction = new Map();
  const byModule = new Map();
  let busy = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (count === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") {
      idle += count;
      continue;
    }
    busy += count;
    let group;
    let where;
    if (url && url.endsWith(bundleName)) {
      const file = moduleOf(lineNumber);
      group = groupOf(file);
      where = `${file ?? bundleName}:${lineNumber + 1}`;
    } else if (url) {
      group = `runtime JS (${url.split("/").slice(-2).join("/")})`;
      where = url;
    } else {
      group = functionName.startsWith("(") ? functionName : "(native)";
      // a runtime (C++) function: name the JS function that called it
      const parent = parentOf.get(node.id);
      where =
        parent && !functionName.startsWith("(")
          ? `called by ${parent.callFrame.functionName || "(anonymous)"}${parent.callFrame.url?.endsWith(bundleName) ? ` (${moduleOf(parent.callFrame.lineNumber) ?? bundleName})` : parent.callFrame.url ? ` (${parent.callFrame.url})` : ""}`
          : "";
    }
    const key = `${functionName || "(anonymous)"}|${where}`;
    const f = byFunction.get(key) ?? { function: functionName || "(anonymous)", where, group, samples: 0 };
    f.samples += count;
    byFunction.set(key, f);
    byModule.set(group, (byModule.get(group) ?? 0) + count);
    if (url && url.endsWith(bundleName)) {
      for (const tick of node.positionTicks ?? [])
        byLine.set(tick.line - 1, (byLine.get(tick.line - 1) ?? 0) + tick.ticks);
    }
  }
  const pct = (n) => Math.round((n / Math.max(1, busy)) * 1000) / 10;
  return {
    samplingIntervalUs: 250,
    busyMs: Math.round(busy * msPerSample),
    idleMs: Math.round(idle * msPerSample),
    flows: phase.completed,
    busyMsPerFlow: phase.completed ? Math.round(((busy * msPerSample) / phase.completed) * 1000) / 1000 : null,
    modules: [...byModule.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([group, n]) => ({
        module: group,
        percent: pct(n),
        msPerFlow: phase.completed ? Math.round(((n * msPerSample) / phase.completed) * 1000) / 1000 : null,
      })),
    lines: [...byLine.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([line, n]) => ({
        module: groupOf(moduleOf(line)),
        line: line + 1,
        code: (source[line] ?? "").trim().slice(0, 120),
        percent: pct(n),
      })),
    functions: [...byFunction.values()]
      .sort((a, b) => b.samples - a.samples)
      .slice(0, 30)
      .map((f) => ({ function: f.function, where: f.where, module: f.group, percent: pct(f.samples) })),
  };
}
