import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { forgetCatalogueCache, catalogueSnapshot } from "../../src/catalogue/catalogue-cache";
import { addClient, call, createOrder, line, seedDemo } from "../helpers";

const cached = { DB: env.DB, CATALOGUE_CACHE_SECONDS: "10" };

async function setRate(rate: string) {
  await env.DB.prepare(`UPDATE exchange_rates SET rate = ?1 WHERE base_currency = 'USD' AND target_currency = 'EUR'`)
    .bind(rate)
    .run();
}

describe("the create-time catalogue cache", () => {
  beforeAll(seedDemo);
  beforeEach(async () => {
    forgetCatalogueCache();
    await setRate("0.92");
  });

  it("serves a changed rate from the cache within its staleness, and reads D1 again once cleared", async () => {
    const first = await catalogueSnapshot(cached, "demo", ["DEMO-EU-FIXED"], "USD");
    expect(first.rates.get("USD>EUR")?.rate).toBe("0.92");
    await setRate("0.95");
    expect((await catalogueSnapshot(cached, "demo", ["DEMO-EU-FIXED"], "USD")).rates.get("USD>EUR")?.rate).toBe("0.92");
    forgetCatalogueCache();
    expect((await catalogueSnapshot(cached, "demo", ["DEMO-EU-FIXED"], "USD")).rates.get("USD>EUR")?.rate).toBe("0.95");
  });

  it("does not cache when its staleness is 0", async () => {
    const fresh = { DB: env.DB, CATALOGUE_CACHE_SECONDS: "0" };
    await catalogueSnapshot(fresh, "demo", ["DEMO-EU-FIXED"], "USD");
    await setRate("0.97");
    expect((await catalogueSnapshot(fresh, "demo", ["DEMO-EU-FIXED"], "USD")).rates.get("USD>EUR")?.rate).toBe("0.97");
  });

  it("reads D1 again when the cached snapshot lacks what the request names: additions show at once", async () => {
    await addClient("cache-wallets", { USD: "10" });
    const before = await catalogueSnapshot(cached, "cache-wallets", ["DEMO-US-RANGE"], "EUR");
    expect(before.walletCurrencies.has("EUR")).toBe(false);
    await env.DB.prepare(
      `INSERT INTO wallets (client_id, currency, created_at) VALUES ('cache-wallets', 'EUR', 0)`,
    ).run();
    expect(
      (await catalogueSnapshot(cached, "cache-wallets", ["DEMO-US-RANGE"], "EUR")).walletCurrencies.has("EUR"),
    ).toBe(true);

    await env.DB.prepare(
      `INSERT INTO products (sku, name, product_type, currency, country, region, min_quote, max_quote, supplier, updated_at)
       VALUES ('CACHE-NEW', 'New', 'range', 'USD', 'US', 'NA', '1', '10', 'sandbox', 0)`,
    ).run();
    const withNew = await catalogueSnapshot(cached, "cache-wallets", ["DEMO-US-RANGE", "CACHE-NEW"], "EUR");
    expect(withNew.products.has("CACHE-NEW")).toBe(true);
  });

  it("is cleared by an operator write through this isolate", async () => {
    await catalogueSnapshot(cached, "demo", ["DEMO-EU-FIXED"], "USD");
    const response = await call("PUT", "/admin/exchange-rates/USD/EUR", {
      key: null,
      headers: { authorization: "Bearer test-admin-token" },
      body: { rate: "0.91" },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((await catalogueSnapshot(cached, "demo", ["DEMO-EU-FIXED"], "USD")).rates.get("USD>EUR")?.rate).toBe("0.91");
  });
});

describe("stock is decided by reserving codes", () => {
  beforeAll(seedDemo);

  it("a create refused for its balance gives back the codes it reserved", async () => {
    const key = await addClient("poor-reserver", { USD: "5" });
    const available = async () =>
      (await env.DB.prepare(
        `SELECT COUNT(*) AS n FROM codes WHERE sku = 'DEMO-GB-FIXED' AND status = 'available'`,
      ).first<{ n: number }>())!.n;
    const before = await available();
    const response = await createOrder({ productList: [line("DEMO-GB-FIXED", 20, 2)] }, key);
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("You have insufficient funds in your wallet to create this order");
    expect(await available()).toBe(before);
    const held = await env.DB.prepare(
      `SELECT COUNT(*) AS n FROM codes WHERE order_id IS NOT NULL AND status = 'reserved'`,
    ).first<{ n: number }>();
    expect(held!.n).toBe(0);
  });
});
