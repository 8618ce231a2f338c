/**
 * One client cannot hold stock it could not pay for: an order that reserves codes holds its amount against
 * the wallet's balance until it is confirmed (the charge takes the money) or voided (expiry), and a create
 * whose amount the balance covers only without the client's other open orders is refused, reserving nothing.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { clearFaults } from "../../src/kernel/faults";
import { call, wallet } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import {
  addCodes,
  addProduct,
  availableCodes,
  backdateExpiry,
  drainTimers,
  expectError,
  freshClient,
  holdsOf,
  MESSAGES,
  uid,
} from "../order-helpers";

const SKU = "HOLD-INV";
const SANDBOX_SKU = "HOLD-SANDBOX";

beforeAll(async () => {
  await addProduct({ sku: SKU, productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
  await addCodes(SKU, "10", 40);
  await addProduct({
    sku: SANDBOX_SKU,
    productType: "range",
    currency: "USD",
    min: "1",
    max: "100",
    supplier: "sandbox",
  });
});

afterEach(() => clearFaults());

function create(key: string, quantity: number, reference = uid("ref")) {
  return call("POST", "/order/create", {
    key,
    body: { wallet: "USD", reference, productList: [{ sku: SKU, quote: 10, quantity, productType: "fixed" }] },
  });
}

const holds = (clientId: string) => holdsOf(clientId, "USD");

describe("open orders that hold codes count against the balance", () => {
  it("refuses a create the balance covers only without the other open orders: 400 balance_held, nothing reserved", async () => {
    const client = await freshClient({ USD: "50" });
    const first = await create(client.key, 2);
    const second = await create(client.key, 2);
    expect([first.status, second.status]).toEqual([200, 200]);
    const free = await availableCodes(SKU, "10");

    const refused = await create(client.key, 2);
    expectError(refused, 400, "Your open orders already hold this wallet's balance", "balance_held");
    expect(refused.body.details).toEqual({ balance: 50, held: 40, required: 20 });
    await expectConforms("POST", "/order/create", refused);
    expect(await availableCodes(SKU, "10")).toBe(free);
    expect(await holds(client.id)).toEqual([first.body.data.id, second.body.data.id].sort());
    expect(await wallet(client.id, "USD").balance()).toBe("50");
    // What fits beside the others still goes through.
    expect((await create(client.key, 1)).status).toBe(200);
  });

  it("an order short of the balance on its own is still insufficient_funds, as the interface says", async () => {
    const client = await freshClient({ USD: "15" });
    expectError(await create(client.key, 2), 400, MESSAGES.insufficient, "insufficient_funds");
    expect(await holds(client.id)).toEqual([]);
  });

  it("a confirmed order holds nothing more (its charge took the money), so the balance left can be held again", async () => {
    const client = await freshClient({ USD: "50" });
    const first = await create(client.key, 2);
    const second = await create(client.key, 2);
    expectError(
      await create(client.key, 2),
      400,
      "Your open orders already hold this wallet's balance",
      "balance_held",
    );
    const confirmed = await call("PUT", "/order/confirm", { key: client.key, body: { orderId: first.body.data.id } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    await drainTimers(first.body.data.id);
    expect(await holds(client.id)).toEqual([second.body.data.id]);
    // 30 left, 20 held by the second order: one more code (10) fits, two do not.
    expectError(
      await create(client.key, 2),
      400,
      "Your open orders already hold this wallet's balance",
      "balance_held",
    );
    expect((await create(client.key, 1)).status).toBe(200);
  });

  it("an expired order holds nothing more: its void drops the hold", async () => {
    const client = await freshClient({ USD: "20" });
    const first = await create(client.key, 2);
    expectError(
      await create(client.key, 1),
      400,
      "Your open orders already hold this wallet's balance",
      "balance_held",
    );
    await backdateExpiry(first.body.data.id);
    await drainTimers(first.body.data.id);
    expect(await holds(client.id)).toEqual([]);
    expect((await create(client.key, 2)).status).toBe(200);
  });

  it("a replayed create is its own hold, not a second one", async () => {
    const client = await freshClient({ USD: "30" });
    const reference = uid("ref");
    const first = await create(client.key, 2, reference);
    const replay = await create(client.key, 2, reference);
    expect(replay.status).toBe(200);
    expect(replay.body.data.id).toBe(first.body.data.id);
    expect(await holds(client.id)).toEqual([first.body.data.id]);
    expect((await create(client.key, 1)).status).toBe(200);
  });

  it("an order that reserves no codes holds nothing (it takes no stock from anyone)", async () => {
    const client = await freshClient({ USD: "50" });
    const sandbox = await call("POST", "/order/create", {
      key: client.key,
      body: {
        wallet: "USD",
        reference: uid("ref"),
        productList: [{ sku: SANDBOX_SKU, quote: 50, quantity: 1, productType: "range" }],
      },
    });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(200);
    expect(await holds(client.id)).toEqual([]);
    expect((await create(client.key, 5)).status).toBe(200);
  });
});
