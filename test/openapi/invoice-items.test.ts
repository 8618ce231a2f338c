/**
 * Every invoice item type in real answers, checked against the document: an order with a deal (fee and
 * discount), a conversion and a line that fails (refund). Each item's metaData has the shape the document
 * gives its type: the line's {quantity, quote}, the deal's {amount, adjustmentMode}, or the exchange rate.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addClient, confirmOrder, createOrder, getOrder, line, orderStub, seedDemo, type ApiCall } from "../helpers";
import { setDeal } from "../order-helpers";
import { expectConforms } from "./conformance";

const META_KEYS: Record<string, string[]> = {
  "main-product": ["quantity", "quote"],
  refund: ["quantity", "quote"],
  "customer-fee": ["adjustmentMode", "amount"],
  "customer-discount": ["adjustmentMode", "amount"],
  "exchange-target-currency": ["baseCurrency", "modifiedDate", "rate", "targetCurrency"],
  "exchange-base-currency": ["baseCurrency", "modifiedDate", "rate", "targetCurrency"],
};

function itemsOf(invoice: { records: { items: { type: string; metaData: Record<string, unknown> }[] }[] }) {
  return invoice.records.flatMap((record) => record.items);
}

describe("invoice items in real answers", () => {
  it("carry the metaData the document gives their type, for every type", async () => {
    await seedDemo();
    const key = await addClient("openapi-items", { USD: "1000" });
    await setDeal("openapi-items", "DEMO-EU-FIXED", { fee: ["2", "percentage"], discount: ["0.5", "fixed"] });
    const created = await createOrder(
      { productList: [line("DEMO-EU-FIXED", 10, 2), line("DEMO-US-FAILING", 17.5, 1)] },
      key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await expectConforms("POST", "/order/create", created);
    const id = created.body.data.id as string;
    expect((await confirmOrder(id, key)).status).toBe(200);

    let got: ApiCall = await getOrder(id, key);
    for (let attempt = 0; attempt < 200 && got.body.data.state !== "partial"; attempt += 1) {
      await runDurableObjectAlarm(orderStub(id));
      got = await getOrder(id, key);
    }
    expect(got.body.data.state).toBe("partial");
    await expectConforms("GET", "/order/get", got);

    const items = itemsOf(got.body.data.invoice);
    expect([...new Set(items.map((item) => item.type))].sort()).toEqual(Object.keys(META_KEYS).sort());
    for (const item of [...items, ...itemsOf(created.body.data.invoice), ...itemsOf(created.body.data.retailInvoice)]) {
      expect(Object.keys(item.metaData).sort(), item.type).toEqual(META_KEYS[item.type]);
    }
  });
});
