/**
 * The console inside workerd: its files (htmx as pinned, the stylesheet), its security headers on every
 * answer, sessions (sign-in, sign-out, a 303 to sign-in without one), the Origin check on every POST,
 * roles (a viewer's change refused and nothing written), escaping of what clients and operators wrote, the
 * wallet form that posts once however often it is sent, and the audited reveal of a redeem code.
 */
import { env, exports } from "cloudflare:workers";
import { recordAnswers } from "../../src/books/books-writer";
import { beforeAll, describe, expect, it } from "vitest";
import htmxSource from "../../node_modules/htmx.org/dist/htmx.min.js?raw";
import htmxPackage from "../../node_modules/htmx.org/package.json";
import projectPackage from "../../package.json";
import { HTMX_FILE, HTMX_VERSION, STYLESHEET_FILE } from "../../src/console/assets";
import { CONTENT_SECURITY_POLICY } from "../../src/console/console-routes";
import { maskedCode } from "../../src/orders/redeem-rules";
import { admin, FIXED_PRODUCT } from "../admin-helpers";
import {
  BASE,
  call,
  confirmOrder,
  createOrder,
  DEMO_KEY,
  ledgerSumOf,
  balanceOf,
  line,
  orderStub,
  seedDemo,
  topUp,
} from "../helpers";
import {
  fetchConsole,
  formKeyOf,
  newOperator,
  ORIGIN,
  PROBE,
  PROBE_ESCAPED,
  signedIn,
  type Page,
} from "./console-helpers";
import { indexNow, storedOrder } from "../order-helpers";

const EXPECTED_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function expectSecured(page: Page, cache = "no-store") {
  expect(page.headers.get("content-security-policy")).toBe(EXPECTED_POLICY);
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("referrer-policy")).toBe("same-origin");
  expect(page.headers.get("cache-control")).toBe(cache);
}

/** No markup a client or an operator wrote: the probe only ever escaped, and no inline script or style. */
function expectInert(page: Page) {
  expect(page.text).not.toContain(PROBE);
  // Form fields' values are left out: the probe escaped into one (a search field's value) is text there.
  const markup = page.text.replace(/\svalue="[^"]*"/g, ' value=""');
  expect(markup).not.toMatch(/<img|<script(?![^>]*src="\/console\/htmx-)|<style|<[^>]*\s(?:on[a-z]+|style)\s*=/i);
}

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
  await topUp("demo", "EUR", "1000");
});

describe("the console's files", () => {
  it("serves htmx exactly as installed, pinned, cached for good", async () => {
    expect(HTMX_VERSION).toBe(htmxPackage.version);
    expect(projectPackage.devDependencies["htmx.org"]).toBe(HTMX_VERSION);
    const file = await fetchConsole("GET", `/console/${HTMX_FILE}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expectSecured(file, "public, max-age=31536000, immutable");
    expect(file.text).toBe(htmxSource);
  });

  it("serves its stylesheet, cached for good under its name", async () => {
    const file = await fetchConsole("GET", `/console/${STYLESHEET_FILE}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expectSecured(file, "public, max-age=31536000, immutable");
    expect(file.text).toContain(":focus-visible");
  });
});

const PAGES = [
  "/console",
  "/console/orders",
  "/console/clients",
  "/console/clients/demo",
  "/console/wallets",
  "/console/wallets?clientId=demo",
  "/console/wallets/demo/USD",
];

describe("sessions", () => {
  it("sends every page without a session to sign-in (303), with the security headers", async () => {
    for (const path of [...PAGES, "/console/orders/ord_x", "/console/nope"]) {
      const page = await fetchConsole("GET", path);
      expect([path, page.status, page.headers.get("location")]).toEqual([path, 303, "/console/sign-in"]);
      expectSecured(page);
    }
    const forged = await fetchConsole("GET", "/console/clients", { cookie: "__Host-console_session=00.11" });
    expect(forged.status).toBe(303);
  });

  it("signs in with an operator token into a __Host- cookie, refuses an unknown one at the field, and signs out on the server", async () => {
    const form = await fetchConsole("GET", "/console/sign-in");
    expect(form.status).toBe(200);
    expectSecured(form);
    expect(form.text).toContain('<label for="token">Operator token</label>');

    const refused = await fetchConsole("POST", "/console/sign-in", { form: { token: "not-a-token" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(refused.text).toContain('aria-invalid="true" aria-describedby="token-error"');
    expect(refused.text).toContain('id="token-error"');

    const token = await newOperator("viewer");
    const answer = await fetchConsole("POST", "/console/sign-in", { form: { token } });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/console");
    const setCookie = answer.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^__Host-/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Secure/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    const cookie = setCookie.split(";")[0]!;
    expect((await fetchConsole("GET", "/console/orders", { cookie })).status).toBe(200);

    const out = await fetchConsole("POST", "/console/sign-out", { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/console/sign-in");
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    // Ended on the server: the old cookie, sent again, is no session.
    expect((await fetchConsole("GET", "/console/orders", { cookie })).status).toBe(303);
  });

  it("reads the sign-in form within the forms' limit as it arrives: 413, and no session", async () => {
    const big = await fetchConsole("POST", "/console/sign-in", { form: { token: "x".repeat(17 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.headers.get("set-cookie")).toBeNull();
    // 20 KiB, then a body that never ends: a sign-in that read the whole body first would wait forever.
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`token=${"x".repeat(20 * 1024)}`));
      },
    });
    const answer = await exports.default.fetch(
      new Request(`${BASE}/console/sign-in`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
        body: endless,
        redirect: "manual",
      }),
    );
    expect(answer.status).toBe(413);
    expect(answer.headers.get("set-cookie")).toBeNull();
    // A body that is no form holds no token: 401, as before.
    const unreadable = await exports.default.fetch(
      new Request(`${BASE}/console/sign-in`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "multipart/form-data; boundary=x" },
        body: "not a multipart body",
        redirect: "manual",
      }),
    );
    expect(unreadable.status).toBe(401);
  }, 10_000);

  it("sends every page with the security headers and no inline script or style", async () => {
    const cookie = await signedIn("admin");
    for (const path of PAGES) {
      const page = await fetchConsole("GET", path, { cookie });
      expect([path, page.status]).toEqual([path, 200]);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expectSecured(page);
      expectInert(page);
      expect(page.text).toContain('<a class="skip" href="#main">Skip to content</a>');
    }
    expect(CONTENT_SECURITY_POLICY).toBe(EXPECTED_POLICY);
  });
});

describe("changes", () => {
  it("are refused (403) without this origin's Origin header, and change nothing", async () => {
    const cookie = await signedIn("admin");
    const page = await fetchConsole("GET", "/console/wallets/demo/USD", { cookie });
    const formKey = formKeyOf(page.text, "top-up");
    const before = await balanceOf("demo", "USD");
    for (const origin of [null, "https://evil.example", "null", "http://orders.test:8080"]) {
      const answer = await fetchConsole("POST", "/console/wallets/demo/USD", {
        cookie,
        origin,
        form: { action: "top-up", formKey, amount: "5", reason: "x" },
      });
      expect([origin, answer.status]).toEqual([origin, 403]);
      expectSecured(answer);
    }
    const signInFromElsewhere = await fetchConsole("POST", "/console/sign-in", {
      origin: "https://evil.example",
      form: { token: await newOperator("admin") },
    });
    expect(signInFromElsewhere.status).toBe(403);
    expect(signInFromElsewhere.headers.get("set-cookie")).toBeNull();
    expect(await balanceOf("demo", "USD")).toBe(before);
  });

  it("are refused (403) for a role that may not make them, and change nothing", async () => {
    const viewer = await signedIn("viewer");
    const page = await fetchConsole("GET", "/console/wallets/demo/USD", { cookie: viewer });
    expect(page.text).not.toContain('name="formKey"');
    const before = await balanceOf("demo", "USD");
    const topUp = await fetchConsole("POST", "/console/wallets/demo/USD", {
      cookie: viewer,
      form: { action: "top-up", formKey: `console-${crypto.randomUUID()}`, amount: "5", reason: "viewer" },
    });
    expect(topUp.status).toBe(403);
    expect(topUp.text).toContain("Your role (viewer) may not make this change; it needs operator.");
    expect(await balanceOf("demo", "USD")).toBe(before);

    // An operator posts to wallets, but clients are the admin's.
    const operator = await signedIn("operator");
    const create = await fetchConsole("POST", "/console/clients", {
      cookie: operator,
      form: { id: "by-operator", name: "x" },
    });
    expect(create.status).toBe(403);
    expect(await env.DB.prepare(`SELECT id FROM clients WHERE id = 'by-operator'`).first()).toBeNull();
  });
});

describe("the wallet form", () => {
  it("posts once however often one drawn form is sent, and its audit row names the operator", async () => {
    const cookie = await signedIn("operator", "Olga Operator");
    const page = await fetchConsole("GET", "/console/wallets/demo/EUR", { cookie });
    expect(page.status).toBe(200);
    const formKey = formKeyOf(page.text, "top-up");
    const before = await balanceOf("demo", "EUR");
    const form = { action: "top-up", formKey, amount: "12.50", reason: "double submit" };
    const first = await fetchConsole("POST", "/console/wallets/demo/EUR", { cookie, form });
    const second = await fetchConsole("POST", "/console/wallets/demo/EUR", { cookie, form });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/console/wallets/demo/EUR?notice=top-up");
    expect(second.status).toBe(303);
    expect(second.headers.get("location")).toBe("/console/wallets/demo/EUR?notice=replayed");
    expect(Number(await balanceOf("demo", "EUR")) - Number(before)).toBe(12.5);
    expect(await balanceOf("demo", "EUR")).toBe(await ledgerSumOf("demo", "EUR"));
    const { results } = await env.DB.prepare(
      `SELECT * FROM audit_log WHERE action = 'wallet.top_up' AND details LIKE ?1`,
    )
      .bind(`%${formKey}%`)
      .all();
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0])).toContain("Olga Operator");

    // A fresh drawing of the page is a new form with a new key.
    const again = await fetchConsole("GET", "/console/wallets/demo/EUR?notice=replayed", { cookie });
    expect(formKeyOf(again.text, "top-up")).not.toBe(formKey);
    expect(again.text).toContain("That form was already posted: nothing more was written.");
  });

  it("opens a client's new wallet with a first top-up", async () => {
    const cookie = await signedIn("operator");
    const led = await fetchConsole("GET", "/console/wallets?clientId=demo&currency=gbp", { cookie });
    expect(led.status).toBe(303);
    expect(led.headers.get("location")).toBe("/console/wallets/demo/GBP");
    const page = await fetchConsole("GET", "/console/wallets/demo/GBP", { cookie });
    expect(page.text).toContain("has no GBP wallet yet; a top-up opens it.");
    const formKey = formKeyOf(page.text, "top-up");
    const posted = await fetchConsole("POST", "/console/wallets/demo/GBP", {
      cookie,
      form: { action: "top-up", formKey, amount: "20", reason: "first" },
    });
    expect(posted.status).toBe(303);
    expect(await balanceOf("demo", "GBP")).toBe("20");
    expect((await fetchConsole("GET", "/console/wallets?clientId=demo", { cookie })).text).toContain(
      '<a href="/console/wallets/demo/GBP">GBP</a>',
    );
  });

  it("shows a refused amount at its field and writes nothing", async () => {
    const cookie = await signedIn("operator");
    const page = await fetchConsole("GET", "/console/wallets/demo/EUR", { cookie });
    const formKey = formKeyOf(page.text, "adjustment");
    const before = await balanceOf("demo", "EUR");
    const answer = await fetchConsole("POST", "/console/wallets/demo/EUR", {
      cookie,
      form: { action: "adjustment", formKey, amount: "-99999999", reason: "too much" },
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('aria-invalid="true"');
    expect(answer.text).toMatch(/id="field-amount-error" class="error">That would take the balance below zero/);
    // The refused form keeps its key: nothing was written under it.
    expect(formKeyOf(answer.text, "adjustment")).toBe(formKey);
    expect(await balanceOf("demo", "EUR")).toBe(before);
  });
});

describe("escaping", () => {
  it("shows a client's name, an order's reference and a posting's reason only as text", async () => {
    const named = await fetchConsole("GET", "/console", { cookie: await signedIn("viewer", PROBE) });
    expectInert(named);
    expect(named.text).toContain(`Signed in as <strong>${PROBE_ESCAPED}</strong>`);

    const cookie = await signedIn("admin", "Plain Admin");
    const created = await fetchConsole("POST", "/console/clients", {
      cookie,
      form: { id: "probe", name: PROBE, keyLabel: PROBE, region: "weur" },
    });
    expect(created.status).toBe(200);
    expectInert(created);
    expect(created.text).toContain(PROBE_ESCAPED);
    const apiKey = /<dt>API key<\/dt><dd class="mono">(sk_test_[^<]+)<\/dd>/.exec(created.text)![1]!;

    const wallet = await fetchConsole("GET", "/console/wallets/probe/USD", { cookie });
    const formKey = formKeyOf(wallet.text, "top-up");
    expect(
      (
        await fetchConsole("POST", "/console/wallets/probe/USD", {
          cookie,
          form: { action: "top-up", formKey, amount: "100", reason: PROBE },
        })
      ).status,
    ).toBe(303);

    const order = await createOrder({ reference: PROBE, productList: [line("DEMO-US-RANGE", 5)] }, apiKey);
    expect(order.status).toBe(200);
    const orderId = order.body.data.id as string;
    const found = await fetchConsole("GET", `/console/orders?clientId=probe&reference=${encodeURIComponent(PROBE)}`, {
      cookie,
    });
    // Still created, so not in the index: found through the order object by its exact reference, shown.
    expect(found.status).toBe(200);
    expectInert(found);
    expect(found.text).toContain("Found by its exact reference");
    expect(found.text).toContain(`href="/console/orders/${orderId}"`);
    expect(found.text).toContain(PROBE_ESCAPED);

    for (const path of [
      "/console/clients",
      "/console/clients/probe",
      "/console/wallets?clientId=probe",
      "/console/wallets/probe/USD",
      `/console/orders/${orderId}`,
    ]) {
      const page = await fetchConsole("GET", path, { cookie });
      expect([path, page.status]).toEqual([path, 200]);
      expectInert(page);
      expect([path, page.text.includes(PROBE_ESCAPED)]).toEqual([path, true]);
    }
  });
});

describe("the order page", () => {
  it("finds an order by id, shows its timeline with codes masked, and reveals one only as an audited POST", async () => {
    const order = await createOrder({ productList: [line("DEMO-EU-FIXED", 10)], wallet: "EUR" }, DEMO_KEY);
    const orderId = order.body.data.id as string;
    expect((await confirmOrder(orderId)).status).toBe(200);
    await expect
      .poll(async () => (await call("GET", `/order/get?orderId=${orderId}`)).body.data.state, { timeout: 10_000 })
      .toBe("successful");
    const pin = (await call("GET", `/order/get?orderId=${orderId}`)).body.data.redeem["DEMO-EU-FIXED"]
      .redeemPin[0] as string;

    const viewer = await signedIn("viewer");
    const byId = await fetchConsole("GET", `/console/orders?orderId=${orderId}`, { cookie: viewer });
    expect(byId.headers.get("location")).toBe(`/console/orders/${orderId}`);
    const page = await fetchConsole("GET", `/console/orders/${orderId}`, { cookie: viewer });
    expect(page.status).toBe(200);
    expect(page.text).toContain("<strong>created</strong>");
    expect(page.text).toContain("<strong>charged</strong>");
    expect(page.text).toContain("<strong>successful</strong>");
    expect(page.text).not.toContain(pin);
    expect(page.text).toContain(maskedCode(pin));
    expect(
      (await fetchConsole("POST", `/console/orders/${orderId}`, { cookie: viewer, form: { line: "0", pin: "0" } }))
        .status,
    ).toBe(403);

    const cookie = await signedIn("operator", "Rita Revealer");
    const revealed = await fetchConsole("POST", `/console/orders/${orderId}`, {
      cookie,
      form: { line: "0", pin: "0" },
    });
    expect(revealed.status).toBe(200);
    expectSecured(revealed);
    expect(revealed.text).toContain(pin);
    const row = await env.DB.prepare(`SELECT * FROM audit_log WHERE action = 'order.code_revealed' AND target = ?1`)
      .bind(`order:${orderId}`)
      .first();
    expect(JSON.stringify(row)).toContain("Rita Revealer");
  });

  it("masks a short code whole, as the API does", async () => {
    expect((await admin("PUT", "/admin/products/CONSOLE-SHORT-PIN", FIXED_PRODUCT)).status).toBe(200);
    const upload = { codes: [{ value: "10", pin: "QZ7K", link: "https://r.example/QZ7K" }] };
    expect((await admin("POST", "/admin/products/CONSOLE-SHORT-PIN/codes", upload)).status).toBe(200);
    const order = await createOrder(
      { productList: [line("CONSOLE-SHORT-PIN", 10, 1, "fixed")], wallet: "EUR" },
      DEMO_KEY,
    );
    const orderId = order.body.data.id as string;
    expect((await confirmOrder(orderId)).status).toBe(200);
    await expect
      .poll(async () => (await call("GET", `/order/get?orderId=${orderId}`)).body.data.state, { timeout: 10_000 })
      .toBe("successful");
    const page = await fetchConsole("GET", `/console/orders/${orderId}`, { cookie: await signedIn("operator") });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<td class="mono">${maskedCode("QZ7K")}</td>`);
    expect(page.text).not.toContain("QZ7K");
  });

  it("says how current the index is, and offers no button to bring it up to date", async () => {
    for (const role of ["viewer", "operator"] as const) {
      const page = await fetchConsole("GET", "/console/orders", { cookie: await signedIn(role) });
      expect(page.text.replace(/\s+/g, " ")).toContain("each order writes its row within a few seconds of each change");
      expect(page.text).not.toContain("Bring the index up to date now");
    }
  });
});

describe("the order page's webhook deliveries", () => {
  it("lists each event of an order with a webhook URL, the receiver's last answer, and its dead letters", async () => {
    const order = await createOrder(
      { productList: [line("DEMO-US-RANGE", 5)], webhookUrl: "http://127.0.0.1:9/hook" },
      DEMO_KEY,
    );
    expect(order.body).toMatchObject({ data: { id: expect.any(String) } });
    const orderId = order.body.data.id as string;
    expect((await confirmOrder(orderId)).status).toBe(200);
    await expect
      .poll(async () => (await orderStub(orderId).webhookEvents()).map((event) => event.state), { timeout: 10_000 })
      .toEqual(["confirmed", "successful"]);
    const events = await orderStub(orderId).webhookEvents();
    await env.DB.prepare(
      `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at) VALUES (?1, 'demo', 'http://127.0.0.1:9/hook', ?2, 8, ?3, ?4)`,
    )
      .bind(
        events[0]!.eventId,
        JSON.stringify({ clientId: "demo", url: "http://127.0.0.1:9/hook", event: { id: events[0]!.eventId } }),
        `HTTP 500: ${PROBE}`,
        Date.now(),
      )
      .run();
    // The receiver's last answers as the queue consumer records them (answered a day ahead, so that the
    // test queue's own attempts at 127.0.0.1:9 replace neither).
    await indexNow(orderId);
    const record = await storedOrder(orderId);
    const about = (state: "confirmed" | "successful") => ({
      clientId: record.clientId,
      orderId,
      orderCreatedAt: record.createdAt,
      state,
    });
    await recordAnswers(env.BOOKS, [
      {
        ...about("confirmed"),
        eventId: events[0]!.eventId,
        attempts: 90,
        outcome: "dead_lettered",
        status: 500,
        error: `HTTP 500: ${PROBE}`,
        answeredAt: Date.now() + 86_400_000,
      },
      {
        ...about("successful"),
        eventId: events[1]!.eventId,
        attempts: 91,
        outcome: "delivered",
        status: 204,
        error: null,
        answeredAt: Date.now() + 86_400_000,
      },
    ]);
    const page = await fetchConsole("GET", `/console/orders/${orderId}`, { cookie: await signedIn("viewer") });
    expect(page.status).toBe(200);
    expectInert(page);
    expect(page.text).toContain(events[0]!.eventId);
    expect(page.text).toContain(`failed after 8 attempts`);
    expect(page.text).toContain(`HTTP 500: ${PROBE_ESCAPED}`);
    const at = `<time datetime="[^"]+Z">\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC</time>`;
    expect(page.text).toMatch(
      new RegExp(`attempt 90, ${at}: HTTP 500 \\(HTTP 500: [^<]*\\), failed; given up \\(a dead letter\\)`),
    );
    expect(page.text).toMatch(new RegExp(`attempt 91, ${at}: HTTP 204, delivered`));
  });
});

describe("the client page", () => {
  it("runs a client's keys, webhook secret, deals and state under the admin's name", async () => {
    const cookie = await signedIn("admin", "Ada Admin");
    const made = await fetchConsole("POST", "/console/clients", {
      cookie,
      form: { id: "acme-console", name: "Acme", region: "" },
    });
    expect(made.status).toBe(200);
    const firstKey = /<dt>API key<\/dt><dd class="mono">(sk_test_[^<]+)<\/dd>/.exec(made.text)![1]!;
    expect((await call("GET", "/wallets", { key: firstKey })).status).toBe(200);
    // A form sent twice meets "already exists", not a second client.
    const again = await fetchConsole("POST", "/console/clients", {
      cookie,
      form: { id: "acme-console", name: "Acme" },
    });
    expect(again.status).toBe(400);
    expect(again.text).toContain('id="field-id-error" class="error">A client with this id already exists.');

    const here = "/console/clients/acme-console";
    const issued = await fetchConsole("POST", here, { cookie, form: { action: "issue", label: "second" } });
    expect(issued.status).toBe(200);
    const secondKey = /<p class="mono">(sk_test_[^<]+)<\/p>/.exec(issued.text)![1]!;
    expect((await call("GET", "/wallets", { key: secondKey })).status).toBe(200);
    expect((await fetchConsole("GET", here, { cookie })).text).not.toContain(secondKey);

    const secret = await fetchConsole("POST", here, { cookie, form: { action: "webhook-secret" } });
    expect(secret.text).toMatch(/<p class="mono">whsec_[^<]+<\/p>/);

    const badSku = await fetchConsole("POST", here, {
      cookie,
      form: {
        action: "deal",
        sku: "NOPE",
        dealState: "active",
        fee: "1",
        feeMode: "fixed",
        discount: "0",
        discountMode: "fixed",
      },
    });
    expect(badSku.status).toBe(400);
    expect(badSku.text).toContain('id="field-sku-error" class="error">No SKU has this name.');
    const deal = await fetchConsole("POST", here, {
      cookie,
      form: {
        action: "deal",
        sku: "DEMO-US-RANGE",
        dealState: "active",
        fee: "2.5",
        feeMode: "percentage",
        discount: "0",
        discountMode: "fixed",
      },
    });
    expect(deal.status).toBe(303);
    expect((await fetchConsole("GET", here, { cookie })).text).toContain(
      "<td>DEMO-US-RANGE</td><td>active</td><td>2.5 (percentage)</td>",
    );

    const disabled = await fetchConsole("POST", here, { cookie, form: { action: "disable" } });
    expect(disabled.headers.get("location")).toBe(`${here}?notice=disabled`);
    expect((await call("GET", "/wallets", { key: firstKey })).status).toBe(403);
    const rotated = await fetchConsole("POST", here, { cookie, form: { action: "enable" } });
    expect(rotated.status).toBe(303);
    expect((await call("GET", "/wallets", { key: firstKey })).status).toBe(200);

    const { results } = await env.DB.prepare(
      `SELECT action, actor_name FROM audit_log WHERE target = 'client:acme-console' ORDER BY id`,
    ).all();
    expect(results).toEqual(
      [
        "client.create",
        "client.keys.issue",
        "client.webhook_secret.rotate",
        "deal.upsert",
        "client.disable",
        "client.enable",
      ].map((action) => ({ action, actor_name: "Ada Admin" })),
    );
  });
});
