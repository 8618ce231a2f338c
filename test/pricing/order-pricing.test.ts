/**
 * Money through the API: exchange with the demo rates, rounding up to the wallet's minor unit (JPY 0,
 * USD 2, KWD 3), deals as customerDeal and invoice items, the invoice and retailInvoice structure,
 * Timestamp objects and expiresAt, and rates frozen at create.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { OrderView, CreateOrderData } from "../../src/orders/order-view-schemas";
import { balanceOf, confirmOrder, createOrder, getOrder, ledgerSumOf, line, seedDemo, topUp } from "../helpers";
import { MESSAGES, addProduct, expectError, expectOk, freshClient, ledgerOf, setDeal, setRate } from "../order-helpers";

const DEMO_RATE_DATE = { _seconds: 1767225600, _nanoseconds: 0 };

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100000");
  await addProduct({ sku: "T-EUR-RANGE", productType: "range", currency: "EUR", min: "1", max: "1000" });
  await addProduct({ sku: "T-KWD-RANGE", productType: "range", currency: "KWD", min: "1", max: "100" });
  await setRate("USD", "KWD", "0.307");
});

async function created(body: Record<string, unknown>, key?: string) {
  const res = await createOrder(body, key);
  const data = expectOk(res);
  expect(CreateOrderData.safeParse(data).success, JSON.stringify(CreateOrderData.safeParse(data).error?.issues)).toBe(
    true,
  );
  return data;
}

const item = (record: any, type: string) => record.items.find((i: any) => i.type === type);

describe("exchange: charge = product amount / rate, rounded up to the wallet's minor unit", () => {
  it.each([
    ["20 EUR / 0.92 = 21.739… → 21.74 USD", line("DEMO-EU-FIXED", 10, 2), 21.74],
    ["1000 JPY / 150 = 6.666… → 6.67 USD", line("DEMO-JP-RANGE", 1000, 1), 6.67],
    ["1500 JPY / 150 = 10 exactly → 10 USD (no cent added when exact)", line("DEMO-JP-RANGE", 1500, 1), 10],
    ["1001 JPY / 150 = 6.67333… → 6.68 USD (up, not nearest)", line("DEMO-JP-RANGE", 1001, 1), 6.68],
    ["20 GBP / 0.79 = 25.316… → 25.32 USD", line("DEMO-GB-FIXED", 20, 1), 25.32],
    ["10 KWD / 0.307 = 32.5732… → 32.58 USD", line("T-KWD-RANGE", 10, 1, "range"), 32.58],
    ["same currency: 12.34 × 3 = 37.02 USD, no exchange", line("DEMO-US-RANGE", 12.34, 3), 37.02],
  ])("%s", async (_name, productLine, total) => {
    const data = await created({ productList: [productLine] });
    expect(data.invoice.total).toBe(total);
    expect(data.invoice.records[0].total.USD).toBe(total);
  });

  it("EUR wallet buying USD: 10 USD / 1.08 = 9.259… → 9.26 EUR", async () => {
    const client = await freshClient({ EUR: "100" });
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "EUR" }, client.key);
    expect(data.invoice).toMatchObject({ total: 9.26, wallet: "EUR" });
    expect(data.exchangeRates).toEqual([
      { baseCurrency: "EUR", targetCurrency: "USD", rate: 1.08, modifiedDate: DEMO_RATE_DATE },
    ]);
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "EUR")).toBe("90.74");
  });

  it("each line is rounded up on its own, and the invoice total is the sum of the lines", async () => {
    // 10.5 × 2 = 21 USD; 25 EUR / 0.92 = 27.1739 → 27.18; 7 EUR / 0.92 = 7.6086 → 7.61; 1000 JPY → 6.67.
    const data = await created({
      productList: [
        line("DEMO-US-RANGE", 10.5, 2),
        line("DEMO-EU-FIXED", 25, 1),
        line("T-EUR-RANGE", 7, 1, "range"),
        line("DEMO-JP-RANGE", 1000, 1),
      ],
    });
    expect(data.invoice.records.map((r: any) => r.total.USD)).toEqual([21, 27.18, 7.61, 6.67]);
    expect(data.invoice.total).toBe(62.46);
    // one rate per currency, even with two EUR lines
    expect(data.exchangeRates.map((r: any) => `${r.baseCurrency}>${r.targetCurrency}`).sort()).toEqual([
      "USD>EUR",
      "USD>JPY",
    ]);
  });

  it("a same-currency order has no exchange rates and no exchange items", async () => {
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)] });
    expect(data.exchangeRates).toEqual([]);
    expect(data.invoice.records[0].items.map((i: any) => i.type)).toEqual(["main-product"]);
    expect(data.invoice.records[0].total).toEqual({ USD: 10 });
  });

  it("confirm debits exactly the cross-currency invoice total", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await created(
      { productList: [line("DEMO-JP-RANGE", 1001, 1), line("DEMO-GB-FIXED", 20, 1)] },
      client.key,
    );
    expect(data.invoice.total).toBe(32); // 6.68 + 25.32
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "USD")).toBe("68");
    const charge = (await ledgerOf(client.id, "USD")).find((entry) => entry.kind === "order_charge");
    expect(charge?.amount).toBe("-32");
  });
});

describe("JPY wallet (0 decimals) and KWD wallet (3 decimals)", () => {
  let jp: { id: string; key: string };
  beforeAll(async () => {
    jp = await freshClient({ JPY: "100000" });
    await setRate("JPY", "USD", "0.0067");
    await setRate("JPY", "EUR", "0.0061");
  });

  it("USD product from a JPY wallet: 10 / 0.0067 = 1492.53… → 1493 JPY (whole yen, rounded up)", async () => {
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "JPY" }, jp.key);
    expect(data.invoice.total).toBe(1493);
    expect(Number.isInteger(data.invoice.total)).toBe(true);
    expect(item(data.invoice.records[0], "exchange-base-currency").effect).toEqual({ amount: 1493, currency: "JPY" });
    expect(data.invoice.records[0].total).toEqual({ USD: 10, JPY: 1493 });
    const before = await balanceOf(jp.id, "JPY");
    expectOk(await confirmOrder(data.id, jp.key));
    expect(Number(before) - Number(await balanceOf(jp.id, "JPY"))).toBe(1493);
    expect(await balanceOf(jp.id, "JPY")).toMatch(/^\d+$/);
  });

  it("a cent amount becomes whole yen: 12.34 USD / 0.0067 = 1841.79… → 1842", async () => {
    const data = await created({ productList: [line("DEMO-US-RANGE", 12.34, 1)], wallet: "JPY" }, jp.key);
    expect(data.invoice.total).toBe(1842);
  });

  it("EUR product from a JPY wallet: 25 / 0.0061 = 4098.36… → 4099", async () => {
    const data = await created({ productList: [line("DEMO-EU-FIXED", 25, 1)], wallet: "JPY" }, jp.key);
    expect(data.invoice.total).toBe(4099);
  });

  it("JPY product from a JPY wallet: no exchange, the quote as is", async () => {
    const data = await created({ productList: [line("DEMO-JP-RANGE", 1234, 2)], wallet: "JPY" }, jp.key);
    expect(data.invoice.total).toBe(2468);
    expect(data.exchangeRates).toEqual([]);
  });

  it("a JPY quote with decimals → 400 The entered quote doesn't match the SKU.", async () => {
    expectError(
      await createOrder({ productList: [line("DEMO-JP-RANGE", 1234.5, 1)], wallet: "JPY" }, jp.key),
      400,
      MESSAGES.quoteMismatch,
    );
  });

  it("KWD: a 3-decimal quote is fine, a 4-decimal one is not; a KWD wallet is charged to the fils, rounded up", async () => {
    expectOk(await createOrder({ productList: [line("T-KWD-RANGE", 1.234, 1, "range")] }));
    expectError(
      await createOrder({ productList: [line("T-KWD-RANGE", 1.2345, 1, "range")] }),
      400,
      MESSAGES.quoteMismatch,
    );
    const kw = await freshClient({ KWD: "100" });
    await setRate("KWD", "USD", "3.25");
    // 10 USD / 3.25 = 3.0769… → 3.077 KWD
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "KWD" }, kw.key);
    expect(data.invoice.total).toBe(3.077);
    expectOk(await confirmOrder(data.id, kw.key));
    expect(await balanceOf(kw.id, "KWD")).toBe("96.923");
  });
});

describe("deals: customerDeal and invoice items", () => {
  it("percentage fee and fixed discount: 100 × 2 + 2% − 1.50 per unit = 201", async () => {
    const client = await freshClient({ USD: "500" });
    await setDeal(client.id, "DEMO-US-RANGE", { fee: ["2", "percentage"], discount: ["1.5", "fixed"] });
    const data = await created({ productList: [line("DEMO-US-RANGE", 100, 2)] }, client.key);
    expect(data.invoice.total).toBe(201);
    const record = data.invoice.records[0];
    expect(record.items.map((i: any) => i.type)).toEqual(["main-product", "customer-fee", "customer-discount"]);
    expect(item(record, "main-product")).toMatchObject({
      effect: { amount: 200, currency: "USD" },
      metaData: { quantity: 2, quote: 100 },
    });
    expect(item(record, "customer-fee")).toMatchObject({
      effect: { amount: 4, currency: "USD" },
      metaData: { amount: 2, adjustmentMode: "percentage" },
    });
    expect(item(record, "customer-discount")).toMatchObject({
      effect: { amount: -3, currency: "USD" },
      metaData: { amount: 1.5, adjustmentMode: "fixed" },
    });
    expect(record.total).toEqual({ USD: 201 });
    // retail: no deal
    expect(data.retailInvoice.total).toBe(200);
    expect(data.retailInvoice.records[0].items.map((i: any) => i.type)).toEqual(["main-product"]);
    const view = expectOk(await getOrder(data.id, client.key));
    expect(view.products["DEMO-US-RANGE"].customerDeal).toEqual({
      dealState: "active",
      fee: { amount: 2, adjustmentMode: "percentage" },
      discount: { amount: 1.5, adjustmentMode: "fixed" },
    });
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "USD")).toBe("299");
  });

  it("cross-currency deal: fixed fee 1 EUR per unit on 2 × 25 EUR = 52 EUR → 56.53 USD; retail 50 EUR → 54.35 USD", async () => {
    const client = await freshClient({ USD: "500" });
    await setDeal(client.id, "DEMO-EU-FIXED", { fee: ["1", "fixed"] });
    const data = await created({ productList: [line("DEMO-EU-FIXED", 25, 2)] }, client.key);
    const record = data.invoice.records[0];
    expect(record.items.map((i: any) => i.type)).toEqual([
      "main-product",
      "customer-fee",
      "exchange-target-currency",
      "exchange-base-currency",
    ]);
    expect(item(record, "customer-fee").effect).toEqual({ amount: 2, currency: "EUR" });
    expect(item(record, "exchange-target-currency").effect).toEqual({ amount: -52, currency: "EUR" });
    expect(item(record, "exchange-base-currency").effect).toEqual({ amount: 56.53, currency: "USD" });
    expect(record.total).toEqual({ EUR: 52, USD: 56.53 });
    expect(data.invoice.total).toBe(56.53);
    expect(data.retailInvoice.total).toBe(54.35);
    expect(item(data.retailInvoice.records[0], "exchange-target-currency").effect).toEqual({
      amount: -50,
      currency: "EUR",
    });
  });

  it("a percentage rounds half up in the product currency: 10% of 10.05 = 1.005 → 1.01 discount → 9.04", async () => {
    const client = await freshClient({ USD: "100" });
    await setDeal(client.id, "DEMO-US-RANGE", { discount: ["10", "percentage"] });
    const data = await created({ productList: [line("DEMO-US-RANGE", 10.05, 1)] }, client.key);
    expect(item(data.invoice.records[0], "customer-discount").effect.amount).toBe(-1.01);
    expect(data.invoice.total).toBe(9.04);
  });

  it("a JPY fee has no decimals: 2.5% of 1001 JPY = 25.025 → 25 JPY; 1026 JPY / 150 = 6.84 USD", async () => {
    const client = await freshClient({ USD: "100" });
    await setDeal(client.id, "DEMO-JP-RANGE", { fee: ["2.5", "percentage"] });
    const data = await created({ productList: [line("DEMO-JP-RANGE", 1001, 1)] }, client.key);
    expect(item(data.invoice.records[0], "customer-fee").effect).toEqual({ amount: 25, currency: "JPY" });
    expect(data.invoice.total).toBe(6.84);
  });

  it("a discount larger than the line never makes it negative", async () => {
    const client = await freshClient({ USD: "100" });
    await setDeal(client.id, "DEMO-US-RANGE", { discount: ["50", "fixed"] });
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 2)] }, client.key);
    expect(data.invoice.total).toBe(0);
    expect(data.invoice.records[0].total.USD).toBe(0);
    expectOk(await confirmOrder(data.id, client.key));
    expect(await balanceOf(client.id, "USD")).toBe("100");
    expect(await ledgerSumOf(client.id, "USD")).toBe("100");
  });

  it("no deal: customerDeal dealState none, zero fee and discount, no fee/discount items", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)] }, client.key);
    const view = expectOk(await getOrder(data.id, client.key));
    expect(view.products["DEMO-US-RANGE"].customerDeal).toEqual({
      dealState: "none",
      fee: { amount: 0, adjustmentMode: "fixed" },
      discount: { amount: 0, adjustmentMode: "fixed" },
    });
    expect(data.invoice.records[0].items.map((i: any) => i.type)).toEqual(["main-product"]);
  });

  it("a deal of another client does not apply", async () => {
    const a = await freshClient({ USD: "100" });
    const b = await freshClient({ USD: "100" });
    await setDeal(a.id, "DEMO-US-RANGE", { fee: ["10", "percentage"] });
    expect((await created({ productList: [line("DEMO-US-RANGE", 10, 1)] }, a.key)).invoice.total).toBe(11);
    expect((await created({ productList: [line("DEMO-US-RANGE", 10, 1)] }, b.key)).invoice.total).toBe(10);
  });

  it("a deal in state none changes nothing (dealState none = no deal)", async () => {
    const client = await freshClient({ USD: "100" });
    await setDeal(client.id, "DEMO-US-RANGE", { fee: ["5", "fixed"], state: "none" });
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)] }, client.key);
    expect(data.invoice.total).toBe(10);
  });
});

describe("invoice, retailInvoice, Timestamp objects and expiresAt", () => {
  it("create: records per SKU with main-product / exchange-target-currency / exchange-base-currency items and rate metaData", async () => {
    const data = await created({ productList: [line("DEMO-EU-FIXED", 10, 2), line("DEMO-US-RANGE", 5, 1)] });
    expect(data.invoice).toMatchObject({ total: 26.74, wallet: "USD", paymentMethod: "wallet", status: "unpaid" });
    expect(data.invoice.records.map((r: any) => r.sku)).toEqual(["DEMO-EU-FIXED", "DEMO-US-RANGE"]);
    const eu = data.invoice.records[0];
    const rate = { baseCurrency: "USD", targetCurrency: "EUR", rate: 0.92, modifiedDate: DEMO_RATE_DATE };
    expect(eu.items).toHaveLength(3);
    expect(item(eu, "main-product")).toMatchObject({
      effect: { amount: 20, currency: "EUR" },
      metaData: { quantity: 2, quote: 10 },
    });
    expect(typeof item(eu, "main-product").description).toBe("string");
    expect(item(eu, "exchange-target-currency")).toMatchObject({
      effect: { amount: -20, currency: "EUR" },
      metaData: rate,
    });
    expect(item(eu, "exchange-base-currency")).toMatchObject({
      effect: { amount: 21.74, currency: "USD" },
      metaData: rate,
    });
    expect(eu.total).toEqual({ EUR: 20, USD: 21.74 });
    expect(data.exchangeRates).toEqual([rate]);
    expect(data.retailInvoice).toMatchObject({ total: 26.74, wallet: "USD", paymentMethod: "wallet" });
    expect(data.retailInvoice.records).toHaveLength(2);
  });

  it("expiresAt is an integer in ms, creation + ORDER_TTL_SECONDS (600 s)", async () => {
    const before = Date.now();
    const data = await created({ productList: [line("DEMO-US-RANGE", 10, 1)] });
    const after = Date.now();
    expect(env.ORDER_TTL_SECONDS).toBe("600");
    expect(Number.isInteger(data.expiresAt)).toBe(true);
    expect(data.expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(data.expiresAt).toBeLessThanOrEqual(after + 600_000);
    const view = expectOk(await getOrder(data.id));
    const createdMs = view.createdDate._seconds * 1000 + view.createdDate._nanoseconds / 1_000_000;
    expect(createdMs + 600_000).toBe(data.expiresAt);
  });

  it("get: the order object with Timestamp objects, products keyed by SKU, the same invoice as create", async () => {
    const reference = `ref-view-${crypto.randomUUID()}`;
    const data = await created({
      productList: [line("DEMO-EU-FIXED", 10, 1), line("DEMO-JP-RANGE", 2000, 2)],
      reference,
    });
    const view = expectOk(await getOrder(data.id));
    const parsed = OrderView.safeParse(view);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    for (const ts of [view.createdDate, view.modifiedDate, view.exchangeRates[0].modifiedDate]) {
      expect(Object.keys(ts).sort()).toEqual(["_nanoseconds", "_seconds"]);
      expect(Number.isInteger(ts._seconds)).toBe(true);
      expect(Number.isInteger(ts._nanoseconds)).toBe(true);
      expect(ts._nanoseconds).toBeGreaterThanOrEqual(0);
      expect(ts._nanoseconds).toBeLessThan(1e9);
    }
    expect(Math.abs(view.createdDate._seconds - Date.now() / 1000)).toBeLessThan(30);
    expect(view.reference).toBe(reference);
    expect(Object.keys(view.products).sort()).toEqual(["DEMO-EU-FIXED", "DEMO-JP-RANGE"]);
    expect(view.products["DEMO-EU-FIXED"]).toMatchObject({
      sku: "DEMO-EU-FIXED",
      request: { quote: 10, quantity: 1 },
      shopItem: {
        country: "DE",
        quote: 10,
        name: "Demo EU voucher",
        region: "Europe",
        productType: "fixed",
        baseCurrency: "EUR",
      },
    });
    expect(view.products["DEMO-JP-RANGE"].shopItem).toMatchObject({
      productType: "range",
      baseCurrency: "JPY",
      country: "JP",
    });
    expect(view.invoice).toEqual(data.invoice);
    expect(view.exchangeRates).toEqual(data.exchangeRates);
  });
});

describe("rates are frozen at create", () => {
  it("a rate change in D1 after create changes neither the order nor its confirm charge; new orders use the new rate", async () => {
    const client = await freshClient({ USD: "100" });
    const first = await created({ productList: [line("DEMO-EU-FIXED", 10, 1)] }, client.key);
    expect(first.invoice.total).toBe(10.87); // 10 / 0.92 = 10.869…
    await setRate("USD", "EUR", "0.5");
    try {
      const second = await created({ productList: [line("T-EUR-RANGE", 10, 1, "range")] }, client.key);
      expect(second.invoice.total).toBe(20);
      const view = expectOk(await getOrder(first.id, client.key));
      expect(view.invoice.total).toBe(10.87);
      expect(view.exchangeRates[0].rate).toBe(0.92);
      expect(item(view.invoice.records[0], "exchange-base-currency").metaData.rate).toBe(0.92);
      expectOk(await confirmOrder(first.id, client.key));
      expect(await balanceOf(client.id, "USD")).toBe("89.13");
      expect((await ledgerOf(client.id, "USD")).find((e) => e.orderId === first.id)?.amount).toBe("-10.87");
    } finally {
      await setRate("USD", "EUR", "0.92");
    }
  });

  it("a rate deleted after create: the order still confirms at its frozen rate", async () => {
    const client = await freshClient({ USD: "100" });
    const data = await created({ productList: [line("DEMO-GB-FIXED", 20, 1)] }, client.key);
    const saved = await env.DB.prepare(
      `SELECT * FROM exchange_rates WHERE base_currency = 'USD' AND target_currency = 'GBP'`,
    ).first<any>();
    await env.DB.prepare(`DELETE FROM exchange_rates WHERE base_currency = 'USD' AND target_currency = 'GBP'`).run();
    try {
      expectError(
        await createOrder({ productList: [line("DEMO-GB-FIXED", 20, 1)] }, client.key),
        500,
        MESSAGES.exchange,
      );
      expectOk(await confirmOrder(data.id, client.key));
      expect(await balanceOf(client.id, "USD")).toBe("74.68");
    } finally {
      await setRate("USD", "GBP", saved.rate);
    }
  });
});
