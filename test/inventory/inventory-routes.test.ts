import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addClient, call, line } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { FIXED_PRODUCT, RANGE_PRODUCT, admin, auditActions, snapshot } from "../admin-helpers";
import { racedDb, thrownByAdminRoute } from "../route-race";
import { requireProduct } from "../../src/catalogue/catalogue-store";
import { inventoryRoutes } from "../../src/inventory/inventory-admin-routes";
import { HTTP_STATUS } from "../../src/http/errors";
import { Refusal } from "../../src/kernel/failures";

const code = (value: unknown, pin: string) => ({ value, pin, link: `https://redeem.example.com/${pin}` });

function csv(text: string) {
  return { headers: { "content-type": "text/csv; charset=utf-8" }, rawBody: text };
}

async function codesOf(sku: string) {
  const { results } = await env.DB.prepare(`SELECT value, pin, link, status FROM codes WHERE sku = ?1 ORDER BY id`)
    .bind(sku)
    .all();
  return results;
}

beforeAll(async () => {
  await admin("PUT", "/admin/products/INV-EUR", FIXED_PRODUCT); // quotes 10 and 25.5
  await admin("PUT", "/admin/products/INV-RANGE", { ...RANGE_PRODUCT, supplier: "inventory" }); // 5..500 USD
  await admin("PUT", "/admin/products/INV-SANDBOX", RANGE_PRODUCT);
});

describe("POST /admin/products/:sku/codes as JSON", () => {
  it("adds every code, canonicalising values as stock is matched on them; an order can then reserve them", async () => {
    const response = await admin("POST", "/admin/products/INV-EUR/codes", {
      codes: [code("25.50", "J-1"), code(25.5, "J-2"), code("10", "J-3")],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    await expectConforms("POST", "/admin/products/{sku}/codes", response);
    expect(response.body.data).toEqual({
      sku: "INV-EUR",
      added: 3,
      stock: [
        { value: 10, available: 1, reserved: 0, sold: 0 },
        { value: 25.5, available: 2, reserved: 0, sold: 0 },
      ],
    });
    expect((await codesOf("INV-EUR")).map((row: any) => row.value)).toEqual(["25.5", "25.5", "10"]);
    const key = await addClient("inv-buyer", { EUR: "100" });
    const order = await call("POST", "/order/create", {
      key,
      body: { wallet: "EUR", reference: "inv-1", productList: [line("INV-EUR", 25.5, 2, "fixed")] },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    const stock = await admin("GET", "/admin/products/INV-EUR/codes");
    await expectConforms("GET", "/admin/products/{sku}/codes", stock);
    expect(stock.body.data.byValue).toEqual([
      { value: 10, available: 1, reserved: 0, sold: 0 },
      { value: 25.5, available: 0, reserved: 2, sold: 0 },
    ]);
  });

  it("accepts any value within a range SKU's bounds", async () => {
    const response = await admin("POST", "/admin/products/INV-RANGE/codes", {
      codes: [code("5", "R-1"), code("499.99", "R-2"), code(500, "R-3")],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.added).toBe(3);
  });

  it("409 listing every duplicate, in the upload or already stored; nothing is added", async () => {
    await admin("POST", "/admin/products/INV-EUR/codes", { codes: [code(10, "D-STORED")] });
    const before = await snapshot();
    const response = await admin("POST", "/admin/products/INV-EUR/codes", {
      codes: [
        code(10, "D-NEW-1"),
        code(10, "D-TWICE"),
        code(10, "D-STORED"),
        code(25.5, "D-TWICE"),
        code(10, "D-NEW-2"),
        code(10, "D-TWICE"),
      ],
    });
    expect(response.status).toBe(409);
    await expectConforms("POST", "/admin/products/{sku}/codes", response);
    expect(response.body).toEqual({
      message: "Duplicate codes",
      code: "duplicate_codes",
      details: {
        duplicates: [
          { pin: "D-TWICE", reason: "repeated_in_upload", indexes: [1, 3, 5] },
          { pin: "D-STORED", reason: "already_stored", indexes: [2] },
        ],
      },
    });
    expect(await snapshot()).toEqual(before);
  });

  it("a pin is unique per SKU: the same pin may exist under another SKU", async () => {
    await admin("POST", "/admin/products/INV-EUR/codes", { codes: [code(10, "SHARED-PIN")] });
    const response = await admin("POST", "/admin/products/INV-RANGE/codes", { codes: [code(10, "SHARED-PIN")] });
    expect(response.status).toBe(200);
  });

  it("4xx for bad uploads; nothing is added", async () => {
    const before = await snapshot();
    const cases: [string, unknown, number, string][] = [
      ["/admin/products/INV-EUR/codes", { codes: [] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", { codes: [code("11", "B-1")] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", { codes: [code("10.001", "B-1")] }, 400, "invalid_request_body"],
      ["/admin/products/INV-RANGE/codes", { codes: [code("500.01", "B-1")] }, 400, "invalid_request_body"],
      ["/admin/products/INV-RANGE/codes", { codes: [code("4.99", "B-1")] }, 400, "invalid_request_body"],
      [
        "/admin/products/INV-EUR/codes",
        { codes: [{ value: 10, pin: "B-1", link: "javascript:alert(1)" }] },
        400,
        "invalid_request_body",
      ],
      ["/admin/products/INV-EUR/codes", { codes: [{ value: 10, pin: "B-1" }] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", { codes: [{ ...code(10, "B-1"), extra: true }] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", { codes: [code(10, " padded ")] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", { codes: [code(10, "tab\there")] }, 400, "invalid_request_body"],
      ["/admin/products/INV-EUR/codes", [code(10, "B-1")], 400, "invalid_request_body"],
      ["/admin/products/INV-SANDBOX/codes", { codes: [code(10, "B-1")] }, 400, "invalid_request_body"],
      ["/admin/products/NOPE/codes", { codes: [code(10, "B-1")] }, 404, "sku_not_found"],
    ];
    for (const [path, body, status, expected] of cases) {
      const response = await admin("POST", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(response.body.code).toBe(expected);
      await expectConforms("POST", "/admin/products/{sku}/codes", response);
    }
    const invalid = await admin("POST", "/admin/products/INV-EUR/codes", {
      codes: [code("10", "B-1"), code("11", "B-2")],
    });
    expect(invalid.body.details.issues).toEqual([
      { path: "codes.1.value", message: expect.stringContaining("not one of the quotes") },
    ]);
    const malformed = await admin("POST", "/admin/products/INV-EUR/codes", undefined, {
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.body.code).toBe("malformed_json");
    const form = await admin("POST", "/admin/products/INV-EUR/codes", undefined, {
      rawBody: "a=b",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe("unsupported_media_type");
    const tooMany = await admin("POST", "/admin/products/INV-EUR/codes", {
      codes: Array.from({ length: 10_001 }, (_, index) => ({
        value: 10,
        pin: `M${index}`,
        link: "https://r.example/x",
      })),
    });
    expect(tooMany.status).toBe(400);
    const tooBig = await admin("POST", "/admin/products/INV-EUR/codes", {
      codes: [code(10, "x".repeat(200))],
      pad: "y".repeat(1_100_000),
    });
    expect(tooBig.status).toBe(413);
    expect(await snapshot()).toEqual(before);
  });

  it("takes 10,000 codes in one upload", async () => {
    const codes = Array.from({ length: 10_000 }, (_, index) => ({
      value: 10,
      pin: `BULK-${index}`,
      link: `https://r.example/${index}`,
    }));
    const response = await admin("POST", "/admin/products/INV-EUR/codes", { codes });
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(200);
    expect(response.body.data.added).toBe(10_000);
  });
});

describe("an upload racing a change of the SKU", () => {
  it("409 sku_changed when the SKU's currency changed between the upload's check and its write; nothing is added", async () => {
    expect((await admin("PUT", "/admin/products/INV-RELABELLED", FIXED_PRODUCT)).status).toBe(200);
    const auditsBefore = await auditActions();
    // D1 as the upload sees it: the SKU (without codes yet, so the change is allowed) turns JPY right before the write.
    const db = racedDb(() => env.DB.prepare(`UPDATE products SET currency = 'JPY' WHERE sku = 'INV-RELABELLED'`).run());
    const upload = inventoryRoutes(requireProduct).find((route) => route.method === "POST")!;
    const refused = await thrownByAdminRoute(
      upload,
      {
        method: "POST",
        path: "/admin/products/INV-RELABELLED/codes",
        params: { sku: "INV-RELABELLED" },
        body: { codes: [code("10", "RACE-1"), code("25.5", "RACE-2")] },
      },
      db,
    );
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).failure).toMatchObject({
      code: "sku_changed",
      details: { sku: "INV-RELABELLED", changed: ["currency"] },
    });
    expect(HTTP_STATUS[(refused as Refusal).failure.code]).toBe(409);
    expect(await codesOf("INV-RELABELLED")).toEqual([]);
    expect(await auditActions()).toEqual(auditsBefore);
  });
});

describe("POST /admin/products/:sku/codes as CSV", () => {
  it("reads a header row in any column order, quoted fields and CRLF rows", async () => {
    const response = await admin(
      "POST",
      "/admin/products/INV-EUR/codes",
      undefined,
      csv(
        'pin,link,value\r\nC-1,https://redeem.example.com/C-1,10\r\n"C,2","https://redeem.example.com/C-2?a=1&b=""2""",25.50\r\n\r\n',
      ),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    await expectConforms("POST", "/admin/products/{sku}/codes", response);
    expect(response.body.data.added).toBe(2);
    const rows = (await codesOf("INV-EUR")).filter((row: any) => String(row.pin).startsWith("C"));
    expect(rows).toEqual([
      { value: "10", pin: "C-1", link: "https://redeem.example.com/C-1", status: "available" },
      { value: "25.5", pin: "C,2", link: 'https://redeem.example.com/C-2?a=1&b="2"', status: "available" },
    ]);
  });

  it("reports duplicates of a CSV upload by data-row index", async () => {
    const response = await admin(
      "POST",
      "/admin/products/INV-EUR/codes",
      undefined,
      csv("value,pin,link\n10,CSV-D,https://r.example/1\n10,CSV-D,https://r.example/2\n10,C-1,https://r.example/3\n"),
    );
    expect(response.status).toBe(409);
    expect(response.body.details.duplicates).toEqual([
      { pin: "CSV-D", reason: "repeated_in_upload", indexes: [0, 1] },
      { pin: "C-1", reason: "already_stored", indexes: [2] },
    ]);
  });

  it("400 for a bad header, a short row, an open quote or an empty file; nothing is added", async () => {
    const before = await snapshot();
    for (const text of [
      "value,pin\n10,X-1\n",
      "value,pin,link,extra\n10,X-1,https://r.example/1,e\n",
      "value,pin,pin\n10,X-1,X-2\n",
      "value,pin,link\n10,X-1\n",
      'value,pin,link\n10,"X-1,https://r.example/1\n',
      'value,pin,link\n10,X"1,https://r.example/1\n',
      "",
      "value,pin,link\n",
      "value,pin,link\n11,X-1,https://r.example/1\n",
    ]) {
      const response = await admin("POST", "/admin/products/INV-EUR/codes", undefined, csv(text));
      expect(response.status, JSON.stringify(text)).toBe(400);
      expect(response.body.code).toBe("invalid_request_body");
    }
    expect(await snapshot()).toEqual(before);
  });
});
