/**
 * No client holds stock it could not pay for, not even for a moment: a create that reserves codes holds its
 * amount and its codes at the wallet first and reserves only once the hold stands, so a client with almost
 * nothing can never make another client's create fail for stock; a client whose orders cost nothing is
 * bounded by MAX_HELD_CODES; and a hold stands until its order's expiry has given its codes back.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { call, wallet } from "../helpers";
import {
  addCodes,
  addProduct,
  availableCodes,
  backdateExpiry,
  drainTimers,
  expectError,
  freshClient,
  holdsOf,
  makeExpiryDue,
  MESSAGES,
  setDeal,
  uid,
} from "../order-helpers";

afterEach(() => clearFaults());

/** A SKU of its own with `stock` codes of value 10 (USD). */
async function skuWith(stock: number): Promise<string> {
  const sku = uid("HOLDSKU").toUpperCase();
  await addProduct({ sku, productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
  await addCodes(sku, "10", stock);
  return sku;
}

function create(key: string, sku: string, quantity: number, reference = uid("ref")) {
  return call("POST", "/order/create", {
    key,
    body: { wallet: "USD", reference, productList: [{ sku, quote: 10, quantity, productType: "fixed" }] },
  });
}

/** The codes of `sku` reserved by any order now. */
async function reservedCodes(sku: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM codes WHERE sku = ? AND status = 'reserved'`)
    .bind(sku)
    .first<{ n: number }>();
  return row!.n;
}

describe("a client that cannot pay never holds stock", () => {
  it("a create cut off after its first call (frozen between reserving and being refused) holds no code", async () => {
    const sku = await skuWith(5);
    const poor = await freshClient({ USD: "0.01" });
    const funded = await freshClient({ USD: "1000" });
    // Whatever the create asks first, its answer is lost there: the window before the refusal, held open.
    armFault(ORDER_SEAMS.reserveCodes, { when: "after" });
    armFault(ORDER_SEAMS.walletHold, { when: "after" });
    expect((await create(poor.key, sku, 5)).status).toBe(500);
    clearFaults();
    expect(await reservedCodes(sku)).toBe(0);
    const bought = await create(funded.key, sku, 5);
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
  });

  it("a storm of parallel creates for the whole stock from a client with 0.01 never fails a funded create", async () => {
    const sku = await skuWith(5);
    const poor = await freshClient({ USD: "0.01" });
    const funded = await freshClient({ USD: "1000" });
    const storm = Array.from({ length: 30 }, () => create(poor.key, sku, 5));
    const bought = create(funded.key, sku, 5);
    const answers = await Promise.all([...storm, bought]);
    const fundedAnswer = answers.at(-1)!;
    expect(fundedAnswer.status, JSON.stringify(fundedAnswer.body)).toBe(200);
    // A poor create checked before the funded one reserved the stock is refused for its balance; one checked
    // after finds no stock, and the stock check comes first (the create's checks are ordered).
    for (const refused of answers.slice(0, -1))
      expect(["insufficient_funds", "out_of_stock"]).toContain(refused.body.code);
    expect(await holdsOf(poor.id, "USD")).toEqual([]);
    expect(await reservedCodes(sku)).toBe(5);
  });

  it("a create the wallet refuses that would also be out of stock answers out_of_stock, as the checks are ordered", async () => {
    const sku = await skuWith(1);
    const poor = await freshClient({ USD: "0.01" });
    expectError(await create(poor.key, sku, 2), 500, MESSAGES.outOfStock, "out_of_stock");
    expectError(await create(poor.key, sku, 1), 400, MESSAGES.insufficient, "insufficient_funds");
    expect(await availableCodes(sku, "10")).toBe(1);
  });

  it("out of stock after its hold, a create lets go of the hold: the balance is free again", async () => {
    const sku = await skuWith(1);
    const client = await freshClient({ USD: "20" });
    expectError(await create(client.key, sku, 2), 500, MESSAGES.outOfStock, "out_of_stock");
    expect(await holdsOf(client.id, "USD")).toEqual([]);
    const other = await skuWith(2);
    expect((await create(client.key, other, 2)).status).toBe(200);
  });
});

describe("a client whose orders cost nothing is bounded by MAX_HELD_CODES", () => {
  it("a 100 % deal holds at most the cap's codes: the create past it is 400 held_codes_limit and reserves nothing", async () => {
    const sku = await skuWith(110);
    const free = await freshClient({ USD: "0" });
    await setDeal(free.id, sku, { discount: ["100", "percentage"] });
    const limit = Number(env.MAX_HELD_CODES);
    expect(limit).toBe(100);
    for (let held = 0; held < limit; held += 5) expect((await create(free.key, sku, 5)).status).toBe(200);
    const refused = await create(free.key, sku, 5);
    expectError(refused, 400, "Your open orders already hold as many codes as allowed", "held_codes_limit");
    expect(refused.body.details).toEqual({ held: 100, limit: 100, requested: 5 });
    expect(await availableCodes(sku, "10")).toBe(10);
    // Anyone else still buys what is left.
    const funded = await freshClient({ USD: "1000" });
    expect((await create(funded.key, sku, 5)).status).toBe(200);
  });
});

describe("a hold and its codes lapse together", () => {
  it("past expiresAt, before the expiry timer gives the codes back, the hold still counts", async () => {
    const sku = await skuWith(4);
    const client = await freshClient({ USD: "20" });
    const first = await create(client.key, sku, 2);
    expect(first.status).toBe(200);
    const orderId = first.body.data.id as string;
    // The clock passes expiresAt (the order's and its hold's), and the timer has not run yet.
    await backdateExpiry(orderId);
    await runInDurableObject(wallet(client.id, "USD"), (_instance, state) => {
      state.storage.sql.exec(`UPDATE holds SET until = ?`, Date.now() - 1_000);
    });
    expectError(
      await create(client.key, sku, 2),
      400,
      "Your open orders already hold this wallet's balance",
      "balance_held",
    );
    expect(await availableCodes(sku, "10")).toBe(2);
    // The expiry gives the codes back and voids the order; then the balance is free again.
    await drainTimers(orderId);
    expect(await holdsOf(client.id, "USD")).toEqual([]);
    expect((await create(client.key, sku, 2)).status).toBe(200);
  });

  it("a create that died after its hold, never retried, has its hold let go of by its expiry timer", async () => {
    const sku = await skuWith(2);
    const client = await freshClient({ USD: "20" });
    const reference = uid("ref");
    armFault(ORDER_SEAMS.reserveCodes, { when: "after" });
    expect((await create(client.key, sku, 2, reference)).status).toBe(500);
    clearFaults();
    const [orderId] = await holdsOf(client.id, "USD");
    expect(orderId).toBeDefined();
    await makeExpiryDue(orderId!);
    await drainTimers(orderId!);
    expect(await holdsOf(client.id, "USD")).toEqual([]);
    expect(await availableCodes(sku, "10")).toBe(2);
  });
});
