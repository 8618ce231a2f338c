/**
 * The README walkthrough, from an empty database, through the API alone: create a client, top it up, add a
 * product, its codes and a rate, then place, confirm and retrieve an order with the client's new key.
 * Every answer is checked against the OpenAPI document.
 */
import { describe, expect, it } from "vitest";
import { call } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, auditActions } from "../admin-helpers";

describe("operator walkthrough from an empty database", () => {
  it("runs the service with the API alone", async () => {
    const created = await admin("POST", "/admin/clients", {
      id: "acme",
      name: "Acme Resellers",
      keyLabel: "production",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await expectConforms("POST", "/admin/clients", created);
    const apiKey: string = created.body.data.apiKey;
    expect(apiKey).toMatch(/^sk_test_[0-9a-f]{64}$/);
    expect(created.body.data.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const toppedUp = await admin("POST", "/admin/wallets/acme/USD/top-ups", {
      amount: "500.00",
      idempotencyKey: "acme-opening-usd",
      reason: "opening balance",
    });
    expect(toppedUp.status, JSON.stringify(toppedUp.body)).toBe(200);
    await expectConforms("POST", "/admin/wallets/{clientId}/{currency}/top-ups", toppedUp);
    expect(toppedUp.body.data.balance).toBe(500);

    const product = await admin("PUT", "/admin/products/EU-VOUCHER", {
      productType: "fixed",
      name: "EU voucher",
      currency: "EUR",
      country: "DE",
      region: "Europe",
      quotes: ["10", "25"],
      supplier: "inventory",
    });
    expect(product.status, JSON.stringify(product.body)).toBe(200);
    await expectConforms("PUT", "/admin/products/{sku}", product);

    const codes = await admin("POST", "/admin/products/EU-VOUCHER/codes", undefined, {
      headers: { "content-type": "text/csv" },
      rawBody:
        "value,pin,link\n25,EU-25-0001,https://redeem.example.com/EU-25-0001\n25,EU-25-0002,https://redeem.example.com/EU-25-0002\n",
    });
    expect(codes.status, JSON.stringify(codes.body)).toBe(200);
    await expectConforms("POST", "/admin/products/{sku}/codes", codes);
    expect(codes.body.data.added).toBe(2);

    const rate = await admin("PUT", "/admin/exchange-rates/USD/EUR", { rate: "0.92" });
    expect(rate.status, JSON.stringify(rate.body)).toBe(200);
    await expectConforms("PUT", "/admin/exchange-rates/{base}/{target}", rate);

    const catalogue = await call("GET", "/products", { key: apiKey });
    await expectConforms("GET", "/products", catalogue);
    expect(catalogue.body.data.products).toEqual([
      expect.objectContaining({
        sku: "EU-VOUCHER",
        quotes: [10, 25],
        availability: { type: "stock", count: 2, byQuote: [{ quote: 25, count: 2 }] },
        deal: null,
      }),
    ]);

    const order = await call("POST", "/order/create", {
      key: apiKey,
      body: {
        productList: [{ sku: "EU-VOUCHER", productType: "fixed", quote: 25, quantity: 2 }],
        wallet: "USD",
        reference: "acme-0001",
      },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    await expectConforms("POST", "/order/create", order);
    // 50 EUR at 0.92 EUR per USD: 54.347… rounded up to 54.35 USD.
    expect(order.body.data.invoice.total).toBe(54.35);

    const confirmed = await call("PUT", "/order/confirm", { key: apiKey, body: { orderId: order.body.data.id } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);

    let got = await call("GET", `/order/get?orderId=${order.body.data.id}`, { key: apiKey });
    for (let attempt = 0; attempt < 50 && got.body.data.state !== "successful"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      got = await call("GET", `/order/get?orderId=${order.body.data.id}`, { key: apiKey });
    }
    expect(got.body.data.state).toBe("successful");
    expect(got.body.data.redeem["EU-VOUCHER"].redeemPin.sort()).toEqual(["EU-25-0001", "EU-25-0002"]);
    await expectConforms("GET", "/order/get", got);

    const wallets = await call("GET", "/wallets", { key: apiKey });
    expect(wallets.body.data).toEqual({ wallets: [{ currency: "USD", balance: 445.65 }] });

    const byReference = await admin("GET", "/admin/orders?clientId=acme&reference=acme-0001");
    expect(byReference.status).toBe(200);
    await expectConforms("GET", "/admin/orders", byReference);
    expect(byReference.body.data.order.uid).toBe(order.body.data.id);

    expect(await auditActions()).toEqual([
      "client.create",
      "wallet.top_up",
      "product.create",
      "inventory.upload",
      "exchange_rate.set",
    ]);
  });
});
