import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createOrder, line, seedDemo, topUp } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, snapshot } from "../admin-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "1000");
});

describe("exchange rates", () => {
  it("sets a rate, replaces it, lists them; new orders use it", async () => {
    const set = await admin("PUT", "/admin/exchange-rates/USD/CHF", { rate: "0.8800" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await expectConforms("PUT", "/admin/exchange-rates/{base}/{target}", set);
    expect(set.body.data).toMatchObject({ baseCurrency: "USD", targetCurrency: "CHF", rate: 0.88 });
    const row = await env.DB.prepare(
      `SELECT rate FROM exchange_rates WHERE base_currency = 'USD' AND target_currency = 'CHF'`,
    ).first();
    expect(row).toEqual({ rate: "0.88" });
    const replaced = await admin("PUT", "/admin/exchange-rates/USD/EUR", { rate: 0.5 });
    expect(replaced.body.data.rate).toBe(0.5);
    const list = await admin("GET", "/admin/exchange-rates");
    await expectConforms("GET", "/admin/exchange-rates", list);
    expect(list.body.data.rates.map((rate: any) => `${rate.baseCurrency}>${rate.targetCurrency}=${rate.rate}`)).toEqual(
      ["EUR>USD=1.08", "USD>CHF=0.88", "USD>EUR=0.5", "USD>GBP=0.79", "USD>JPY=150"],
    );
    // 10 EUR at 0.5 EUR per USD is 20 USD.
    const order = await createOrder({ productList: [line("DEMO-EU-FIXED", 10)] });
    expect(order.body.data.invoice.total).toBe(20);
  });

  it("4xx for bad rates; nothing changes", async () => {
    const before = await snapshot();
    const cases: [string, unknown, string][] = [
      ["/admin/exchange-rates/USD/USD", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/USD/XYZ", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/usd/EUR", { rate: "1" }, "invalid_parameters"],
      ["/admin/exchange-rates/USD/EUR", { rate: "0" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: -1 }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "abc" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "1e3" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: 1e-13 }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", { rate: "1", note: "typo" }, "invalid_request_body"],
      ["/admin/exchange-rates/USD/EUR", {}, "invalid_request_body"],
    ];
    for (const [path, body, code] of cases) {
      const response = await admin("PUT", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.code).toBe(code);
      await expectConforms("PUT", "/admin/exchange-rates/{base}/{target}", response);
    }
    expect(await snapshot()).toEqual(before);
  });
});
