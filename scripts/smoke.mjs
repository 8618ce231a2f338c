// `npm run smoke`: what a newcomer does after `npm install`, checked end to end. Starts `npm start` on a
// free loopback port with its own temporary state, then with the demo key: a cross-currency order with
// a webhook receiver on 127.0.0.1 (signed order.confirmed and order.successful expected), a failed and a
// partial order (refunds checked against the wallet), and prints how long each took. Loopback only.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";

const root = fileURLToPath(new URL("..", import.meta.url));
const state = mkdtempSync(join(tmpdir(), "order-service-smoke-"));
const port = 8900 + Math.floor(Math.random() * 90);
const base = `http://127.0.0.1:${port}`;
const auth = { authorization: "Bearer sk_test_demo", "content-type": "application/json" };
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

// The demo client's webhook secret, as the seed sets it and `npm start` prints it.
const demoSecret = /'(whsec_[A-Za-z0-9+/]{43}=)'/.exec(readFileSync(join(root, "schema/seed/demo.sql"), "utf8"))[1];
const events = [];
const receiver = createServer((request, response) => {
  let raw = "";
  request.on("data", (chunk) => (raw += chunk));
  request.on("end", () => {
    // Verified as an integrator would: the standardwebhooks library and the demo secret.
    let valid = true;
    try {
      new Webhook(demoSecret).verify(raw, request.headers);
    } catch {
      valid = false;
    }
    events.push({ valid, event: JSON.parse(raw), at: Date.now() });
    response.writeHead(valid ? 204 : 401).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const server = spawn(
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
    "ALLOW_INSECURE_WEBHOOKS:true",
  ],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
);
let output = "";
server.stdout.on("data", (chunk) => (output += chunk));
server.stderr.on("data", (chunk) => (output += chunk));
const started = Date.now();
while (!output.includes("Demo ready")) {
  if (Date.now() - started > 120_000 || server.exitCode !== null) {
    console.error(output);
    throw new Error("npm start did not get ready in 120 s");
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
console.log(`npm start ready in ${Date.now() - started} ms`);

async function api(method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: auth,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
async function order(productList, webhookUrl) {
  const begin = Date.now();
  const created = await api("POST", "/order/create", {
    productList,
    wallet: "USD",
    reference: `smoke-${begin}-${Math.random()}`,
    ...(webhookUrl ? { webhookUrl } : {}),
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created));
  const confirmed = await api("PUT", "/order/confirm", { orderId: created.body.data.id });
  if (confirmed.status !== 200) throw new Error(JSON.stringify(confirmed));
  for (;;) {
    const got = await api("GET", `/order/get?orderId=${created.body.data.id}`);
    if (["successful", "partial", "failed"].includes(got.body.data.state))
      return { ...got.body.data, ms: Date.now() - begin, charged: created.body.data.invoice.total };
    if (Date.now() - begin > 10_000) throw new Error(`order stuck in ${got.body.data.state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const balance = async () =>
  (await api("GET", "/wallets")).body.data.wallets.find((wallet) => wallet.currency === "USD").balance;

try {
  const before = await balance();
  const cross = await order(
    [
      { sku: "DEMO-EU-FIXED", productType: "fixed", quote: 25, quantity: 2 },
      { sku: "DEMO-JP-RANGE", productType: "range", quote: 1000, quantity: 1 },
    ],
    hookUrl,
  );
  check(
    cross.state === "successful" && cross.charged === 61.02,
    `cross-currency order successful in ${cross.ms} ms, charged ${cross.charged} USD (54.35 + 6.67)`,
  );
  check(cross.redeem["DEMO-EU-FIXED"]?.redeemPin.length === 2, "two EUR voucher codes delivered");
  const failed = await order([{ sku: "DEMO-US-FAILING", productType: "range", quote: 12.34, quantity: 1 }]);
  check(
    failed.state === "failed" && failed.invoice.total === 0 && failed.invoice.status === "refunded",
    `failing SKU alone: failed and refunded in ${failed.ms} ms`,
  );
  const partial = await order([
    { sku: "DEMO-US-RANGE", productType: "range", quote: 10, quantity: 1 },
    { sku: "DEMO-US-FAILING", productType: "range", quote: 5, quantity: 1 },
  ]);
  check(
    partial.state === "partial" && partial.invoice.total === 10,
    `failing SKU with another: partial, 5 refunded, in ${partial.ms} ms`,
  );
  const after = await balance();
  check(
    Math.round((before - after) * 100) === Math.round((61.02 + 10) * 100),
    `wallet went from ${before} to ${after} USD: exactly 61.02 + 10 spent`,
  );
  const waitFrom = Date.now();
  while (events.length < 2 && Date.now() - waitFrom < 15_000) await new Promise((resolve) => setTimeout(resolve, 100));
  const types = events.map((entry) => entry.event.type).sort();
  check(
    types.join() === "order.confirmed,order.successful" && events.every((entry) => entry.valid),
    `webhooks: ${types.join(", ") || "none"}, signatures ${events.every((entry) => entry.valid) ? "valid" : "INVALID"}, last after ${events.length ? Math.max(...events.map((entry) => entry.at)) - waitFrom : "-"} ms`,
  );

  // The typed client example (examples/typescript-client), run as a newcomer would, against this server.
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 18)) {
    check(
      false,
      `typed client example: needs Node >= 22.18 to run TypeScript (this is ${process.version}; \`npm run smoke\` uses the project's Node)`,
    );
  } else {
    const example = spawn(process.execPath, ["examples/typescript-client/client.ts"], {
      cwd: root,
      env: {
        ...process.env,
        ORDER_SERVICE_URL: base,
        ORDER_SERVICE_API_KEY: "sk_test_demo",
        ORDER_SERVICE_WEBHOOK_SECRET: demoSecret,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    example.stdout.on("data", (chunk) => (printed += chunk));
    example.stderr.on("data", (chunk) => (printed += chunk));
    const code = await new Promise((resolve) => example.on("exit", resolve));
    console.log(printed.trimEnd().replace(/^/gm, "     | "));
    check(
      code === 0 &&
        /DEMO-EU-FIXED 10 EUR: DEMO-EU-10-\d+/.test(printed) &&
        /verified with standardwebhooks: order\.confirmed, order\.successful; rejected: 0/.test(printed),
      `typed client example (openapi-fetch): order successful, codes printed, webhooks verified with standardwebhooks (exit ${code})`,
    );
  }
} finally {
  server.kill("SIGINT");
  receiver.close();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  rmSync(state, { recursive: true, force: true });
}
console.log(failures.length === 0 ? "smoke: all good" : `smoke: ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
