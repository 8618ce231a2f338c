/**
 * `npm start` hands the service every secret .dev.vars holds, not only those `[secrets] required` names: the
 * local service is started as `npm start` starts it (scripts/start.mjs, its own temporary state, a loopback
 * port) against a stand-in upstream supplier on 127.0.0.1, an upstream order is placed, and the supplier
 * sees the UPSTREAM_API_KEY of .dev.vars arrive. Runs in Node (the "deploy" project): loopback only.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const state = mkdtempSync(join(tmpdir(), "order-service-start-"));
const port = 8950 + Math.floor(Math.random() * 40);
const base = `http://127.0.0.1:${port}`;
let server;
let supplier;

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((done) => server.once("exit", done));
  }
  supplier?.close();
  rmSync(state, { recursive: true, force: true });
});

/** A value of .dev.vars (npm start copies .dev.vars.example there when it is missing). */
function devVar(name) {
  return new RegExp(`^${name}=(.*)$`, "m").exec(readFileSync(join(root, ".dev.vars"), "utf8"))?.[1]?.trim();
}

/** Runs scripts/start.mjs to its end (it refuses before anything starts); answers its exit code and output. */
function startRefusing(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["scripts/start.mjs", ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // One that does not refuse would start the service: stopped here, and answered as not refused.
    const stop = setTimeout(() => child.kill("SIGTERM"), 15_000);
    child.on("close", (code) => {
      clearTimeout(stop);
      done({ code, output });
    });
  });
}

describe("npm start", () => {
  it("refuses a sandbox with a real upstream, and live with a supplier's sandbox, before starting anything", async () => {
    const sandbox = await startRefusing(["--port", "1", "--var", "UPSTREAM_BASE_URL:http://127.0.0.1:9/"]);
    expect(sandbox.code).toBe(1);
    expect(sandbox.output).toContain(
      'npm start refuses to run: the sandbox would buy real codes: UPSTREAM_BASE_URL is set but UPSTREAM_SANDBOX is not "true"',
    );
    const live = await startRefusing(["--live", "--port", "1", "--var", "UPSTREAM_SANDBOX:true"]);
    expect(live.code).toBe(1);
    expect(live.output).toContain("npm start refuses to run: live would sell a supplier's sandbox codes");
  });

  it("hands the service UPSTREAM_API_KEY from .dev.vars: the supplier sees it on its first request", async () => {
    const seen = [];
    supplier = createServer((request, response) => {
      let raw = "";
      request.on("data", (chunk) => (raw += chunk));
      request.on("end", () => {
        seen.push({ authorization: request.headers.authorization ?? "", body: JSON.parse(raw) });
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ codes: [{ pin: "START-1", link: "https://codes.example.com/start-1" }] }));
      });
    });
    await new Promise((done) => supplier.listen(0, "127.0.0.1", done));
    const upstream = `http://127.0.0.1:${supplier.address().port}/`;

    server = spawn(
      process.execPath,
      [
        "scripts/start.mjs",
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
        "--persist-to",
        state,
        "--var",
        `UPSTREAM_BASE_URL:${upstream}`,
        "--var",
        "UPSTREAM_SANDBOX:true",
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    server.stdout.on("data", (chunk) => (output += chunk));
    server.stderr.on("data", (chunk) => (output += chunk));
    const started = Date.now();
    while (!output.includes("Demo ready")) {
      if (Date.now() - started > 120_000 || server.exitCode !== null)
        throw new Error(`npm start did not get ready:\n${output.slice(-3000)}`);
      await new Promise((done) => setTimeout(done, 200));
    }

    const adminToken = devVar("ADMIN_TOKEN");
    const key = devVar("UPSTREAM_API_KEY");
    expect(key, ".dev.vars has an UPSTREAM_API_KEY").toBeTruthy();
    const call = async (method, path, token, body) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const product = await call("PUT", "/admin/products/START-UPSTREAM", adminToken, {
      productType: "range",
      name: "Start-up check",
      currency: "USD",
      country: "US",
      region: "North America",
      minQuote: "1",
      maxQuote: "100",
      supplier: "upstream",
      supplierConfig: { productCode: "START-UP" },
    });
    expect(product.status, JSON.stringify(product.body)).toBeLessThan(300);
    const created = await call("POST", "/order/create", "sk_test_demo", {
      productList: [{ sku: "START-UPSTREAM", productType: "range", quote: 10, quantity: 1 }],
      wallet: "USD",
      reference: `start-${Date.now()}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const confirmed = await call("PUT", "/order/confirm", "sk_test_demo", { orderId: created.body.data.id });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    for (let waited = 0; seen.length === 0 && waited < 100; waited += 1)
      await new Promise((done) => setTimeout(done, 100));
    expect(seen.length).toBeGreaterThan(0);
    // Compared, never printed: a failure must not show the key.
    expect(seen[0].authorization === `Bearer ${key}`, "the supplier got the key of .dev.vars").toBe(true);
    expect(seen[0].body).toMatchObject({ productCode: "START-UP", quantity: 1 });
    let orderState = "";
    for (let waited = 0; orderState !== "successful" && waited < 100; waited += 1) {
      orderState = (await call("GET", `/order/get?orderId=${created.body.data.id}`, "sk_test_demo")).body.data.state;
      if (orderState !== "successful") await new Promise((done) => setTimeout(done, 100));
    }
    expect(orderState).toBe("successful");
  }, 180_000);
});
