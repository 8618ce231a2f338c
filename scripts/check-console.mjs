// `npm run check:console`: the operator console in a real browser. Starts the service as `npm start` does
// (its own temporary state, a free loopback port), makes a viewer, an operator and an admin through the
// break-glass ADMIN_TOKEN that `npm start` uses (read from .dev.vars, never printed), and as each of them
// drives Debian's Chromium through playwright-core over issue 25's eight steps:
//   1. signs in; 2. finds an order by its client and a reference prefix (the order index's search) and
//   opens its timeline; 3. tops up a wallet twice with one drawn form,
//   and one posting lands; 4. uploads a CSV of codes with one bad row, and the report names that row;
//   5. replays a dead letter; 6. checks that a change the role may not make is refused; 7. checks that the
//   XSS probe, written into every free-text field the pages show, runs nothing; 8. signs out.
// A viewer's steps 3 to 5 are refusals (the forms are not drawn for them, and a post is answered 403).
// axe-core is run in every page visited: any serious or critical violation fails the check. Screenshots of
// each page go to docs/console/ (docs/console.md shows them). Loopback only; exits non-zero on a failure.
//
// The browser is the system's Chromium (Debian: `apt-get install -y chromium`); CHROMIUM_PATH picks another.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const shots = join(root, "docs", "console");
const PROBE = "<img src=x onerror=alert(1)>";
const axeSource = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");
const executablePath =
  process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
if (executablePath === undefined) {
  console.error("check:console: no Chromium found; install Debian's `chromium` package or set CHROMIUM_PATH.");
  process.exit(2);
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

if (!existsSync(join(root, "src/docs/generated/assets/console")))
  spawnSync(process.execPath, ["scripts/docs-renderer.mjs"], { cwd: root, stdio: "inherit" });

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const state = mkdtempSync(join(tmpdir(), "order-service-console-"));
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

const failures = [];
const passed = [];
function check(what, ok, detail = "") {
  if (ok) passed.push(what);
  else failures.push(`${what}${detail === "" ? "" : `: ${detail}`}`);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail !== "" ? ` (${detail})` : ""}`);
}

/** The break-glass token npm start uses; kept in this process, never printed. */
function adminToken() {
  const token = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(join(root, ".dev.vars"), "utf8"))?.[1]?.trim();
  if (token === undefined || token === "") throw new Error(".dev.vars has no ADMIN_TOKEN");
  return token;
}

/** fetch, tried again while the connection itself fails (wrangler dev may still be swapping its Worker in). */
async function send(url, init) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function api(method, path, body, token) {
  const response = await send(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status} ${answer?.code ?? ""}`);
  return answer.data;
}

/** A row in the local D1 database, as the dead-letter queue's consumer keeps one (no queue runs out of retries in a minute). */
function insertDeadLetter(eventId, lastError) {
  const message = {
    clientId: "demo",
    url: "https://hooks.example.com/orders",
    event: {
      id: eventId,
      type: "order.successful",
      createdAt: Date.now(),
      data: { orderId: "ord_console_check", state: "successful", reference: PROBE },
    },
  };
  const sql = `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES (${quote(eventId)}, 'demo', ${quote(message.url)}, ${quote(JSON.stringify(message))}, 8, ${quote(lastError)}, ${Date.now()})`;
  d1(sql, "add a dead letter");
}

const quote = (text) => `'${String(text).replaceAll("'", "''")}'`;

/** Runs SQL on the local D1 database of this run's state. */
function d1(sql, what) {
  const file = join(state, `check-${Date.now()}-${Math.random().toString(36).slice(2)}.sql`);
  writeFileSync(file, sql);
  const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  const result = spawnSync(
    process.execPath,
    [wrangler, "d1", "execute", "DB", "--local", "--persist-to", state, "--file", file],
    { cwd: root, encoding: "utf8", env: { ...process.env, CI: "true" } },
  );
  rmSync(file, { force: true });
  if (result.status !== 0) throw new Error(`could not ${what}: ${result.stderr.slice(-500)}`);
}

/**
 * A month of history for the charts, written as the books' published figures (`books_days`, one row per
 * client, day and wallet, as a shard publishes its counters) and the codes hold it (the codes' daily
 * figures' triggers count those): orders of a client `history` over the last 30 days
 * but today and yesterday (the reconciliation of the last day sees none of them), in USD and EUR, some
 * partial or failed, and DEMO-GB-FIXED's codes uploaded and sold day by day. A fixed sequence, so that
 * the screenshots show the same month each run.
 */
function insertHistory(run) {
  const DAY = 86_400_000;
  const today = Math.floor(Date.now() / DAY);
  const statements = [];
  // The figures of each (day, currency), as the books' counters sum the orders.
  const figures = new Map();
  const thousandths = (amount) => Math.round(Number(amount) * 1000);
  let seed = 7;
  const next = () => ((seed = (seed * 48271) % 2147483647) % 1000) / 1000;
  for (let back = 29; back >= 2; back -= 1) {
    const day = today - back;
    const count = 3 + Math.floor(next() * 6) + (back % 7 === 3 ? 6 : 0);
    for (let index = 0; index < count; index += 1) {
      const currency = next() < 0.7 ? "USD" : "EUR";
      const roll = next();
      const state = roll < 0.08 ? "failed" : roll < 0.16 ? "partial" : roll < 0.2 ? "rejected" : "successful";
      const lines =
        currency === "USD"
          ? [
              { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: String(5 + Math.floor(next() * 40)) },
              ...(next() < 0.4 ? [{ sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: "3" }] : []),
              ...(next() < 0.3 ? [{ sku: "DEMO-GB-FIXED", supplier: "inventory", quantity: 1, amount: "26.4" }] : []),
            ]
          : [{ sku: "DEMO-EU-FIXED", supplier: "inventory", quantity: 1, amount: next() < 0.5 ? "10" : "25" }];
      const total = lines.reduce((sum, line) => sum + Number(line.amount), 0);
      const ended = lines.map((line, at) => ({
        ...line,
        outcome:
          state === "failed" || (state === "partial" && at === lines.length - 1) || state === "rejected"
            ? "failed"
            : "delivered",
      }));
      const charged = state === "rejected" ? 0 : total;
      const refunded = state === "failed" ? total : state === "partial" ? Number(lines[lines.length - 1].amount) : 0;
      // The order's time within its day (drawn so that the month stays the same): the figures count days.
      next();
      const key = `${day} ${currency}`;
      const figure = figures.get(key) ?? {
        day,
        currency,
        orders: 0,
        states: { successful: 0, partial: 0, failed: 0, rejected: 0 },
        total: 0,
        charged: 0,
        refunded: 0,
        lines: {},
      };
      figures.set(key, figure);
      figure.orders += 1;
      figure.states[state] += 1;
      figure.total += thousandths(total);
      figure.charged += thousandths(charged);
      figure.refunded += thousandths(refunded);
      for (const line of state === "rejected" ? [] : ended) {
        const name = `${line.sku}\u0000${line.supplier}\u0000${line.outcome}`;
        const sum = (figure.lines[name] ??= { lines: 0, quantity: 0, amount: 0 });
        sum.lines += 1;
        sum.quantity += line.quantity;
        sum.amount += thousandths(line.amount);
      }
    }
  }
  const publishedAt = Date.now();
  for (const figure of figures.values())
    statements.push(
      `INSERT INTO books_days (client_id, day, currency, part, orders, open, successful, partial, failed, rejected, total, charged, refunded, lines, changes, published_at) VALUES ('history', ${figure.day}, ${quote(figure.currency)}, 0, ${figure.orders}, 0, ${figure.states.successful}, ${figure.states.partial}, ${figure.states.failed}, ${figure.states.rejected}, ${figure.total}, ${figure.charged}, ${figure.refunded}, ${quote(JSON.stringify(figure.lines))}, ${figure.orders}, ${publishedAt}) ON CONFLICT (client_id, day, currency, part) DO NOTHING;`,
    );
  // DEMO-GB-FIXED: 40 codes uploaded 29 days ago and 15 more 12 days ago; 1 to 3 sold a day.
  // Uploaded, then sold by an update, as a sale writes it.
  const code = (pin, created, soldAt) =>
    `INSERT INTO codes (sku, value, pin, link, created_at) VALUES ('DEMO-GB-FIXED', '20', ${quote(pin)}, ${quote(`https://redeem.example.com/gb/${pin}`)}, ${created});` +
    (soldAt === null
      ? ""
      : `UPDATE codes SET status = 'sold', order_id = 'ord_history_codes', sold_at = ${soldAt} WHERE pin = ${quote(pin)};`);
  const uploads = [
    ...Array.from({ length: 40 }, () => (today - 29) * DAY + 3_600_000),
    ...Array.from({ length: 15 }, () => (today - 12) * DAY + 3_600_000),
  ];
  let sold = 0;
  for (let back = 28; back >= 2; back -= 1) {
    const perDay = 1 + Math.floor(next() * 3);
    for (let count = 0; count < perDay && sold < uploads.length - 8; count += 1) {
      statements.push(code(`HIST-${run}-${sold}`, uploads[sold], (today - back) * DAY + 7_200_000 + count));
      sold += 1;
    }
  }
  for (let index = sold; index < uploads.length; index += 1)
    statements.push(code(`HIST-${run}-${index}`, uploads[index], null));
  d1(statements.join("\n"), "write the month of history");
}

let browser;
try {
  const started = Date.now();
  while (!output.includes("Demo ready")) {
    if (Date.now() - started > 180_000 || server.exitCode !== null) {
      console.error(output);
      throw new Error("the service did not get ready in 180 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const token = adminToken();
  const run = Date.now().toString(36);

  // What the steps need, made through the operator and client APIs.
  const operators = {};
  for (const role of ["viewer", "operator", "admin"]) {
    operators[role] = await api(
      "POST",
      "/admin/operators",
      { name: `${role[0].toUpperCase()}${role.slice(1)} of the console check`, role },
      token,
    );
  }
  const client = await send(`${base}/order/create`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_demo", "content-type": "application/json" },
    body: JSON.stringify({
      productList: [{ sku: "DEMO-EU-FIXED", productType: "fixed", quote: 10, quantity: 1 }],
      wallet: "USD",
      reference: `check-${run}`,
    }),
  });
  const order = (await client.json()).data;
  await send(`${base}/order/confirm`, {
    method: "PUT",
    headers: { authorization: "Bearer sk_test_demo", "content-type": "application/json" },
    body: JSON.stringify({ orderId: order.id }),
  });
  // The probe in every free text a client or an operator writes that the pages show.
  await send(`${base}/order/create`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_demo", "content-type": "application/json" },
    body: JSON.stringify({
      productList: [{ sku: "DEMO-US-RANGE", productType: "range", quote: 5, quantity: 1 }],
      wallet: "USD",
      reference: PROBE,
    }),
  });
  await api("POST", "/admin/clients", { id: `probe-${run}`, name: PROBE }, token);
  await api(
    "PUT",
    "/admin/products/PROBE-SKU",
    {
      productType: "fixed",
      name: PROBE,
      currency: "EUR",
      country: "DE",
      region: PROBE,
      quotes: ["10"],
      supplier: "inventory",
    },
    token,
  );
  await api("PUT", "/admin/products/PROBE-SKU/low-stock-threshold", { threshold: 5 }, token);
  await api("PUT", "/admin/products/DEMO-GB-FIXED/low-stock-threshold", { threshold: 20 }, token);
  await api("PUT", "/admin/wallets/demo/EUR/low-balance-threshold", { threshold: "500" }, token);
  await api(
    "POST",
    "/admin/wallets/demo/USD/adjustments",
    { amount: "-0.01", idempotencyKey: `probe-${run}`, reason: PROBE },
    token,
  );
  await api("POST", "/admin/clients", { id: "history", name: "A month of history" }, token);
  for (const [currency, amount] of [
    ["USD", "2500"],
    ["EUR", "400"],
  ])
    await api(
      "POST",
      `/admin/wallets/history/${currency}/top-ups`,
      { amount, idempotencyKey: `history-${currency}-${run}`, reason: "the history's wallets" },
      token,
    );
  insertHistory(run);
  for (const role of ["viewer", "operator", "admin"]) insertDeadLetter(`evt_check_${role}_${run}`, `HTTP 503 ${PROBE}`);
  const letters = (await api("GET", "/admin/webhooks/dead-letters?clientId=demo&limit=200", undefined, token))
    .deadLetters;
  const letterOf = (role) => letters.find((letter) => letter.eventId === `evt_check_${role}_${run}`).id;

  browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  mkdirSync(shots, { recursive: true });
  const shot = new Set();

  for (const role of ["viewer", "operator", "admin"]) {
    console.log(`\nas ${role}:`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const dialogs = [];
    const elsewhere = [];
    const errors = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== base && url.protocol !== "data:") elsewhere.push(request.url());
    });
    page.on("pageerror", (error) => errors.push(String(error)));

    /** axe-core in the page (evaluated through the driver: the page's policy allows no inline script). */
    async function accessible(name) {
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () =>
        (await globalThis.axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.length,
        })),
      );
      const bad = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
      check(
        `${role}: ${name} has no serious or critical axe violation`,
        bad.length === 0,
        bad.map((v) => `${v.id} (${v.impact}, ${v.nodes} nodes)`).join(", "),
      );
    }
    async function visit(path, name, file) {
      const response = await page.goto(`${base}${path}`);
      check(`${role}: GET ${path.split("?")[0]} answers 200`, response?.status() === 200, String(response?.status()));
      await accessible(name);
      if (file !== undefined && !shot.has(file) && role === "admin") {
        await page.screenshot({ path: join(shots, `${file}.png`), fullPage: true });
        shot.add(file);
      }
    }
    async function shoot(file) {
      if (!shot.has(file) && role === "admin") {
        await page.screenshot({ path: join(shots, `${file}.png`), fullPage: true });
        shot.add(file);
      }
    }
    /** A form post from this page's origin with the session's cookie, as a re-sent or forged form would arrive. */
    const post = (path, form) =>
      page.request.post(`${base}${path}`, { form, headers: { origin: base }, maxRedirects: 0 });

    // 1. Sign in.
    await visit("/console/sign-in", "sign-in", "sign-in");
    await page.fill("#token", operators[role].token);
    await Promise.all([page.waitForURL(`${base}/console`), page.click("button[type=submit]")]);
    check(
      `${role}: 1. signs in and lands on Needs attention`,
      (await page.textContent("h1"))?.includes("Needs attention") === true,
    );
    await accessible("Needs attention");
    await shoot("needs-attention");

    // 2. Search the order by its client and a reference prefix, and open its timeline from the results.
    // The order writes its row to the index a couple of seconds after each change, with no step of anyone's:
    // the search is sent again until the order is listed.
    const result = page.locator(`a[href="/console/orders/${order.id}"]`);
    for (let attempt = 0; attempt < 40; attempt += 1) {
      await visit("/console/orders", "orders");
      await page.fill("#field-clientId", "demo");
      await page.fill("#field-reference", `check-${run}`.slice(0, -2));
      await Promise.all([page.waitForURL(/\/console\/orders\?/), page.click("button:text('Search')")]);
      if ((await result.count()) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await accessible("orders search results");
    await shoot("orders");
    await Promise.all([page.waitForURL(new RegExp(`/console/orders/${order.id}$`)), result.first().click()]);
    const timeline = await page.textContent("main");
    check(
      `${role}: 2. finds the order by client and reference prefix and opens its timeline`,
      timeline?.includes("Timeline") === true && timeline.includes(`check-${run}`),
    );
    await accessible("order");
    await shoot("order");

    // 3. A top-up posted twice from one drawn form lands once.
    await visit("/console/wallets/demo/USD", "wallet", "wallet");
    const ledgerBefore = (await api("GET", "/admin/wallets/demo/USD/ledger?limit=200", undefined, token)).entries
      .length;
    const topUpForm = page.locator("form:has(input[name=action][value=top-up])");
    if (role === "viewer") {
      const refused = await post("/console/wallets/demo/USD", {
        action: "top-up",
        formKey: `console-${crypto.randomUUID()}`,
        amount: "5",
        reason: "viewer",
      });
      check(
        `${role}: 3. is shown no top-up form, and a posted one is refused`,
        (await topUpForm.count()) === 0 && refused.status() === 403,
        String(refused.status()),
      );
    } else {
      await topUpForm.locator("input[name=amount]").fill("12.34");
      await topUpForm.locator("input[name=reason]").fill(`console check ${role}`);
      const fields = Object.fromEntries(
        await topUpForm.locator("input").evaluateAll((inputs) => inputs.map((input) => [input.name, input.value])),
      );
      await Promise.all([
        page.waitForResponse((answer) => answer.request().method() === "POST"),
        topUpForm.locator("button[type=submit]").click(),
      ]);
      await page.waitForLoadState("load");
      const again = await post("/console/wallets/demo/USD", fields);
      const ledger = (await api("GET", "/admin/wallets/demo/USD/ledger?limit=200", undefined, token)).entries;
      const mine = ledger.filter((entry) => entry.reason === `console check ${role}`);
      check(
        `${role}: 3. one form sent twice posts once`,
        ledger.length === ledgerBefore + 1 && mine.length === 1 && mine[0].amount === 12.34,
        `entries +${ledger.length - ledgerBefore}, second answer ${again.status()}`,
      );
    }

    // 4. A CSV with one bad row is refused, and the report names that row.
    await visit("/console/catalogue", "catalogue", "catalogue");
    await visit("/console/catalogue/DEMO-EU-FIXED", "SKU", "sku");
    const stockBefore = await api("GET", "/admin/products/DEMO-EU-FIXED/codes", undefined, token);
    if (role === "viewer") {
      const refused = await post("/console/catalogue/DEMO-EU-FIXED", { action: "threshold", threshold: "3" });
      check(
        `${role}: 4. is shown no upload form, and a posted change is refused`,
        (await page.locator("#upload-file").count()) === 0 && refused.status() === 403,
        String(refused.status()),
      );
    } else {
      const csv = `value,pin,link\n10,CHECK-${role}-${run}-1,https://redeem.example.com/1\n7,CHECK-${role}-${run}-2,https://redeem.example.com/2\n25,CHECK-${role}-${run}-3,https://redeem.example.com/3\n`;
      await page.setInputFiles("#upload-file", { name: "codes.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await Promise.all([
        page.waitForResponse((answer) => answer.request().method() === "POST"),
        page.click('button:has-text("Upload codes")'),
      ]);
      await page.waitForLoadState("load");
      const report = (await page.textContent("#report-heading + p, main")) ?? "";
      const row = await page
        .locator("tr", { hasText: `CHECK-${role}-${run}-2` })
        .textContent()
        .catch(() => "");
      const stockAfter = await api("GET", "/admin/products/DEMO-EU-FIXED/codes", undefined, token);
      check(
        `${role}: 4. the upload report names the bad row and nothing is added`,
        report.includes("nothing was added") &&
          row?.includes("Row 2") === true &&
          row.includes("7 is not one of the quotes") &&
          JSON.stringify(stockAfter) === JSON.stringify(stockBefore),
        row ?? "",
      );
      await accessible("upload report");
      await shoot("upload-report");
    }

    // 5. Replay a dead letter.
    await visit("/console/dead-letters", "dead letters", "dead-letters");
    const letter = letterOf(role);
    if (role === "viewer") {
      const refused = await post("/console/dead-letters", { id: String(letter) });
      check(
        `${role}: 5. is shown no replay button, and a posted replay is refused`,
        (await page.locator(`button[aria-label="Replay dead letter ${letter}"]`).count()) === 0 &&
          refused.status() === 403,
        String(refused.status()),
      );
    } else {
      await Promise.all([
        page.waitForURL(new RegExp(`notice=replayed&id=${letter}$`)),
        page.click(`button[aria-label="Replay dead letter ${letter}"]`),
      ]);
      const replayed = (
        await api("GET", "/admin/webhooks/dead-letters?status=replayed&clientId=demo&limit=200", undefined, token)
      ).deadLetters.some((entry) => entry.id === letter);
      check(`${role}: 5. replays a dead letter`, replayed);
      await accessible("dead letters after a replay");
    }

    // 6. A change the role may not make is refused and changes nothing.
    const before = (await api("GET", "/admin/wallets/demo/USD/ledger?limit=200", undefined, token)).entries.length;
    if (role === "viewer") {
      const refused = await post("/console/wallets/demo/USD", {
        action: "adjustment",
        formKey: `console-${crypto.randomUUID()}`,
        amount: "-1",
        reason: "viewer",
      });
      const after = (await api("GET", "/admin/wallets/demo/USD/ledger?limit=200", undefined, token)).entries.length;
      check(
        `${role}: 6. a viewer's change is refused`,
        refused.status() === 403 && after === before,
        String(refused.status()),
      );
    } else if (role === "operator") {
      const refused = await post("/console/catalogue", { base: "USD", target: "SEK", rate: "10" });
      check(
        `${role}: 6. an admin's change (an exchange rate) is refused`,
        refused.status() === 403,
        String(refused.status()),
      );
    } else {
      const refused = await post("/console/catalogue", { base: "USD", target: "SEK", rate: "10" });
      check(
        `${role}: 6. an admin's change is allowed (the refusals are the viewer's and the operator's)`,
        refused.status() === 303,
        String(refused.status()),
      );
    }

    // The approval limits: every role reads them (and what it may still move alone); only an admin changes one.
    await visit("/console/limits", "approval limits");

    // The reconciliation: any role runs it now over the last day, and the page shows what it found.
    await visit("/console/reconciliation", "reconciliation");
    await Promise.all([
      page.waitForResponse(
        (response) => response.url().endsWith("/console/reconciliation") && response.request().method() === "POST",
      ),
      page.click("button:text('Run now over the last day')"),
    ]);
    await page.waitForLoadState("load");
    await accessible("reconciliation after a run");
    await shoot("reconciliation");
    // The month of history written above is index rows and sold codes with no order or ledger behind them:
    // a run that covers its days (the first stored one) names them, and must name nothing else.
    const named = await page.$$eval("section[aria-labelledby=mismatches-heading] tbody tr", (rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "")),
    );
    const foreign = named.filter(
      (cells) => cells[1] !== "history" && !cells.some((cell) => cell.includes("ord_history")),
    );
    check(
      `${role}: runs the reconciliation now, and it finds no mismatch but the seeded history's`,
      /Mismatches \(\d+\)/.test((await page.textContent("main")) ?? "") && foreign.length === 0,
      JSON.stringify(foreign.slice(0, 3)),
    );

    // The charts, as a viewer: each page's charts are there, each an image named by its title and
    // description, with its sentence and its table of numbers; a screenshot of each page's charts.
    if (role === "viewer") {
      const chartPages = [
        ["/console", "home page", "charts-home", "section[aria-labelledby=glance-heading]", 5],
        // The history's wallet: its spend is the month of published figures written above. The demo
        // wallet's orders of this run are in its books, but its day is published within the hour.
        [
          "/console/wallets/history/USD",
          "wallet",
          "charts-wallet",
          "section[aria-labelledby=wallet-figures-heading]",
          2,
        ],
        ["/console/catalogue/DEMO-GB-FIXED", "SKU", "charts-sku", "section[aria-labelledby=sku-figures-heading]", 1],
        ["/console/clients/history", "client", "charts-client", "section[aria-labelledby=client-figures-heading]", 2],
      ];
      for (const [path, name, file, section, least] of chartPages) {
        await visit(path, `${name} with its charts`);
        const charts = await page.evaluate(() =>
          [...document.querySelectorAll("figure.chart-figure")].map((figure) => {
            const svg = figure.querySelector("svg[role=img]");
            const named = (svg?.getAttribute("aria-labelledby") ?? "")
              .split(" ")
              .map((id) => document.getElementById(id)?.textContent?.trim() ?? "");
            return {
              id: figure.id,
              named: named.length === 2 && named.every((text) => text.length > 0),
              summary: figure.querySelector(".chart-summary")?.textContent?.trim() ?? "",
              rows: figure.querySelectorAll("table tbody tr").length,
              drawn: (svg?.querySelectorAll("rect, polyline, circle").length ?? 0) > 0,
            };
          }),
        );
        check(
          `${role}: the ${name}'s charts are drawn, each with its title, description, sentence and table`,
          charts.length >= least &&
            charts.every((chart) => chart.named && chart.summary.length > 0 && chart.rows > 0 && chart.drawn),
          JSON.stringify(
            charts
              .filter((chart) => !chart.named || chart.summary === "" || chart.rows === 0 || !chart.drawn)
              .map((chart) => chart.id),
          ) + ` of ${charts.length}`,
        );
        await page.locator(section).screenshot({ path: join(shots, `${file}.png`) });
      }
    }

    // 7. The probe, wherever it was written, is text: nothing runs, no image is made.
    const probePages = [
      ["/console", "Needs attention"],
      [`/console/orders?clientId=demo&reference=${encodeURIComponent(PROBE)}`, "order with the probe reference"],
      [`/console/clients/probe-${run}`, "client with the probe name"],
      ["/console/catalogue/PROBE-SKU", "SKU with the probe name"],
      ["/console/wallets/demo/USD", "wallet with the probe reason"],
      ["/console/dead-letters", "dead letters with the probe error"],
      ["/console/audit", "audit log"],
    ];
    for (const [path, name] of probePages) {
      await visit(path, name, path === "/console/audit" ? "audit" : undefined);
      const shown = (await page.textContent("main")) ?? "";
      const images = await page.evaluate(() => document.querySelectorAll("img").length);
      check(
        `${role}: 7. ${name}: the probe is shown as text and made no element`,
        shown.includes(PROBE) && images === 0,
        `images ${images}`,
      );
    }
    check(`${role}: 7. no script ran (no dialog)`, dialogs.length === 0, dialogs.join(", "));

    // 8. Sign out: the session ends on the server.
    await Promise.all([page.waitForURL(`${base}/console/sign-in`), page.click("text=Sign out")]);
    await page.goto(`${base}/console`);
    check(
      `${role}: 8. signs out, and /console asks to sign in again`,
      page.url() === `${base}/console/sign-in`,
      page.url(),
    );

    check(`${role}: every request stayed on this Worker`, elsewhere.length === 0, [...new Set(elsewhere)].join(", "));
    if (errors.length > 0) console.log(`browser errors (not fatal):\n  ${errors.join("\n  ")}`);
    await context.close();
  }
} catch (error) {
  failures.push(error instanceof Error ? error.message : String(error));
  console.error(
    `FAIL ${error instanceof Error ? error.stack : error}${error?.cause ? ` (cause: ${error.cause})` : ""}`,
  );
  console.error(output.slice(-3000));
} finally {
  await browser?.close();
  server.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  rmSync(state, { recursive: true, force: true });
}
console.log(
  `\ncheck:console: ${passed.length} checks passed, ${failures.length} failed${failures.length > 0 ? `:\n  ${failures.join("\n  ")}` : ""}`,
);
process.exit(failures.length > 0 ? 1 : 0);
