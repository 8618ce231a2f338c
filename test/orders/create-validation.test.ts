/**
 * POST /order/create: body shape, limits, catalogue checks, every create message
 * verbatim, and the documented check order when two errors apply.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createOrder, line, seedDemo, topUp } from "../helpers";
import { MESSAGES, addProduct, availableCodes, expectError, expectOk, freshClient, uid } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100000");
  await addProduct({ sku: "T-RETIRED", productType: "range", currency: "USD", min: "1", max: "100", active: false });
});

function create(body: unknown, key?: string | null) {
  return call("POST", "/order/create", { body, key });
}

describe("create: body shape → 400 Invalid request body (code invalid_request_body, zod issues in details)", () => {
  const valid = () => ({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "USD", reference: uid("ref") });
  const cases: [string, (body: any) => unknown][] = [
    ["quantity 1.5", (b) => ({ ...b, productList: [{ ...b.productList[0], quantity: 1.5 }] })],
    ["quantity 0", (b) => ({ ...b, productList: [{ ...b.productList[0], quantity: 0 }] })],
    ["quantity -1", (b) => ({ ...b, productList: [{ ...b.productList[0], quantity: -1 }] })],
    ["quantity as string", (b) => ({ ...b, productList: [{ ...b.productList[0], quantity: "1" }] })],
    ["quantity missing", (b) => ({ ...b, productList: [{ sku: "DEMO-US-RANGE", productType: "range", quote: 10 }] })],
    ['quote "10" (a string)', (b) => ({ ...b, productList: [{ ...b.productList[0], quote: "10" }] })],
    ["quote missing", (b) => ({ ...b, productList: [{ sku: "DEMO-US-RANGE", productType: "range", quantity: 1 }] })],
    ["sku missing", (b) => ({ ...b, productList: [{ productType: "range", quote: 10, quantity: 1 }] })],
    ["sku empty", (b) => ({ ...b, productList: [{ ...b.productList[0], sku: "" }] })],
    ["productType missing", (b) => ({ ...b, productList: [{ sku: "DEMO-US-RANGE", quote: 10, quantity: 1 }] })],
    ["productList not an array", (b) => ({ ...b, productList: { sku: "DEMO-US-RANGE" } })],
    ["productList a string", (b) => ({ ...b, productList: "DEMO-US-RANGE" })],
    ["productList missing", ({ productList: _p, ...rest }) => rest],
    ["productList item null", (b) => ({ ...b, productList: [null] })],
    ["wallet missing", ({ wallet: _w, ...rest }) => rest],
    ["wallet a number", (b) => ({ ...b, wallet: 840 })],
    ["wallet empty", (b) => ({ ...b, wallet: "" })],
    ["reference missing", ({ reference: _r, ...rest }) => rest],
    ["reference a number", (b) => ({ ...b, reference: 42 })],
    ["reference empty", (b) => ({ ...b, reference: "" })],
    ["reference 257 chars", (b) => ({ ...b, reference: "r".repeat(257) })],
    ["body a JSON array", () => [1, 2]],
    ["body JSON null", () => null],
    ["body a JSON string", () => "order"],
    ["webhookUrl a number", (b) => ({ ...b, webhookUrl: 1 })],
  ];
  it.each(cases)("%s", async (_name, mutate) => {
    const res = await create(mutate(valid()));
    expectError(res, 400, MESSAGES.invalidBody, "invalid_request_body");
    expect(Array.isArray(res.body.details?.issues), JSON.stringify(res.body)).toBe(true);
    expect(res.body.details.issues.length).toBeGreaterThan(0);
    for (const issue of res.body.details.issues) {
      expect(typeof issue.path).toBe("string");
      expect(typeof issue.message).toBe("string");
    }
  });

  it("names the offending field in the issue path", async () => {
    const res = await create({ ...valid(), productList: [{ ...line("DEMO-US-RANGE", 10, 1), quantity: 1.5 }] });
    expect(res.body.details.issues.map((issue: { path: string }) => issue.path)).toContain("productList.0.quantity");
  });

  it("a quote of 1e400 (Infinity after JSON.parse) is a 400, not a 500", async () => {
    const raw = `{"productList":[{"sku":"DEMO-US-RANGE","productType":"range","quote":1e400,"quantity":1}],"wallet":"USD","reference":"${uid("ref")}"}`;
    const res = await call("POST", "/order/create", { rawBody: raw });
    expectError(res, 400, MESSAGES.invalidBody, "invalid_request_body");
  });

  it("a reference of exactly 256 characters is accepted", async () => {
    const res = await create({ ...valid(), reference: `${uid("r")}`.padEnd(256, "x") });
    expectOk(res);
  });

  it("unknown fields are ignored", async () => {
    const res = await create({
      ...valid(),
      extra: { nested: true },
      productList: [{ ...line("DEMO-US-RANGE", 10, 1), colour: "red" }],
    });
    expectOk(res);
  });
});

describe("create: malformed JSON and oversized bodies", () => {
  it.each([
    ["not JSON", "{productList:"],
    ["truncated JSON", '{"productList": ['],
    ["empty body", ""],
    ["whitespace body", "   \n"],
  ])("%s → 400 with a clear message and code malformed_json", async (_name, raw) => {
    const res = await call("POST", "/order/create", { rawBody: raw });
    expectError(res, 400, "Request body is not valid JSON", "malformed_json");
  });

  it("the Sandbox-Outcome header is checked before the body, as the checks are declared", async () => {
    const headers = { "sandbox-outcome": "sometimes" };
    for (const rawBody of ["{productList:", "{}"])
      expectError(
        await call("POST", "/order/create", { rawBody, headers }),
        400,
        "Invalid Sandbox-Outcome header",
        "invalid_sandbox_outcome",
      );
  });

  it("a body that is not UTF-8 → 400 malformed_json", async () => {
    const res = await (
      await import("cloudflare:workers")
    ).exports.default.fetch(
      new Request("http://orders.test/order/create", {
        method: "POST",
        headers: { authorization: "Bearer sk_test_demo", "content-type": "application/json" },
        body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("malformed_json");
  });

  // MAX_BODY_BYTES = 65536: a valid body padded to exactly the limit goes through, one byte more is 413.
  function paddedBody(totalBytes: number): string {
    const base = { productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "USD", reference: uid("ref-pad"), pad: "" };
    const overhead = new TextEncoder().encode(JSON.stringify(base)).length;
    const body = JSON.stringify({ ...base, pad: "x".repeat(totalBytes - overhead) });
    expect(new TextEncoder().encode(body).length).toBe(totalBytes);
    return body;
  }

  it("a body of exactly MAX_BODY_BYTES (65536) is accepted", async () => {
    expect(env.MAX_BODY_BYTES).toBe("65536");
    const res = await call("POST", "/order/create", { rawBody: paddedBody(65536) });
    expectOk(res);
  });

  it("a body of 65537 bytes → 413", async () => {
    const res = await call("POST", "/order/create", { rawBody: paddedBody(65537) });
    expectError(res, 413, "Request body is too large", "payload_too_large");
  });

  it("65537 bytes streamed without a Content-Length → 413 (the bytes that arrive are counted)", async () => {
    const bytes = new TextEncoder().encode(paddedBody(65537));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 4096)
          controller.enqueue(bytes.slice(offset, offset + 4096));
        controller.close();
      },
    });
    const { exports } = await import("cloudflare:workers");
    const res = await exports.default.fetch(
      new Request("http://orders.test/order/create", {
        method: "POST",
        headers: { authorization: "Bearer sk_test_demo", "content-type": "application/json" },
        body: stream,
      }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("a lying Content-Length over the limit → 413 before reading", async () => {
    const res = await call("POST", "/order/create", { rawBody: "{}", headers: { "content-length": "70000" } });
    expect(res.status).toBe(413);
  });
});

describe("create: list format (step 1) and limits (step 2)", () => {
  const USD_LINES = [
    line("DEMO-US-RANGE", 10, 1),
    line("DEMO-EU-FIXED", 10, 1),
    line("DEMO-GB-FIXED", 20, 1),
    line("DEMO-JP-RANGE", 1000, 1),
    line("DEMO-US-FAILING", 10, 1),
    line("DEMO-US-SOLDOUT", 10, 1),
  ];

  it("an empty productList → 400 Your product list is not formatted well", async () => {
    expectError(await createOrder({ productList: [] }), 400, MESSAGES.notFormatted, "product_list_malformed");
  });

  it("duplicate SKUs → 400 Your product list is not formatted well", async () => {
    const res = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1), line("DEMO-US-RANGE", 20, 1)] });
    expectError(res, 400, MESSAGES.notFormatted, "product_list_malformed");
  });

  it("quantity 5 of one SKU is allowed", async () => {
    expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10, 5)] }));
  });

  it("quantity 6 of one SKU → 400 Requested product list is bigger than allowed", async () => {
    const res = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 6)] });
    expectError(res, 400, MESSAGES.tooBig, "product_list_too_big");
  });

  it("quantity 6 on the last of several lines → 400 too big", async () => {
    const res = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1), line("DEMO-JP-RANGE", 1000, 6)] });
    expectError(res, 400, MESSAGES.tooBig, "product_list_too_big");
  });

  it("5 different SKUs are allowed", async () => {
    const data = expectOk(await createOrder({ productList: USD_LINES.slice(0, 5) }));
    expect(data.invoice.records.map((record: { sku: string }) => record.sku)).toEqual(
      USD_LINES.slice(0, 5).map((l) => l.sku),
    );
  });

  it("6 different SKUs → 400 too big (before the catalogue is looked at: the sold-out SKU does not matter)", async () => {
    const before = await availableCodes("DEMO-EU-FIXED", "10");
    const res = await createOrder({ productList: USD_LINES });
    expectError(res, 400, MESSAGES.tooBig, "product_list_too_big");
    expect(await availableCodes("DEMO-EU-FIXED", "10")).toBe(before);
  });

  it("6 SKUs of which none exists → 400 too big, not 404", async () => {
    const lines = Array.from({ length: 6 }, (_, i) => line(`NOPE-${i}`, 10, 1));
    expectError(await createOrder({ productList: lines }), 400, MESSAGES.tooBig);
  });

  it("total quantity 25 (5 SKUs × 5) is allowed", async () => {
    const lines = [
      line("DEMO-US-RANGE", 5, 5),
      line("DEMO-EU-FIXED", 25, 5),
      line("DEMO-GB-FIXED", 20, 5),
      line("DEMO-JP-RANGE", 1000, 5),
      line("DEMO-US-FAILING", 1, 5),
    ];
    const data = expectOk(await createOrder({ productList: lines }));
    const quantities = data.invoice.records.map(
      (r: any) => r.items.find((i: any) => i.type === "main-product").metaData.quantity,
    );
    expect(quantities.reduce((a: number, b: number) => a + b, 0)).toBe(25);
  });
});

describe("create: catalogue checks (step 3)", () => {
  it("unknown SKU → 404 with the contract message", async () => {
    expectError(
      await createOrder({ productList: [line("NO-SUCH-SKU", 10, 1)] }),
      404,
      MESSAGES.productNotFound,
      "product_not_found",
    );
  });

  it("an inactive SKU → 404", async () => {
    expectError(await createOrder({ productList: [line("T-RETIRED", 10, 1, "range")] }), 404, MESSAGES.productNotFound);
  });

  it("SKU lookup is exact (lower case is another, unknown SKU)", async () => {
    expectError(
      await createOrder({ productList: [line("demo-us-range", 10, 1, "range")] }),
      404,
      MESSAGES.productNotFound,
    );
  });

  it.each([
    ["fixed SKU, quote not listed", line("DEMO-EU-FIXED", 15, 1)],
    ["fixed SKU, quote 10.5", line("DEMO-EU-FIXED", 10.5, 1)],
    ["fixed SKU with productType range", line("DEMO-EU-FIXED", 10, 1, "range")],
    ["range SKU with productType fixed", line("DEMO-US-RANGE", 10, 1, "fixed")],
    ["unknown productType", line("DEMO-US-RANGE", 10, 1, "bundle")],
    ["range SKU, quote with more decimals than USD has (10.001)", line("DEMO-US-RANGE", 10.001, 1)],
    ["JPY range SKU, quote with decimals (1000.5)", line("DEMO-JP-RANGE", 1000.5, 1)],
  ])("%s → 400 The entered quote doesn't match the SKU. (with the period)", async (_name, productLine) => {
    const res = await createOrder({ productList: [productLine] });
    expectError(res, 400, MESSAGES.quoteMismatch, "quote_mismatch");
    expect(res.body.message.endsWith(".")).toBe(true);
  });

  it.each([
    ["just under min (4.99)", line("DEMO-US-RANGE", 4.99, 1)],
    ["just over max (500.01)", line("DEMO-US-RANGE", 500.01, 1)],
    ["zero", line("DEMO-US-RANGE", 0, 1)],
    ["negative", line("DEMO-US-RANGE", -10, 1)],
    ["JPY under min (999)", line("DEMO-JP-RANGE", 999, 1)],
    ["JPY over max (50001)", line("DEMO-JP-RANGE", 50001, 1)],
  ])("range quote %s → 400 The entered quote is not in range", async (_name, productLine) => {
    expectError(await createOrder({ productList: [productLine] }), 400, MESSAGES.notInRange, "quote_out_of_range");
  });

  it.each([
    ["min 5", line("DEMO-US-RANGE", 5, 1)],
    ["max 500", line("DEMO-US-RANGE", 500, 1)],
    ["cents 123.45", line("DEMO-US-RANGE", 123.45, 1)],
    ["JPY min 1000", line("DEMO-JP-RANGE", 1000, 1)],
    ["JPY max 50000", line("DEMO-JP-RANGE", 50000, 1)],
    ["fixed listed quote 50", line("DEMO-EU-FIXED", 50, 1)],
  ])("range and fixed edges are inclusive: %s", async (_name, productLine) => {
    expectOk(await createOrder({ productList: [productLine] }));
  });
});

describe("create: wallet, exchange, stock, funds (step 4)", () => {
  it("no wallet in that currency → 400 No wallet in currency XXX", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "GBP" }),
      400,
      "No wallet in currency GBP",
      "wallet_not_found",
    );
  });

  it("a wallet string that is no currency → 400 No wallet in currency …", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "usd" }),
      400,
      "No wallet in currency usd",
      "wallet_not_found",
    );
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "toString" }),
      400,
      "No wallet in currency toString",
    );
  });

  it("no exchange rate between wallet and product currency → 500 Your requested exchange is not supported", async () => {
    // demo has a EUR wallet and only EUR→USD.
    const res = await createOrder({ productList: [line("DEMO-GB-FIXED", 20, 1)], wallet: "EUR" });
    expectError(res, 500, MESSAGES.exchange, "exchange_not_supported");
  });

  it("EUR wallet buying a JPY product (no EUR→JPY rate) → 500 exchange not supported", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-JP-RANGE", 1000, 1)], wallet: "EUR" }),
      500,
      MESSAGES.exchange,
    );
  });

  it("a rate in the other direction does not count: GBP wallet, USD product, only USD→GBP exists → 500", async () => {
    const client = await freshClient({ GBP: "1000" });
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "GBP" }, client.key),
      500,
      MESSAGES.exchange,
    );
  });

  it("out of stock → 500 Requested item is out of stock", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-US-SOLDOUT", 10, 1)] }),
      500,
      MESSAGES.outOfStock,
      "out_of_stock",
    );
  });

  it("asking for more codes than are left → 500 out of stock, and nothing is reserved", async () => {
    // 5 per line is the limit, so ask on a SKU of our own with 3 codes for 4.
    await addProduct({ sku: "T-FEW", productType: "fixed", currency: "USD", quotes: ["7"], supplier: "inventory" });
    await env.DB.batch(
      [1, 2, 3].map((n) =>
        env.DB.prepare(
          `INSERT INTO codes (sku, value, pin, link, created_at) VALUES ('T-FEW', '7', ?1, 'https://x.example/', 0)`,
        ).bind(`T-FEW-${n}`),
      ),
    );
    expectError(await createOrder({ productList: [line("T-FEW", 7, 4, "fixed")] }), 500, MESSAGES.outOfStock);
    expect(await availableCodes("T-FEW", "7")).toBe(3);
    expectOk(await createOrder({ productList: [line("T-FEW", 7, 3, "fixed")] }));
    expect(await availableCodes("T-FEW", "7")).toBe(0);
  });

  it("insufficient funds at create → 400 with the contract message; a balance equal to the total is enough", async () => {
    const client = await freshClient({ USD: "21.73" });
    // 20 EUR / 0.92 = 21.7391… → 21.74 USD: one cent short.
    const short = await createOrder({ productList: [line("DEMO-EU-FIXED", 10, 2)] }, client.key);
    expectError(short, 400, MESSAGES.insufficient, "insufficient_funds");
    await topUp(client.id, "USD", "0.01");
    const data = expectOk(await createOrder({ productList: [line("DEMO-EU-FIXED", 10, 2)] }, client.key));
    expect(data.invoice.total).toBe(21.74);
  });

  it("a wallet registered but never funded → 400 insufficient funds", async () => {
    const client = await freshClient({ USD: "0" });
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)] }, client.key),
      400,
      MESSAGES.insufficient,
    );
  });
});

describe("create: check order when two errors apply (first failure wins)", () => {
  it("shape error + limit → 400 Invalid request body", async () => {
    const lines = Array.from({ length: 6 }, (_, i) => ({ ...line(`S${i}`, 10, 6), quantity: i === 5 ? 1.5 : 6 }));
    expectError(await createOrder({ productList: lines }), 400, MESSAGES.invalidBody);
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 10, 9)], wallet: 1 }),
      400,
      MESSAGES.invalidBody,
    );
  });

  it("duplicate SKUs + too many SKUs → not formatted well (step 1 before step 2)", async () => {
    const lines = [...Array.from({ length: 6 }, (_, i) => line(`S${i}`, 10, 1)), line("S0", 10, 1)];
    expectError(await createOrder({ productList: lines }), 400, MESSAGES.notFormatted);
  });

  it("limit + unknown SKU → too big (step 2 before step 3)", async () => {
    expectError(await createOrder({ productList: [line("NOPE", 10, 6)] }), 400, MESSAGES.tooBig);
  });

  it("unknown SKU + bad quote on a later line → 404", async () => {
    const res = await createOrder({ productList: [line("NOPE", 10, 1), line("DEMO-EU-FIXED", 11, 1)] });
    expectError(res, 404, MESSAGES.productNotFound);
  });

  it("unknown SKU + out-of-range quote on a later line → 404", async () => {
    expectError(
      await createOrder({ productList: [line("NOPE", 10, 1), line("DEMO-US-RANGE", 1, 1)] }),
      404,
      MESSAGES.productNotFound,
    );
  });

  it("lines in list order: a bad quote on line 1 wins over an unknown SKU on line 2", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-EU-FIXED", 11, 1), line("NOPE", 10, 1)] }),
      400,
      MESSAGES.quoteMismatch,
    );
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 501, 1), line("NOPE", 10, 1)] }),
      400,
      MESSAGES.notInRange,
    );
  });

  it("bad quote + no wallet → the quote error", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-EU-FIXED", 11, 1)], wallet: "GBP" }),
      400,
      MESSAGES.quoteMismatch,
    );
    expectError(
      await createOrder({ productList: [line("DEMO-US-RANGE", 4, 1)], wallet: "GBP" }),
      400,
      MESSAGES.notInRange,
    );
  });

  it("unknown SKU + no wallet → 404", async () => {
    expectError(
      await createOrder({ productList: [line("NOPE", 10, 1)], wallet: "GBP" }),
      404,
      MESSAGES.productNotFound,
    );
  });

  it("no wallet + no exchange → the wallet error", async () => {
    // no GBP wallet, and no GBP→JPY rate.
    expectError(
      await createOrder({ productList: [line("DEMO-JP-RANGE", 1000, 1)], wallet: "GBP" }),
      400,
      "No wallet in currency GBP",
    );
  });

  it("exchange + out of stock → the exchange error, even when the out-of-stock line comes first", async () => {
    // EUR wallet: EUR→USD exists (sold-out line is fine for exchange), EUR→GBP does not.
    const res = await createOrder({
      productList: [line("DEMO-US-SOLDOUT", 10, 1), line("DEMO-GB-FIXED", 20, 1)],
      wallet: "EUR",
    });
    expectError(res, 500, MESSAGES.exchange);
  });

  it("out of stock + insufficient funds → out of stock", async () => {
    const client = await freshClient({ USD: "1" });
    expectError(
      await createOrder({ productList: [line("DEMO-US-SOLDOUT", 10, 1)] }, client.key),
      500,
      MESSAGES.outOfStock,
    );
  });

  it("exchange + insufficient funds → exchange", async () => {
    const client = await freshClient({ EUR: "1" });
    expectError(
      await createOrder({ productList: [line("DEMO-GB-FIXED", 20, 1)], wallet: "EUR" }, client.key),
      500,
      MESSAGES.exchange,
    );
  });

  it("a failed create stores nothing: the same reference then works with another body", async () => {
    const reference = uid("ref-fail");
    expectError(
      await createOrder({ productList: [line("DEMO-US-SOLDOUT", 10, 1)], reference }),
      500,
      MESSAGES.outOfStock,
    );
    expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference }));
  });
});

describe("create: authentication → 403", () => {
  const body = () => ({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "USD", reference: uid("ref") });

  it.each([
    ["no Authorization header", {}],
    ["unknown key", { authorization: "Bearer sk_test_nobody" }],
    ["Basic scheme", { authorization: "Basic c2tfdGVzdF9kZW1vOg==" }],
    ["bare key without scheme", { authorization: "sk_test_demo" }],
    ["empty bearer", { authorization: "Bearer " }],
  ])("%s → 403", async (_name, headers) => {
    const res = await call("POST", "/order/create", { key: null, body: body(), headers });
    expectError(res, 403, MESSAGES.auth, "unauthenticated");
  });

  it("a revoked key → 403", async () => {
    const client = await freshClient();
    await env.DB.prepare(`UPDATE api_keys SET revoked_at = ?1 WHERE client_id = ?2`).bind(Date.now(), client.id).run();
    expectError(await createOrder(body(), client.key), 403, MESSAGES.auth);
  });

  it("a key of a disabled client → 403", async () => {
    const client = await freshClient();
    await env.DB.prepare(`UPDATE clients SET disabled_at = ?1 WHERE id = ?2`).bind(Date.now(), client.id).run();
    expectError(await createOrder(body(), client.key), 403, MESSAGES.auth);
  });

  it("auth is checked before the body: malformed JSON without a key is 403", async () => {
    expectError(await call("POST", "/order/create", { key: null, rawBody: "{" }), 403, MESSAGES.auth);
  });
});

describe("create: success envelope", () => {
  it("200 {message, data:{id, exchangeRates, invoice, retailInvoice, expiresAt, livemode}} and an X-Request-Id", async () => {
    const res = await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)] });
    const data = expectOk(res);
    expect(res.body.message).toBe("Order created successfully");
    expect(Object.keys(data).sort()).toEqual([
      "exchangeRates",
      "expiresAt",
      "id",
      "invoice",
      "livemode",
      "retailInvoice",
    ]);
    expect(data.id).toMatch(/^ord_[0-9a-f]{64}$/);
  });
});
