import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addClient, call, line } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { FIXED_PRODUCT, RANGE_PRODUCT, admin, auditActions, snapshot } from "../admin-helpers";
import { racedDb, thrownByAdminRoute } from "../route-race";
import { catalogueRoutes } from "../../src/catalogue/catalogue-admin-routes";
import { HTTP_STATUS } from "../../src/http/errors";
import { Refusal } from "../../src/kernel/failures";
import { addCodes } from "../order-helpers";
import { findStoredProduct, productFromRow, upsertProductStatement } from "../../src/catalogue/catalogue-store";

let key: string;
beforeAll(async () => {
  key = await addClient("shopper", { USD: "1000", EUR: "1000" });
  await env.DB.prepare(
    `INSERT INTO exchange_rates (base_currency, target_currency, rate, updated_at) VALUES ('USD', 'EUR', '0.9', 0)`,
  ).run();
});

describe("PUT /admin/products/:sku", () => {
  it("creates a fixed SKU with canonical quotes, then replaces it", async () => {
    const created = await admin("PUT", "/admin/products/CAT-FIXED", FIXED_PRODUCT);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await expectConforms("PUT", "/admin/products/{sku}", created);
    expect(created.body.message).toBe("Product created");
    expect(created.body.data).toMatchObject({
      sku: "CAT-FIXED",
      productType: "fixed",
      quotes: [10, 25.5],
      minQuote: null,
      maxQuote: null,
      active: true,
      codes: { available: 0, reserved: 0, sold: 0 },
    });
    const row = await env.DB.prepare(
      `SELECT quotes, min_quote, supplier_config, active FROM products WHERE sku = 'CAT-FIXED'`,
    ).first();
    expect(row).toEqual({ quotes: '["10","25.5"]', min_quote: null, supplier_config: "{}", active: 1 });
    const updated = await admin("PUT", "/admin/products/CAT-FIXED", {
      ...FIXED_PRODUCT,
      name: "Renamed",
      quotes: [50],
    });
    expect(updated.body.message).toBe("Product updated");
    expect(updated.body.data).toMatchObject({ name: "Renamed", quotes: [50] });
  });

  it("creates a range SKU; an upsert may turn it into a fixed one and back", async () => {
    const created = await admin("PUT", "/admin/products/CAT-RANGE", {
      ...RANGE_PRODUCT,
      supplierConfig: { fail: false },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data).toMatchObject({
      productType: "range",
      quotes: null,
      minQuote: 5,
      maxQuote: 500,
      supplier: "sandbox",
      supplierConfig: { fail: false },
      codes: null,
    });
    const fixed = await admin("PUT", "/admin/products/CAT-RANGE", { ...FIXED_PRODUCT, currency: "USD" });
    expect(fixed.body.data).toMatchObject({ productType: "fixed", minQuote: null, maxQuote: null });
    const back = await admin("PUT", "/admin/products/CAT-RANGE", RANGE_PRODUCT);
    expect(back.body.data).toMatchObject({ productType: "range", quotes: null, minQuote: 5, maxQuote: 500 });
    // Orderable at once, with the quotes it has now.
    const order = await call("POST", "/order/create", {
      key,
      body: { wallet: "USD", reference: "cat-range-1", productList: [line("CAT-RANGE", 7.5, 1, "range")] },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
  });

  it("400 for SKUs that do not add up; nothing changes", async () => {
    await admin("PUT", "/admin/products/CAT-KEEP", FIXED_PRODUCT);
    const before = await snapshot();
    const bad: [string, unknown][] = [
      ["no quotes", { ...FIXED_PRODUCT, quotes: [] }],
      ["quotes missing", { ...FIXED_PRODUCT, quotes: undefined }],
      ["zero quote", { ...FIXED_PRODUCT, quotes: ["0"] }],
      ["negative quote", { ...FIXED_PRODUCT, quotes: [-5] }],
      ["absurd quote", { ...FIXED_PRODUCT, quotes: [1e20] }],
      ["repeated quote", { ...FIXED_PRODUCT, quotes: ["10", 10.0, "10.00"] }],
      ["JPY decimals", { ...FIXED_PRODUCT, currency: "JPY", quotes: ["1000.5"] }],
      ["USD float noise", { ...FIXED_PRODUCT, currency: "USD", quotes: [0.1 + 0.2] }],
      ["min above max", { ...RANGE_PRODUCT, minQuote: "600" }],
      ["range with quotes", { ...RANGE_PRODUCT, quotes: ["10"] }],
      ["fixed with bounds", { ...FIXED_PRODUCT, minQuote: 1 }],
      ["unknown currency", { ...FIXED_PRODUCT, currency: "XYZ" }],
      ["lower-case currency", { ...FIXED_PRODUCT, currency: "eur" }],
      ["country", { ...FIXED_PRODUCT, country: "Germany" }],
      ["product type", { ...FIXED_PRODUCT, productType: "variable" }],
      ["supplier", { ...FIXED_PRODUCT, supplier: "magic" }],
      ["typo field", { ...FIXED_PRODUCT, quote: ["10"] }],
      ["active not boolean", { ...FIXED_PRODUCT, active: "yes" }],
      ["huge supplierConfig", { ...FIXED_PRODUCT, supplierConfig: { blob: "x".repeat(5000) } }],
    ];
    for (const [why, body] of bad) {
      const response = await admin("PUT", "/admin/products/CAT-KEEP", body);
      expect(response.status, why).toBe(400);
      expect(response.body.code, why).toBe("invalid_request_body");
      await expectConforms("PUT", "/admin/products/{sku}", response);
    }
    for (const sku of ["bad%20sku", "-leading-dash", "x".repeat(65), "a%2Fb"]) {
      const response = await admin("PUT", `/admin/products/${sku}`, FIXED_PRODUCT);
      expect(response.status, sku).toBe(400);
      expect(response.body.code).toBe("invalid_parameters");
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("PUT /admin/products/:sku on a SKU with codes", () => {
  /** An inventory SKU with `available` codes on sale, `reserved` held by an order and `sold` sold, of value 10. */
  async function skuWithCodes(
    sku: string,
    counts: { available: number; reserved: number; sold: number },
  ): Promise<void> {
    expect((await admin("PUT", `/admin/products/${sku}`, FIXED_PRODUCT)).status).toBe(200);
    const total = counts.available + counts.reserved + counts.sold;
    await addCodes(sku, "10", total);
    await env.DB.prepare(
      `UPDATE codes SET status = CASE WHEN rank <= ?2 THEN 'sold' ELSE 'reserved' END, order_id = 'ord_' || ?1, reserved_until = 0
        FROM (SELECT id AS ranked_id, ROW_NUMBER() OVER (ORDER BY id) AS rank FROM codes WHERE sku = ?1) WHERE id = ranked_id AND rank <= ?3`,
    )
      .bind(sku, counts.sold, counts.sold + counts.reserved)
      .run();
  }

  it("409 sku_has_unsold_codes for a change of currency, product type or supplier while codes are on sale or reserved; nothing changes", async () => {
    await skuWithCodes("CAT-STOCKED", { available: 3, reserved: 2, sold: 1 });
    const before = await snapshot();
    const changes: [string[], unknown][] = [
      [["currency"], { ...FIXED_PRODUCT, currency: "JPY", quotes: ["10"] }],
      [["productType"], { ...FIXED_PRODUCT, productType: "range", quotes: undefined, minQuote: "5", maxQuote: "50" }],
      [["supplier"], { ...FIXED_PRODUCT, supplier: "sandbox" }],
      [["currency", "supplier"], { ...FIXED_PRODUCT, currency: "USD", supplier: "upstream" }],
    ];
    for (const [changed, body] of changes) {
      const response = await admin("PUT", "/admin/products/CAT-STOCKED", body);
      expect(response.status, changed.join()).toBe(409);
      expect(response.body).toEqual({
        message: "SKU has unsold or reserved codes",
        code: "sku_has_unsold_codes",
        details: { sku: "CAT-STOCKED", changed, unsold: 3, reserved: 2 },
      });
      await expectConforms("PUT", "/admin/products/{sku}", response);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("reserved codes alone are enough to refuse the change", async () => {
    await skuWithCodes("CAT-HELD", { available: 0, reserved: 1, sold: 4 });
    const response = await admin("PUT", "/admin/products/CAT-HELD", { ...FIXED_PRODUCT, currency: "GBP" });
    expect(response.status).toBe(409);
    expect(response.body.details).toEqual({ sku: "CAT-HELD", changed: ["currency"], unsold: 0, reserved: 1 });
  });

  it("a change that keeps currency, type and supplier still works under stock (name, quotes, country, active)", async () => {
    await skuWithCodes("CAT-RENAMED", { available: 2, reserved: 1, sold: 0 });
    const response = await admin("PUT", "/admin/products/CAT-RENAMED", {
      ...FIXED_PRODUCT,
      name: "New name",
      quotes: ["10", "50"],
      country: "AT",
      active: false,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({
      name: "New name",
      quotes: [10, 50],
      country: "AT",
      active: false,
      currency: "EUR",
      codes: { available: 2, reserved: 1, sold: 0 },
    });
  });

  it("a SKU with no codes, or only sold ones, changes freely", async () => {
    expect((await admin("PUT", "/admin/products/CAT-EMPTY", FIXED_PRODUCT)).status).toBe(200);
    const empty = await admin("PUT", "/admin/products/CAT-EMPTY", {
      ...FIXED_PRODUCT,
      currency: "USD",
      supplier: "sandbox",
    });
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body.data).toMatchObject({ currency: "USD", supplier: "sandbox" });
    await skuWithCodes("CAT-SOLD-OUT", { available: 0, reserved: 0, sold: 3 });
    const soldOut = await admin("PUT", "/admin/products/CAT-SOLD-OUT", {
      ...FIXED_PRODUCT,
      currency: "JPY",
      quotes: ["1000"],
    });
    expect(soldOut.status, JSON.stringify(soldOut.body)).toBe(200);
    expect(soldOut.body.data).toMatchObject({ currency: "JPY", quotes: [1000] });
  });

  it("the write itself refuses, whatever was read before it: codes uploaded after a check still stop the change", async () => {
    expect((await admin("PUT", "/admin/products/CAT-RACED", FIXED_PRODUCT)).status).toBe(200);
    // The upload lands after any read the PUT could have made, right before its write.
    await addCodes("CAT-RACED", "10", 1);
    const stored = await findStoredProduct(env.DB, "CAT-RACED");
    const write = upsertProductStatement(env.DB, { ...productFromRow(stored!), currency: "JPY" }, Date.now());
    await expect(write.run()).rejects.toThrow();
    expect((await findStoredProduct(env.DB, "CAT-RACED"))!.currency).toBe("EUR");
  });

  it("codes uploaded between the route's check and its write: the write is refused and answered as the same 409", async () => {
    expect((await admin("PUT", "/admin/products/CAT-RACED-PUT", FIXED_PRODUCT)).status).toBe(200);
    const auditsBefore = await auditActions();
    // D1 as the route sees it: an upload lands after its first batch (the check) and before its second (the write).
    let batches = 0;
    const db = racedDb(async (batch) => {
      batches = batch;
      if (batch === 2) await addCodes("CAT-RACED-PUT", "10", 1);
    });
    const refused = await thrownByAdminRoute(
      catalogueRoutes.find(({ operationId }) => operationId === "adminUpsertProduct")!,
      {
        method: "PUT",
        path: "/admin/products/CAT-RACED-PUT",
        params: { sku: "CAT-RACED-PUT" },
        body: { ...FIXED_PRODUCT, currency: "JPY", quotes: ["10"] },
      },
      db,
    );
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).failure).toMatchObject({
      code: "sku_has_unsold_codes",
      details: { sku: "CAT-RACED-PUT", changed: ["currency"], unsold: 1, reserved: 0 },
    });
    expect(HTTP_STATUS[(refused as Refusal).failure.code]).toBe(409);
    expect(batches).toBe(3);
    expect((await findStoredProduct(env.DB, "CAT-RACED-PUT"))!.currency).toBe("EUR");
    expect(await auditActions()).toEqual(auditsBefore);
  });
});

describe("disable, enable, list", () => {
  it("a disabled SKU leaves GET /products and cannot be ordered; enabled, it is back", async () => {
    await admin("PUT", "/admin/products/CAT-TOGGLE", RANGE_PRODUCT);
    const disabled = await admin("POST", "/admin/products/CAT-TOGGLE/disable");
    expect(disabled.status).toBe(200);
    await expectConforms("POST", "/admin/products/{sku}/disable", disabled);
    expect(disabled.body.data.active).toBe(false);
    const skus = async () =>
      (await call("GET", "/products", { key })).body.data.products.map((product: { sku: string }) => product.sku);
    expect(await skus()).not.toContain("CAT-TOGGLE");
    const order = await call("POST", "/order/create", {
      key,
      body: { wallet: "USD", reference: "toggle-1", productList: [line("CAT-TOGGLE", 10, 1, "range")] },
    });
    expect(order.status).toBe(404);
    expect(order.body.code).toBe("product_not_found");
    const enabled = await admin("POST", "/admin/products/CAT-TOGGLE/enable");
    await expectConforms("POST", "/admin/products/{sku}/enable", enabled);
    expect(enabled.body.data.active).toBe(true);
    expect(await skus()).toContain("CAT-TOGGLE");
    // An upsert that says active: false disables too.
    await admin("PUT", "/admin/products/CAT-TOGGLE", { ...RANGE_PRODUCT, active: false });
    expect(await skus()).not.toContain("CAT-TOGGLE");
  });

  it("404 for an unknown SKU; disabling twice changes nothing the second time", async () => {
    expect((await admin("POST", "/admin/products/NOPE/disable")).body.code).toBe("sku_not_found");
    expect((await admin("POST", "/admin/products/NOPE/enable")).status).toBe(404);
    expect((await admin("GET", "/admin/products/NOPE")).status).toBe(404);
    await admin("PUT", "/admin/products/CAT-TWICE", RANGE_PRODUCT);
    await admin("POST", "/admin/products/CAT-TWICE/disable");
    const before = await snapshot();
    expect((await admin("POST", "/admin/products/CAT-TWICE/disable")).status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it("lists every SKU, disabled ones too, a page at a time", async () => {
    for (const sku of ["LIST-A", "LIST-B", "LIST-C"]) await admin("PUT", `/admin/products/${sku}`, RANGE_PRODUCT);
    await admin("POST", "/admin/products/LIST-B/disable");
    const page = await admin("GET", "/admin/products?after=LIST-&limit=2");
    expect(page.status).toBe(200);
    await expectConforms("GET", "/admin/products", page);
    expect(
      page.body.data.products.map((product: { sku: string; active: boolean }) => [product.sku, product.active]),
    ).toEqual([
      ["LIST-A", true],
      ["LIST-B", false],
    ]);
    expect(page.body.data.next).toBe("LIST-B");
    const one = await admin("GET", "/admin/products/LIST-C");
    await expectConforms("GET", "/admin/products/{sku}", one);
    expect(one.body.data.sku).toBe("LIST-C");
  });
});

describe("deals", () => {
  beforeAll(async () => {
    await admin("PUT", "/admin/products/DEAL-SKU", { ...FIXED_PRODUCT, supplier: "sandbox", quotes: ["10"] });
    await addClient("other");
  });

  it("sets a client's fee and discount; the client sees it in GET /products and in its orders", async () => {
    const saved = await admin("PUT", "/admin/clients/shopper/deals/DEAL-SKU", {
      fee: { amount: "0.5", adjustmentMode: "fixed" },
      discount: { amount: 10, adjustmentMode: "percentage" },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await expectConforms("PUT", "/admin/clients/{clientId}/deals/{sku}", saved);
    expect(saved.body.data).toMatchObject({
      clientId: "shopper",
      sku: "DEAL-SKU",
      dealState: "active",
      fee: { amount: 0.5, adjustmentMode: "fixed" },
      discount: { amount: 10, adjustmentMode: "percentage" },
    });
    const products = await call("GET", "/products", { key });
    const product = products.body.data.products.find((entry: { sku: string }) => entry.sku === "DEAL-SKU");
    expect(product.deal).toEqual({
      dealState: "active",
      fee: { amount: 0.5, adjustmentMode: "fixed" },
      discount: { amount: 10, adjustmentMode: "percentage" },
    });
    const order = await call("POST", "/order/create", {
      key,
      body: { wallet: "EUR", reference: "deal-1", productList: [line("DEAL-SKU", 10, 2, "fixed")] },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    // 2 × 10 + 2 × 0.5 fee − 10 % of 20 discount = 19.
    expect(order.body.data.invoice.total).toBe(19);
    const list = await admin("GET", "/admin/clients/shopper/deals");
    await expectConforms("GET", "/admin/clients/{clientId}/deals", list);
    expect(list.body.data.deals).toHaveLength(1);
    // Another client has no deal.
    const otherKey = (await admin("POST", "/admin/clients/other/keys", {})).body.data.apiKey;
    const theirs = (await call("GET", "/products", { key: otherKey })).body.data.products.find(
      (entry: { sku: string }) => entry.sku === "DEAL-SKU",
    );
    expect(theirs.deal).toBeNull();
  });

  it("deletes a deal; 404 when there is none", async () => {
    await admin("PUT", "/admin/clients/shopper/deals/CAT-FIXED", { fee: { amount: "1", adjustmentMode: "fixed" } });
    const deleted = await admin("DELETE", "/admin/clients/shopper/deals/CAT-FIXED");
    expect(deleted.status).toBe(200);
    await expectConforms("DELETE", "/admin/clients/{clientId}/deals/{sku}", deleted);
    expect(deleted.body.data.fee).toEqual({ amount: 1, adjustmentMode: "fixed" });
    expect(deleted.body.data.discount).toEqual({ amount: 0, adjustmentMode: "fixed" });
    const again = await admin("DELETE", "/admin/clients/shopper/deals/CAT-FIXED");
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("deal_not_found");
  });

  it("4xx for bad deals; nothing changes", async () => {
    const before = await snapshot();
    const cases: [string, unknown, number, string][] = [
      [
        "/admin/clients/shopper/deals/DEAL-SKU",
        { fee: { amount: "101", adjustmentMode: "percentage" } },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/clients/shopper/deals/DEAL-SKU",
        { fee: { amount: "0.001", adjustmentMode: "fixed" } },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/clients/shopper/deals/DEAL-SKU",
        { fee: { amount: "-1", adjustmentMode: "fixed" } },
        400,
        "invalid_request_body",
      ],
      [
        "/admin/clients/shopper/deals/DEAL-SKU",
        { fee: { amount: "1", adjustmentMode: "percent" } },
        400,
        "invalid_request_body",
      ],
      ["/admin/clients/shopper/deals/DEAL-SKU", { dealState: "maybe" }, 400, "invalid_request_body"],
      ["/admin/clients/shopper/deals/DEAL-SKU", { fees: {} }, 400, "invalid_request_body"],
      ["/admin/clients/shopper/deals/NOPE", {}, 404, "sku_not_found"],
      ["/admin/clients/nobody/deals/DEAL-SKU", {}, 404, "client_not_found"],
    ];
    for (const [path, body, status, code] of cases) {
      const response = await admin("PUT", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(response.body.code).toBe(code);
      await expectConforms("PUT", "/admin/clients/{clientId}/deals/{sku}", response);
    }
    expect((await admin("GET", "/admin/clients/nobody/deals")).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });
});

describe("GET /products", () => {
  it("lists active SKUs with quotes or bounds and availability: codes per quote for inventory, unlimited otherwise", async () => {
    await admin("PUT", "/admin/products/AVAIL-INV", { ...FIXED_PRODUCT, currency: "USD", quotes: ["5", "20"] });
    await admin("POST", "/admin/products/AVAIL-INV/codes", {
      codes: [
        { value: 20, pin: "A1", link: "https://r.example/A1" },
        { value: "20.00", pin: "A2", link: "https://r.example/A2" },
        { value: 5, pin: "A3", link: "https://r.example/A3" },
      ],
    });
    const before = await call("GET", "/products", { key });
    expect(before.status).toBe(200);
    await expectConforms("GET", "/products", before);
    const find = (body: any, sku: string) => body.data.products.find((product: { sku: string }) => product.sku === sku);
    expect(find(before.body, "AVAIL-INV")).toEqual({
      sku: "AVAIL-INV",
      name: "Test voucher",
      productType: "fixed",
      currency: "USD",
      country: "DE",
      region: "Europe",
      quotes: [5, 20],
      minQuote: null,
      maxQuote: null,
      availability: {
        type: "stock",
        count: 3,
        byQuote: [
          { quote: 5, count: 1 },
          { quote: 20, count: 2 },
        ],
      },
      deal: null,
    });
    expect(find(before.body, "CAT-RANGE")).toMatchObject({
      quotes: null,
      minQuote: 5,
      maxQuote: 500,
      availability: { type: "unlimited" },
    });
    const skus = before.body.data.products.map((product: { sku: string }) => product.sku);
    expect(skus).toEqual([...skus].sort());
    // A created order reserves codes: they are no longer available.
    const order = await call("POST", "/order/create", {
      key,
      body: { wallet: "USD", reference: "avail-1", productList: [line("AVAIL-INV", 20, 2, "fixed")] },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    const after = await call("GET", "/products", { key });
    expect(find(after.body, "AVAIL-INV").availability).toEqual({
      type: "stock",
      count: 1,
      byQuote: [{ quote: 5, count: 1 }],
    });
  });
});
