/**
 * Reservations under retries, through HTTP: a create whose reply is lost after its codes were reserved, retried by
 * the client, leaves the order holding exactly its quantity; a retry with another body leaves no code of
 * the first attempt stranded.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { INVENTORY_SEAMS } from "../../src/inventory/seams";
import { armFault, clearFaults, firedFaults } from "../../src/kernel/faults";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { call } from "../helpers";
import { addCodes, addProduct, availableCodes, codesOfOrder, freshClient, uid } from "../order-helpers";

const SKU = "CR-INV";
const SANDBOX_SKU = "CR-SANDBOX";

beforeAll(async () => {
  await addProduct({ sku: SKU, productType: "fixed", currency: "USD", quotes: ["10", "20"], supplier: "inventory" });
  await addCodes(SKU, "10", 30);
  await addCodes(SKU, "20", 30);
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

function create(key: string, reference: string, value: number, quantity: number) {
  return call("POST", "/order/create", {
    key,
    body: { wallet: "USD", reference, productList: [{ sku: SKU, quote: value, quantity, productType: "fixed" }] },
  });
}

async function reservedAnywhere(value: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM codes WHERE sku = ?1 AND value = ?2 AND status = 'reserved'`,
  )
    .bind(SKU, value)
    .first<{ n: number }>();
  return row!.n;
}

describe("a create cut off after its codes were reserved", () => {
  it.each([
    [INVENTORY_SEAMS.reserve, "after"],
    [ORDER_SEAMS.walletHold, "before"],
  ] as const)("%s fails %s: the retry with the same body holds exactly the quantity", async (seam, when) => {
    const client = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const free = await availableCodes(SKU, "10");
    const reservedBefore = await reservedAnywhere("10");
    armFault(seam, { when });
    const lost = await create(client.key, reference, 10, 2);
    expect(firedFaults()).toEqual([`${seam}:${when}`]);
    expect(lost.status).toBeGreaterThanOrEqual(500);
    const retried = await create(client.key, reference, 10, 2);
    expect(retried.status).toBe(200);
    const codes = await codesOfOrder(retried.body.data.id);
    expect(codes.map((code) => code.status)).toEqual(["reserved", "reserved"]);
    expect(await availableCodes(SKU, "10")).toBe(free - 2);
    expect(await reservedAnywhere("10")).toBe(reservedBefore + 2);
  });

  it("the retry with another body leaves none of the first attempt's codes reserved", async () => {
    const client = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const free10 = await availableCodes(SKU, "10");
    const free20 = await availableCodes(SKU, "20");
    armFault(INVENTORY_SEAMS.reserve, { when: "after" });
    const lost = await create(client.key, reference, 10, 3);
    expect(lost.status).toBeGreaterThanOrEqual(500);
    const other = await create(client.key, reference, 20, 1);
    // The first attempt stored no order, so the changed body is a new create (200), and only its codes
    // are held: none of the first body's.
    expect(other.status).toBe(200);
    expect(await availableCodes(SKU, "10")).toBe(free10);
    expect(await codesOfOrder(other.body.data.id)).toEqual([{ sku: SKU, value: "20", status: "reserved" }]);
    expect(await availableCodes(SKU, "20")).toBe(free20 - 1);
  });

  it("a retry whose body has no inventory line at all gives back what the first attempt reserved", async () => {
    const client = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const free10 = await availableCodes(SKU, "10");
    armFault(INVENTORY_SEAMS.reserve, { when: "after" });
    expect((await create(client.key, reference, 10, 3)).status).toBeGreaterThanOrEqual(500);
    const other = await call("POST", "/order/create", {
      key: client.key,
      body: {
        wallet: "USD",
        reference,
        productList: [{ sku: SANDBOX_SKU, quote: 5, quantity: 1, productType: "range" }],
      },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(await availableCodes(SKU, "10")).toBe(free10);
    expect(await codesOfOrder(other.body.data.id)).toEqual([]);
  });

  it("a retry whose body is refused (its plan fails) gives back what the first attempt reserved, at once", async () => {
    const client = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const free10 = await availableCodes(SKU, "10");
    const reservedBefore = await reservedAnywhere("10");
    armFault(INVENTORY_SEAMS.reserve, { when: "after" });
    expect((await create(client.key, reference, 10, 3)).status).toBeGreaterThanOrEqual(500);
    expect(await availableCodes(SKU, "10")).toBe(free10 - 3);
    // 15 is not one of the SKU's quotes: the create checks refuse this body before anything is reserved.
    const refused = await create(client.key, reference, 15, 1);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.code).toBe("quote_mismatch");
    expect(await availableCodes(SKU, "10")).toBe(free10);
    expect(await reservedAnywhere("10")).toBe(reservedBefore);
  });
});
