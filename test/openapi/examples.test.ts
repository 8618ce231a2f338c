/**
 * The examples of the document. Every example (request bodies, success and error answers, webhooks) is
 * valid against its own schema; and the success examples have exactly the shape of a real answer of the
 * same operation (same keys, same types; ids, amounts and timestamps may differ), so they cannot drift
 * from what the service answers.
 */
import { env } from "cloudflare:workers";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it, vi } from "vitest";
import { allRoutes } from "../../src/app";
import { EXAMPLE_CREATE } from "../../src/orders/order-examples";
import { runAndStore } from "../../src/reconciliation/reconciliation";
import { runStep } from "../../src/exports/export-step";
import { clearTimerFailure, recordTimerFailure } from "../../src/orders/timer-failure-store";
import { keepDeadLetters } from "../../src/webhooks/dead-letter-store";
import { EXAMPLE_DEAD_LETTER_MESSAGE } from "../../src/webhooks/dead-letter-examples";
import { EXAMPLE_BALANCE_BEFORE, EXAMPLE_EXPIRED_CREATE, EXAMPLE_TOP_UP } from "../../src/sandbox/sandbox-examples";
import { EXAMPLE_SECRET } from "../../src/webhooks/webhook-docs";
import { call, DEMO_KEY, line, seedDemo, topUp, wallet, type ApiCall } from "../helpers";
import { ADMIN_TOKEN, exportSignature, madeOperator } from "../admin-helpers";
import { drainTimers, indexNow } from "../order-helpers";
import { servedDocument } from "./conformance";
import { Money } from "../../src/pricing/money";
import { FakeReceiver } from "../webhooks/receiver";

const ROUTES = await allRoutes();

type Json = any;
const CAPTURE = false;

/** The shape of a JSON value: its type, an object's keys with their shapes, an array's distinct element shapes. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))].sort();
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, shapeOf(item)]),
    );
  }
  return typeof value;
}

const escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

interface Example {
  where: string;
  pointer: string;
  value: unknown;
}

/** Every example in the document, with the JSON pointer of the schema it must satisfy. */
function examplesOf(doc: Json): Example[] {
  const found: Example[] = [];
  const media = (where: string, base: string, content: Json) => {
    for (const [type, item] of Object.entries<Json>(content ?? {})) {
      for (const [name, example] of Object.entries<Json>(item.examples ?? {})) {
        found.push({
          where: `${where} ${type} ${name}`,
          pointer: `${base}/content/${escape(type)}/schema`,
          value: example.value,
        });
      }
    }
  };
  for (const [root, items] of [
    ["paths", doc.paths],
    ["webhooks", doc.webhooks],
  ] as const) {
    for (const [path, operations] of Object.entries<Json>(items)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        const base = `#/${root}/${escape(path)}/${method}`;
        media(`${method.toUpperCase()} ${path} request`, `${base}/requestBody`, operation.requestBody?.content);
        for (const [status, response] of Object.entries<Json>(operation.responses))
          media(`${method.toUpperCase()} ${path} ${status}`, `${base}/responses/${status}`, response.content);
        for (const [index, parameter] of (operation.parameters ?? []).entries()) {
          if (parameter.example !== undefined)
            found.push({
              where: `${path} ${parameter.name}`,
              pointer: `${base}/parameters/${index}/schema`,
              value: parameter.example,
            });
        }
      }
    }
  }
  return found;
}

describe("examples in the document", () => {
  it("every request body and every documented response of every operation and webhook has an example", async () => {
    const doc = (await servedDocument()) as Json;
    const missing: string[] = [];
    let responses = 0;
    let operations = 0;
    for (const [root, items] of [
      ["paths", doc.paths],
      ["webhooks", doc.webhooks],
    ] as const) {
      for (const [path, ops] of Object.entries<Json>(items)) {
        for (const [method, operation] of Object.entries<Json>(ops)) {
          operations += 1;
          for (const [type, item] of Object.entries<Json>(operation.requestBody?.content ?? {})) {
            if (Object.keys(item.examples ?? {}).length === 0)
              missing.push(`${root} ${method} ${path} request ${type}`);
          }
          for (const [status, response] of Object.entries<Json>(operation.responses)) {
            if (response.content === undefined) continue;
            responses += 1;
            for (const [type, item] of Object.entries<Json>(response.content)) {
              if (Object.keys(item.examples ?? {}).length === 0)
                missing.push(`${root} ${method} ${path} ${status} ${type}`);
            }
            // An error response shows one example per code it documents.
            const mapping = response.content["application/json"]?.schema?.discriminator?.mapping;
            if (mapping !== undefined)
              expect(Object.keys(response.content["application/json"].examples).sort()).toEqual(
                Object.keys(mapping).sort(),
              );
          }
        }
      }
    }
    expect(missing).toEqual([]);
    expect(operations).toBe(ROUTES.length + 8);
    expect(responses).toBeGreaterThan(150);
  });

  it("every example is valid against its own schema", async () => {
    const doc = (await servedDocument()) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...doc, $id: "https://order-service.test/examples.json" }, "examples");
    const examples = examplesOf(doc);
    expect(examples.length).toBeGreaterThan(200);
    const invalid: string[] = [];
    for (const { where, pointer, value } of examples) {
      const validate = ajv.getSchema(`https://order-service.test/examples.json${pointer}`);
      expect(validate, pointer).toBeDefined();
      if (!validate!(value)) invalid.push(`${where}: ${JSON.stringify(validate!.errors)}`);
    }
    expect(invalid).toEqual([]);
  });

  it("the check catches an example that breaks its schema", async () => {
    const doc = structuredClone(await servedDocument()) as Json;
    doc.paths["/order/create"].post.responses["400"].content[
      "application/json"
    ].examples.insufficient_funds.value.details.balance = "12.50";
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...doc, $id: "https://order-service.test/broken.json" }, "broken");
    const bad = examplesOf(doc).filter(
      ({ pointer, value }) => !ajv.getSchema(`https://order-service.test/broken.json${pointer}`)!(value),
    );
    expect(bad.map(({ where }) => where)).toEqual(["POST /order/create 400 application/json insufficient_funds"]);
  });
});

describe("webhook examples", () => {
  it("each event's example signature is the Standard Webhooks signature of its example body with the example secret", async () => {
    const doc = (await servedDocument()) as Json;
    const secret = EXAMPLE_SECRET.slice("whsec_".length);
    const key = await crypto.subtle.importKey(
      "raw",
      Uint8Array.from(atob(secret), (char) => char.charCodeAt(0)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const events = Object.entries<Json>(doc.webhooks);
    expect(events.map(([event]) => event)).toEqual([
      "order.confirmed",
      "order.successful",
      "order.partial",
      "order.failed",
      "order.rejected",
      "wallet.funded",
      "wallet.low",
      "delivery.failed",
    ]);
    for (const [event, { post }] of events) {
      const header = (name: string) =>
        post.parameters.find((parameter: Json) => parameter.name === name).example as string;
      const body = post.requestBody.content["application/json"].examples[event].value;
      expect(body.type).toBe(event);
      const signed = await crypto.subtle.sign(
        "HMAC",
        key,
        new TextEncoder().encode(`${header("webhook-id")}.${header("webhook-timestamp")}.${JSON.stringify(body)}`),
      );
      expect(header("webhook-signature"), event).toBe(`v1,${btoa(String.fromCharCode(...new Uint8Array(signed)))}`);
      expect(header("webhook-id")).toBe(body.id);
    }
  });
});

describe("success examples have the shape of real answers", () => {
  const admin = (method: string, path: string, body?: unknown) => call(method, path, { key: ADMIN_TOKEN, body });
  const client = (method: string, path: string, body?: unknown) => call(method, path, { key: DEMO_KEY, body });

  /** The document's success example of an operation (the first, when there are several). */
  async function exampleOf(operationId: string): Promise<{ request?: unknown; body: Json }> {
    const doc = (await servedDocument()) as Json;
    for (const operations of Object.values<Json>(doc.paths)) {
      for (const operation of Object.values<Json>(operations)) {
        if (operation.operationId !== operationId) continue;
        const ok = (operation.responses["200"] ?? operation.responses["201"]).content["application/json"].examples;
        return {
          request: operation.requestBody?.content["application/json"].examples.example.value,
          body: Object.values<Json>(ok)[0].value,
        };
      }
    }
    throw new Error(`no operation ${operationId}`);
  }

  const checked = new Set<string>();

  /** The document's success example of an operation that answers CSV. */
  async function csvExampleOf(operationId: string): Promise<string> {
    const doc = (await servedDocument()) as Json;
    for (const operations of Object.values<Json>(doc.paths)) {
      for (const operation of Object.values<Json>(operations)) {
        if (operation.operationId === operationId)
          return operation.responses["200"].content["text/csv"].examples.ok.value;
      }
    }
    throw new Error(`no operation ${operationId}`);
  }

  /**
   * A CSV example is the real answer line for line, cell for cell, but for the cells of ids and times
   * (columns named `id` or ending in `_at`), which only have to be there.
   */
  async function expectCsvSameAsExample(operationId: string, answer: ApiCall): Promise<void> {
    expect(answer.status, `${operationId}: ${String(answer.body)}`).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    checked.add(operationId);
    if (CAPTURE) return;
    const example = await csvExampleOf(operationId);
    const settle = (text: string) => {
      const [header, ...rows] = text.split("\r\n").map((row) => row.split(","));
      const volatile = header!.map((name) => name === "id" || name.endsWith("_at"));
      return [header, ...rows.map((row) => row.map((cell, at) => (volatile[at] ? cell !== "" : cell)))];
    };
    expect(settle(example), `${operationId}: the example differs from what the service answers`).toEqual(
      settle(answer.body as string),
    );
  }

  /** What an example cannot share with a real answer: ids, times, the codes issued and the request's hash. */
  const VOLATILE = new Set(["id", "uid", "orderId", "requestHash", "createdAt", "modifiedAt", "expiresAt"]);
  // A ledger export's signature covers its time (exportedAt), so it differs from run to run too.
  for (const key of ["createdDate", "modifiedDate", "exportedAt", "updatedAt", "signature"]) VOLATILE.add(key);
  // When a dead letter failed, and was replayed.
  for (const key of ["failedAt", "replayedAt"]) VOLATILE.add(key);
  // An export names the deployment and the mode it was made in: the example's live one, the tests' sandbox.
  for (const key of ["deployment", "mode"]) VOLATILE.add(key);
  const ISSUED = new Set(["redeemPin", "redeemLink", "redeemLinks", "pins", "links"]);
  function settled(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(settled);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        if (VOLATILE.has(key)) return [key, typeof item];
        return [key, ISSUED.has(key) ? shapeOf(item) : settled(item)];
      }),
    );
  }

  /**
   * The order, wallet and operator catalogue examples are their fixture seen through the service's views:
   * the same requests sent to the service are answered with the same values (prices, invoices, states,
   * lines, ledger entries, balances, SKUs, code counts, deals), ids and times aside.
   */
  async function expectSameAsExample(operationId: string, answer: ApiCall): Promise<void> {
    if (CAPTURE) return;
    const example = await exampleOf(operationId);
    const message = `${operationId}: the example differs from what the service answers`;
    expect(settled(example.body), message).toEqual(settled(answer.body));
  }

  async function expectLikeExample(operationId: string, answer: ApiCall, request?: unknown): Promise<void> {
    expect(answer.status, `${operationId}: ${JSON.stringify(answer.body)}`).toBe(
      operationId === "adminCreateOperator" ? 201 : 200,
    );
    if (CAPTURE) {
      console.log(`CAPTURE ${operationId} ${JSON.stringify({ request, data: answer.body.data })}`);
      checked.add(operationId);
      return;
    }
    const example = await exampleOf(operationId);
    const real = JSON.stringify({ request, data: answer.body.data });
    expect(shapeOf(example.body), `${operationId}: the example differs from the real answer ${real}`).toEqual(
      shapeOf(answer.body),
    );
    if (request !== undefined)
      expect(shapeOf(example.request), `${operationId}: the request example differs from the request sent`).toEqual(
        shapeOf(request),
      );
    checked.add(operationId);
  }

  it("client routes: create, confirm, get, products, wallets", async () => {
    await seedDemo();
    await topUp("demo", "USD", "1000");
    // The order examples' fixture, sent as it is.
    const createBody = EXAMPLE_CREATE;
    const created = await client("POST", "/order/create", createBody);
    await expectLikeExample("createOrder", created, createBody);
    expect((await exampleOf("createOrder")).request).toEqual(createBody);
    await expectSameAsExample("createOrder", created);
    const confirmBody = { orderId: created.body.data.id };
    const confirmed = await client("PUT", "/order/confirm", confirmBody);
    await expectLikeExample("confirmOrder", confirmed, confirmBody);
    await expectSameAsExample("confirmOrder", confirmed);
    let got = await client("GET", `/order/get?orderId=${created.body.data.id}`);
    for (let attempt = 0; attempt < 100 && got.body.data.state !== "successful"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      got = await client("GET", `/order/get?orderId=${created.body.data.id}`);
    }
    await expectLikeExample("getOrder", got);
    await expectSameAsExample("getOrder", got);
    const products = await client("GET", "/products");
    await expectLikeExample("listProducts", products);
    await expectSameAsExample("listProducts", products);
    await expectLikeExample("listWallets", await client("GET", "/wallets"));
    // A partial order (its failing line refunded), for the statement's movements of both kinds.
    const from = Date.now();
    const partial = await client("POST", "/order/create", {
      productList: [line("DEMO-US-RANGE", 5), line("DEMO-US-FAILING", 7)],
      wallet: "USD",
      reference: "po-2026-0044",
    });
    await client("PUT", "/order/confirm", { orderId: partial.body.data.id });
    await drainTimers(partial.body.data.id);
    await expectLikeExample("getWalletLedger", await client("GET", "/wallets/USD/ledger?after=0&limit=2"));
    const period = `from=${from}&to=${Date.now()}`;
    const statement = await call("GET", `/wallets/USD/statement?${period}`, {
      key: DEMO_KEY,
      headers: { accept: "application/json" },
    });
    await expectLikeExample("getWalletStatement", statement);
    // The CSV example has the real answer's columns and rows, kind for kind.
    const csv = await call("GET", `/wallets/USD/statement?${period}`, { key: DEMO_KEY });
    const cells = (text: string) => text.split("\r\n").map((row) => row.split(",").slice(1, 2));
    const doc = (await servedDocument()) as Json;
    const example =
      doc.paths["/wallets/{currency}/statement"].get.responses["200"].content["text/csv"].examples.ok.value;
    expect(example.split("\r\n")[0]).toBe((csv.body as string).split("\r\n")[0]);
    expect(cells(example)).toEqual(cells(csv.body as string));
    const found = await admin("GET", "/admin/orders?clientId=demo&reference=po-2026-0042");
    await expectLikeExample("adminFindOrder", found);
    await expectSameAsExample("adminFindOrder", found);
    // As the order's `index` timer does a couple of seconds after its last change.
    await indexNow(created.body.data.id);
    const searched = await admin("GET", "/admin/orders/search?clientId=demo&reference=po-2026-0042");
    await expectLikeExample("adminSearchOrders", searched);
    await expectSameAsExample("adminSearchOrders", searched);
    const listed = await client("GET", "/orders?reference=po-2026-0042");
    await expectLikeExample("listOrders", listed);
    await expectSameAsExample("listOrders", listed);
    // The order's events rode with its books write (issue 44): a page of one, with the next one's cursor.
    await expectLikeExample("listEvents", await client("GET", "/events?type=order.successful,order.confirmed&limit=1"));
    // The low-balance alert (issue 44): set, then cleared.
    await expectLikeExample("setWalletAlert", await client("PUT", "/wallets/USD/alert", { threshold: "100.00" }), {
      threshold: "100.00",
    });
    await expectLikeExample("clearWalletAlert", await client("DELETE", "/wallets/USD/alert"));
    // The account webhook endpoints (issue 44), each route's real answer.
    const endpointBody = {
      url: "http://127.0.0.1:9797/hooks/example",
      eventTypes: ["order.successful", "order.failed", "wallet.low"],
    };
    const made = await client("POST", "/webhook-endpoints", endpointBody);
    await expectLikeExample("createWebhookEndpoint", made, endpointBody);
    const endpointId = made.body.data.endpoint.id as string;
    await expectLikeExample("listWebhookEndpoints", await client("GET", "/webhook-endpoints"));
    const patchBody = { eventTypes: ["order.successful", "order.failed", "wallet.low", "wallet.funded"] };
    await expectLikeExample(
      "updateWebhookEndpoint",
      await client("PATCH", `/webhook-endpoints/${endpointId}`, patchBody),
      patchBody,
    );
    const rotated = await client("POST", `/webhook-endpoints/${endpointId}/rotate-secret`);
    await expectLikeExample("rotateWebhookEndpointSecret", rotated);
    const endpointReceiver = new FakeReceiver({ secret: rotated.body.data.endpoint.secret });
    try {
      await expectLikeExample("testWebhookEndpoint", await client("POST", `/webhook-endpoints/${endpointId}/test`));
    } finally {
      endpointReceiver.restore();
    }
    await expectLikeExample("deleteWebhookEndpoint", await client("DELETE", `/webhook-endpoints/${endpointId}`));
    await expectCsvSameAsExample(
      "adminExportOrders",
      await admin("GET", "/admin/orders/export?clientId=demo&reference=po-2026-0042"),
    );
    const byId = await admin("GET", `/admin/orders/${created.body.data.id}`);
    await expectLikeExample("adminGetOrder", byId);
    await expectSameAsExample("adminGetOrder", byId);
    await recordTimerFailure(env.DB, {
      orderId: created.body.data.id,
      clientId: "demo",
      timer: "process",
      failures: 4,
      lastError: "D1_ERROR: Network connection lost.",
      lastFailedAt: Date.now(),
      nextAttemptAt: Date.now() + 16_000,
    });
    await expectLikeExample("adminListStuckOrders", await admin("GET", "/admin/orders/stuck"));
    await clearTimerFailure(env.DB, created.body.data.id);
  });

  it("a run of the order index's repair pass", async () => {
    await expectLikeExample("adminRunOrderIndexRepair", await admin("POST", "/admin/orders/index/run"));
  });

  it("sandbox routes: top-up, expire now, test webhook", async () => {
    await seedDemo();
    // The sandbox examples' fixture, sent as it is.
    // The wallet as the fixture has it before the top-up, whatever the tests above left in it.
    const left = new Money(await wallet("demo", "USD").balance());
    const toFixture = new Money(EXAMPLE_BALANCE_BEFORE).minus(left).toFixed();
    const adjusted = await wallet("demo", "USD").post({
      key: `examples:${toFixture}`,
      kind: "adjustment",
      amount: toFixture,
    });
    expect(adjusted.ok).toBe(true);
    const topUpBody = EXAMPLE_TOP_UP;
    const toppedUp = await client("POST", "/sandbox/wallets/USD/top-ups", topUpBody);
    await expectLikeExample("sandboxTopUp", toppedUp, topUpBody);
    await expectSameAsExample("sandboxTopUp", toppedUp);
    const created = await client("POST", "/order/create", EXAMPLE_EXPIRED_CREATE);
    const expired = await client("POST", `/sandbox/orders/${created.body.data.id}/expire`);
    await expectLikeExample("sandboxExpireOrder", expired);
    await expectSameAsExample("sandboxExpireOrder", expired);
    const hookBody = { type: "order.partial", url: "http://127.0.0.1:9797/hooks/orders" };
    const receiver = vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("ok"));
    try {
      const sent = await client("POST", "/sandbox/webhooks/test", hookBody);
      await expectLikeExample("sandboxTestWebhook", sent, hookBody);
      await expectSameAsExample("sandboxTestWebhook", sent);
    } finally {
      receiver.mockRestore();
    }
  });

  it("operator routes", async () => {
    const createClient = { id: "acme", name: "Acme Gifts Ltd", keyLabel: "production", region: "apac" };
    await expectLikeExample("adminCreateClient", await admin("POST", "/admin/clients", createClient), createClient);
    const issue = { label: "finance", scopes: ["books:read"], allowedIps: ["203.0.113.7", "198.51.100.0/24"] };
    const issued = await admin("POST", "/admin/clients/acme/keys", issue);
    await expectLikeExample("adminIssueKey", issued, issue);
    const access = { scopes: ["books:read", "orders:read"], allowedIps: ["198.51.100.0/24"] };
    await expectLikeExample(
      "adminSetKeyAccess",
      await admin("PUT", `/admin/clients/acme/keys/${issued.body.data.key.keyId}/access`, access),
      access,
    );
    await expectLikeExample(
      "adminRevokeKey",
      await admin("POST", `/admin/clients/acme/keys/${issued.body.data.key.keyId}/revoke`),
    );
    const rotate = { label: "production-2026-12" };
    await expectLikeExample("adminRotateKeys", await admin("POST", "/admin/clients/acme/keys/rotate", rotate), rotate);
    await expectLikeExample(
      "adminRotateWebhookSecret",
      await admin("POST", "/admin/clients/acme/webhook-secret/rotate"),
    );
    await expectLikeExample("adminDisableClient", await admin("POST", "/admin/clients/acme/disable"));
    await expectLikeExample("adminEnableClient", await admin("POST", "/admin/clients/acme/enable"));

    // The operator catalogue examples' fixture, sent as it is.
    const product = (await exampleOf("adminUpsertProduct")).request;
    const upserted = await admin("PUT", "/admin/products/EU-VOUCHER", product);
    await expectLikeExample("adminUpsertProduct", upserted, product);
    await expectSameAsExample("adminUpsertProduct", upserted);
    const codes = {
      codes: [
        { value: "25", pin: "EU25-0001-AAAA", link: "https://redeem.example/EU25-0001-AAAA" },
        { value: "25", pin: "EU25-0002-BBBB", link: "https://redeem.example/EU25-0002-BBBB" },
      ],
    };
    await expectLikeExample("adminUploadCodes", await admin("POST", "/admin/products/EU-VOUCHER/codes", codes), codes);
    await expectLikeExample("adminGetCodeStock", await admin("GET", "/admin/products/EU-VOUCHER/codes"));
    const productAnswers: [string, ApiCall][] = [
      ["adminDisableProduct", await admin("POST", "/admin/products/EU-VOUCHER/disable")],
      ["adminEnableProduct", await admin("POST", "/admin/products/EU-VOUCHER/enable")],
      ["adminGetProduct", await admin("GET", "/admin/products/EU-VOUCHER")],
    ];
    for (const [operationId, answer] of productAnswers) {
      await expectLikeExample(operationId, answer);
      await expectSameAsExample(operationId, answer);
    }
    const adminProducts = await admin("GET", "/admin/products?limit=1");
    await expectLikeExample("adminListProducts", adminProducts);
    await expectSameAsExample("adminListProducts", adminProducts);

    const rate = { rate: "0.92" };
    await expectLikeExample("adminSetRate", await admin("PUT", "/admin/exchange-rates/USD/EUR", rate), rate);
    await expectLikeExample("adminListRates", await admin("GET", "/admin/exchange-rates"));
    const deal = (await exampleOf("adminUpsertDeal")).request;
    const dealSaved = await admin("PUT", "/admin/clients/acme/deals/EU-VOUCHER", deal);
    await expectLikeExample("adminUpsertDeal", dealSaved, deal);
    const dealAnswers: [string, ApiCall][] = [
      ["adminUpsertDeal", dealSaved],
      ["adminListDeals", await admin("GET", "/admin/clients/acme/deals")],
      ["adminDeleteDeal", await admin("DELETE", "/admin/clients/acme/deals/EU-VOUCHER")],
    ];
    for (const [operationId, answer] of dealAnswers.slice(1)) await expectLikeExample(operationId, answer);
    for (const [operationId, answer] of dealAnswers) await expectSameAsExample(operationId, answer);

    // The wallet examples' fixture, sent as it is.
    const topUpBody = (await exampleOf("adminTopUpWallet")).request;
    // The reconciliation below reads the changes from here on: these audited postings, not the seed's.
    const walletsFrom = Date.now();
    const toppedUp = await admin("POST", "/admin/wallets/acme/USD/top-ups", topUpBody);
    await expectLikeExample("adminTopUpWallet", toppedUp, topUpBody);
    const adjustment = (await exampleOf("adminAdjustWallet")).request;
    const adjusted = await admin("POST", "/admin/wallets/acme/USD/adjustments", adjustment);
    await expectLikeExample("adminAdjustWallet", adjusted, adjustment);
    const walletAnswers: [string, ApiCall][] = [
      ["adminTopUpWallet", toppedUp],
      ["adminAdjustWallet", adjusted],
      ["adminGetWallet", await admin("GET", "/admin/wallets/acme/USD")],
      ["adminGetLedger", await admin("GET", "/admin/wallets/acme/USD/ledger?limit=1")],
    ];
    for (const [operationId, answer] of walletAnswers.slice(2)) await expectLikeExample(operationId, answer);
    const exported = await admin("GET", "/admin/wallets/acme/USD/export");
    await expectLikeExample("adminExportLedger", exported);
    for (const [operationId, answer] of [...walletAnswers, ["adminExportLedger", exported] as const]) {
      await expectSameAsExample(operationId, answer);
    }
    await admin("POST", "/admin/clients", { id: "acme-restored", name: "Acme Gifts Ltd (restored)" });
    // Another client stands in for a new deployment's: the export as that deployment would have signed it.
    const relabelled = { ...exported.body.data, clientId: "acme-restored" };
    const restore = { ...relabelled, signature: await exportSignature(relabelled) };
    await expectLikeExample(
      "adminRestoreLedger",
      await admin("POST", "/admin/wallets/acme-restored/USD/restore", restore),
      restore,
    );
    await expectLikeExample("adminGetClient", await admin("GET", "/admin/clients/acme"));
    await expectLikeExample("adminListClients", await admin("GET", "/admin/clients?limit=1"));
    await expectLikeExample("adminListAudit", await admin("GET", "/admin/audit?limit=1"));
    // After the audit log's example: the reveal writes the audit row its example does not show.
    const ordered = await admin("GET", "/admin/orders?clientId=demo&reference=po-2026-0042");
    const revealed = await admin("POST", `/admin/orders/${ordered.body.data.record.id}/codes/reveal`);
    await expectLikeExample("adminRevealOrderCodes", revealed);
    await expectSameAsExample("adminRevealOrderCodes", revealed);
    // A client created without a region, its wallet moved to one.
    const region = { region: "apac" };
    await expectLikeExample(
      "adminSetClientRegion",
      await admin("POST", "/admin/clients/acme-restored/region", region),
      region,
    );

    // A dead letter as the dead-letter queue hands it over, then listed and replayed.
    // The dead-letter examples' fixture, of an event made now.
    const message = {
      ...EXAMPLE_DEAD_LETTER_MESSAGE,
      event: { ...EXAMPLE_DEAD_LETTER_MESSAGE.event, createdAt: Date.now() },
    };
    const raw = { id: "m1", timestamp: new Date(), body: message, attempts: 1, ack: () => {}, retry: () => {} };
    await keepDeadLetters(
      {
        queue: "webhooks-dlq",
        messages: [raw],
        ackAll: () => {},
        retryAll: () => {},
      } as unknown as MessageBatch<unknown>,
      env,
    );
    const listed = await admin("GET", "/admin/webhooks/dead-letters");
    await expectLikeExample("adminListDeadLetters", listed);
    await expectSameAsExample("adminListDeadLetters", listed);

    // The Needs attention list with a row in each part: a stuck order, the dead letter, a SKU and a wallet
    // below their thresholds.
    const stockThreshold = { threshold: 20 };
    await expectLikeExample(
      "adminSetStockThreshold",
      await admin("PUT", "/admin/products/EU-VOUCHER/low-stock-threshold", stockThreshold),
      stockThreshold,
    );
    const walletThreshold = { threshold: "1000.00" };
    await expectLikeExample(
      "adminSetWalletThreshold",
      await admin("PUT", "/admin/wallets/acme/USD/low-balance-threshold", walletThreshold),
      walletThreshold,
    );
    const stuckOrderId = `ord_${"2".repeat(64)}`;
    await recordTimerFailure(env.DB, {
      orderId: stuckOrderId,
      clientId: "acme",
      timer: "outbox",
      failures: 4,
      lastError: "Queue send failed",
      lastFailedAt: Date.now(),
      nextAttemptAt: Date.now() + 16_000,
    });
    // A movement naming an order that does not exist: the reconciliation's mismatch, stored as the last run.
    await wallet("acme", "USD").post({
      key: "examples:stray",
      kind: "order_refund",
      amount: "0",
      orderId: `ord_${"3".repeat(64)}`,
    });
    const reconciled = await admin(
      "GET",
      `/admin/reconciliation?createdFrom=${walletsFrom}&createdTo=${Date.now()}&grace=0`,
    );
    // The days of the span are checked whole: the demo wallet's top-ups made by the tests' helper (no
    // operator, so no audit row) are mismatches of their own, left out of the example's shape.
    const ofAcme = reconciled.body.data.mismatches.filter(
      (mismatch: { clientId: string }) => mismatch.clientId === "acme",
    );
    expect(ofAcme).toHaveLength(1);
    await expectLikeExample("adminReconcile", {
      ...reconciled,
      body: { ...reconciled.body, data: { ...reconciled.body.data, mismatches: ofAcme } },
    });
    await runAndStore(env, Date.now(), { graceSeconds: 0 });
    const attention = await admin("GET", "/admin/attention");
    const stored = attention.body.data.reconciliation;
    await expectLikeExample("adminGetAttention", {
      ...attention,
      body: {
        ...attention.body,
        data: {
          ...attention.body.data,
          reconciliation: {
            ...stored,
            mismatches: stored.mismatches.filter((mismatch: { clientId: string }) => mismatch.clientId === "acme"),
          },
        },
      },
    });
    await clearTimerFailure(env.DB, stuckOrderId);
    const replayed = await admin("POST", `/admin/webhooks/dead-letters/${listed.body.data.deadLetters[0].id}/replay`);
    await expectLikeExample("adminReplayDeadLetter", replayed);
    await expectSameAsExample("adminReplayDeadLetter", replayed);

    const operator = { name: "Dana Support", role: "operator" };
    const created = await admin("POST", "/admin/operators", operator);
    await expectLikeExample("adminCreateOperator", created, operator);
    await admin("POST", "/admin/operators", { name: "Sam Admin", role: "admin" });
    await expectLikeExample("adminListOperators", await admin("GET", "/admin/operators?limit=1"));
    const role = { role: "viewer" };
    await expectLikeExample(
      "adminChangeOperatorRole",
      await admin("POST", `/admin/operators/${created.body.data.operator.id}/role`, role),
      role,
    );
    await expectLikeExample(
      "adminRevokeOperator",
      await admin("POST", `/admin/operators/${created.body.data.operator.id}/revoke`),
    );

    // Dual control, last: a GBP limit, a top-up above it asked by one operator, decided by another.
    const limit = { limit: "10000" };
    expect((await admin("PUT", "/admin/approval-limits/GBP", limit)).body.message).toBe("Approval limit set");
    await expectLikeExample("adminListApprovalLimits", await admin("GET", "/admin/approval-limits"));
    // Colleagues of long standing, made days apart (dual control takes newer ones to be one person's).
    const asker = (await madeOperator("Rita Ops", "operator", 10)).token;
    const decider = (await madeOperator("Sam Finance", "operator", 5)).token;
    const ask = async (key: string) =>
      (
        await call("POST", "/admin/wallets/acme/GBP/top-ups", {
          key: asker,
          body: { amount: "25000", idempotencyKey: key, reason: "Bank transfer", note: "Payment received, thank you" },
        })
      ).body.data.request.id as number;
    const [toApprove, toReject] = [await ask("dual-1"), await ask("dual-2")];
    await expectLikeExample(
      "adminApprovePostingRequest",
      await call("POST", `/admin/posting-requests/${toApprove}/approve`, { key: decider }),
    );
    await expectLikeExample("adminListPostingRequests", await admin("GET", "/admin/posting-requests"));
    await expectLikeExample(
      "adminRejectPostingRequest",
      await call("POST", `/admin/posting-requests/${toReject}/reject`, { key: decider }),
    );
    // Raising the limit waits for a second admin.
    const raiser = (await madeOperator("Sam Admin Raiser", "admin", 10)).token;
    const second = (await madeOperator("Ada Admin", "admin", 5)).token;
    const raise = { limit: "25000" };
    const raised = await call("PUT", "/admin/approval-limits/GBP", { key: raiser, body: raise });
    await expectLikeExample("adminSetApprovalLimit", raised, raise);
    await expectLikeExample("adminListLimitRequests", await admin("GET", "/admin/approval-limit-requests"));
    await expectLikeExample(
      "adminApproveLimitRequest",
      await call("POST", `/admin/approval-limit-requests/${raised.body.data.request.id}/approve`, { key: second }),
    );
    const again = await call("PUT", "/admin/approval-limits/GBP", { key: raiser, body: { limit: "50000" } });
    await expectLikeExample(
      "adminRejectLimitRequest",
      await call("POST", `/admin/approval-limit-requests/${again.body.data.request.id}/reject`, { key: second }),
    );
  });

  it("an export across clients and the books' retention", async () => {
    const request = { filter: { clientId: "demo", reference: "po-2026-0042" } };
    const started = await admin("POST", "/admin/orders/exports", request);
    await expectLikeExample("adminStartOrderExport", started, request);
    const id = started.body.data.export.id as number;
    for (let step = 0; step < 5 && (await runStep(env, id)) === "stepped"; step += 1);
    await expectLikeExample("adminGetOrderExport", await admin("GET", `/admin/orders/exports/${id}`));
    await expectLikeExample("adminListOrderExports", await admin("GET", "/admin/orders/exports"));
    await expectCsvSameAsExample("adminDownloadOrderExport", await admin("GET", `/admin/orders/exports/${id}/file`));
    const retention = { days: 400 };
    await expectLikeExample(
      "adminSetBooksRetention",
      await admin("PUT", "/admin/books/retention", retention),
      retention,
    );
    await expectLikeExample("adminGetBooksRetention", await admin("GET", "/admin/books/retention"));
    expect((await admin("PUT", "/admin/books/retention", { days: null })).status).toBe(200);
  });

  it("covers every operation but GET /openapi.json", () => {
    const all = ROUTES.map(({ operationId }) => operationId).filter((id) => id !== "getOpenApi");
    expect(all.filter((id) => !checked.has(id))).toEqual([]);
  });
});
