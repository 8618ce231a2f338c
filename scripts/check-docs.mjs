// `npm run check:docs`: the rendered API reference, checked in a real browser. Starts the service as
// `npm start` does (own temporary state, a free loopback port), opens /docs in headless Chromium, waits
// until the three order operations (create, confirm, retrieve) are rendered, and saves a screenshot to
// docs/api-reference.png. Exits non-zero when they do not render, or when the page asks for anything that
// is not on this Worker (the page must work offline).
//
// The browser is the system's Chromium (Debian: `apt-get install -y chromium`), driven by playwright-core;
// set CHROMIUM_PATH to use another build. Loopback only.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const screenshot = join(root, "docs", "api-reference.png");
const ORDER_OPERATIONS = ["createOrder", "confirmOrder", "getOrder"];
const executablePath =
  process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
if (executablePath === undefined) {
  console.error("check:docs: no Chromium found; install Debian's `chromium` package or set CHROMIUM_PATH.");
  process.exit(2);
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

if (
  !existsSync(join(root, "src/docs/generated/renderer.js")) ||
  !existsSync(join(root, "src/docs/generated/assets/docs")) ||
  !existsSync(join(root, "src/docs/generated/assets/console"))
) {
  spawnSync(process.execPath, ["scripts/docs-renderer.mjs"], { cwd: root, stdio: "inherit" });
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const state = mkdtempSync(join(tmpdir(), "order-service-docs-"));
const server = spawn(
  process.execPath,
  ["scripts/start.mjs", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", state],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  },
);
let output = "";
server.stdout.on("data", (chunk) => (output += chunk));
server.stderr.on("data", (chunk) => (output += chunk));

let browser;
let failed = false;
try {
  const started = Date.now();
  while (!output.includes("Demo ready")) {
    if (Date.now() - started > 120_000 || server.exitCode !== null) {
      console.error(output);
      throw new Error("the service did not get ready in 120 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  // What to look for: the order operations' summaries as the served document has them today.
  const apiDocument = await (await fetch(`${base}/openapi.json`)).json();
  const operations = Object.entries(apiDocument.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, ...operation })),
  );
  const expected = ORDER_OPERATIONS.map((id) => {
    const operation = operations.find((candidate) => candidate.operationId === id);
    if (operation === undefined) throw new Error(`/openapi.json has no operation ${id}`);
    return { id, method: operation.method, path: operation.path, summary: operation.summary };
  });

  browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const elsewhere = [];
  const pageErrors = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== base && url.protocol !== "data:" && url.protocol !== "blob:") elsewhere.push(request.url());
  });
  const missing = [];
  page.on("response", (answer) => {
    if (answer.status() >= 400) missing.push(`${answer.status()} ${answer.url()}`);
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // The page's Content-Security-Policy stops any request to another origin before it is made; count those too.
    const blocked = /Content Security Policy/.test(message.text())
      ? /'(https?:[^']+)'|load (https?:\S+?)\.? /.exec(message.text())
      : null;
    if (blocked !== null) elsewhere.push(blocked[1] ?? blocked[2]);
    else pageErrors.push(message.text());
  });

  const response = await page.goto(`${base}/docs`, { waitUntil: "load" });
  if (response?.status() !== 200) throw new Error(`GET /docs answered ${response?.status()}`);
  const renderStarted = Date.now();
  try {
    // Scalar opens its first tag only when tags are not in groups (x-tagGroups): a reader opens "Orders"
    // in the sidebar, and so does this check.
    const orders = page.getByText("Orders", { exact: true }).first();
    await orders.waitFor({ timeout: 30_000 });
    await orders.click();
    await page.waitForFunction(
      (summaries) => summaries.every((summary) => document.body.innerText.includes(summary)),
      expected.map((operation) => operation.summary),
      { timeout: 30_000 },
    );
  } catch {
    const text = await page.evaluate(() => document.body.innerText.slice(0, 2000));
    throw new Error(`the order operations did not render in 30 s; the page shows:\n${text}`);
  }
  console.log(`rendered in ${Date.now() - renderStarted} ms:`);
  for (const operation of expected) console.log(`  ${operation.method} ${operation.path}: ${operation.summary}`);

  // The create operation in view for the screenshot: chosen in the sidebar, as a reader would.
  await page.getByText(expected[0].summary, { exact: true }).first().click();
  await page.waitForTimeout(1000);
  mkdirSync(join(root, "docs"), { recursive: true });
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot.slice(root.length)}`);

  if (elsewhere.length > 0) {
    failed = true;
    console.error(
      `FAIL the page asked for ${elsewhere.length} resource(s) not on this Worker:\n  ${[...new Set(elsewhere)].join("\n  ")}`,
    );
  }
  if (missing.length > 0) {
    failed = true;
    console.error(
      `FAIL the page asked for ${missing.length} resource(s) this Worker does not have:\n  ${missing.join("\n  ")}`,
    );
  }
  if (pageErrors.length > 0) console.log(`browser console errors (not fatal):\n  ${pageErrors.join("\n  ")}`);
} catch (error) {
  failed = true;
  console.error(`FAIL ${error instanceof Error ? error.message : error}`);
} finally {
  await browser?.close();
  server.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  rmSync(state, { recursive: true, force: true });
}
console.log(failed ? "check:docs: failed" : "check:docs: the API reference renders");
process.exit(failed ? 1 : 0);
