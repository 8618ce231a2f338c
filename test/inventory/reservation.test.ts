/**
 * Reservation and sale of operator-loaded codes (src/inventory/reservation-store.ts; the sale through
 * src/fulfilment/inventory-supplier.ts), called directly against D1: an order holds exactly its lines'
 * quantities after any number of reserve calls (a retried create never holds more), out of stock names the line, and the
 * supplier sells exactly a line's quantity.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { releaseCodes, reserveCodes } from "../../src/inventory/reservation-store";
import { inventorySupplier } from "../../src/fulfilment/inventory-supplier";
import { addCodes, addProduct, availableCodes, uid } from "../order-helpers";

async function held(orderId: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    `SELECT sku || '/' || value AS line, COUNT(*) AS n FROM codes WHERE order_id = ?1 AND status = 'reserved' GROUP BY sku, value ORDER BY sku, value`,
  )
    .bind(orderId)
    .all<{ line: string; n: number }>();
  return Object.fromEntries(results.map((row) => [row.line, row.n]));
}

const until = () => Date.now() + 600_000;

beforeAll(async () => {
  await addProduct({ sku: "R-A", productType: "fixed", currency: "USD", quotes: ["10", "20"], supplier: "inventory" });
  await addProduct({ sku: "R-B", productType: "fixed", currency: "USD", quotes: ["5"], supplier: "inventory" });
  await addCodes("R-A", "10", 20);
  await addCodes("R-A", "20", 3);
  await addCodes("R-B", "5", 10);
});

describe("reserveCodes", () => {
  it("a retried reserve leaves the order holding exactly its quantities, not twice", async () => {
    const orderId = uid("ord");
    const free = await availableCodes("R-A", "10");
    const lines = [{ sku: "R-A", value: "10", quantity: 2 }];
    expect(await reserveCodes(env.DB, orderId, lines, until())).toEqual({ ok: true });
    expect(await reserveCodes(env.DB, orderId, lines, until())).toEqual({ ok: true });
    expect(await reserveCodes(env.DB, orderId, lines, until())).toEqual({ ok: true });
    expect(await held(orderId)).toEqual({ "R-A/10": 2 });
    expect(await availableCodes("R-A", "10")).toBe(free - 2);
    await releaseCodes(env.DB, orderId);
    expect(await availableCodes("R-A", "10")).toBe(free);
  });

  it("a retry with another body releases what the first call held: only the new lines stay held", async () => {
    const orderId = uid("ord");
    const freeA = await availableCodes("R-A", "10");
    const freeB = await availableCodes("R-B", "5");
    await reserveCodes(env.DB, orderId, [{ sku: "R-A", value: "10", quantity: 3 }], until());
    expect(await reserveCodes(env.DB, orderId, [{ sku: "R-B", value: "5", quantity: 1 }], until())).toEqual({
      ok: true,
    });
    expect(await held(orderId)).toEqual({ "R-B/5": 1 });
    expect(await availableCodes("R-A", "10")).toBe(freeA);
    expect(await availableCodes("R-B", "5")).toBe(freeB - 1);
    // a retry with no inventory lines at all holds nothing
    expect(await reserveCodes(env.DB, orderId, [], until())).toEqual({ ok: true });
    expect(await held(orderId)).toEqual({});
  });

  it("out of stock names the line and leaves the order holding nothing, even what an earlier call held", async () => {
    const orderId = uid("ord");
    const freeA = await availableCodes("R-A", "10");
    await reserveCodes(env.DB, orderId, [{ sku: "R-A", value: "10", quantity: 1 }], until());
    const short = await reserveCodes(
      env.DB,
      orderId,
      [
        { sku: "R-A", value: "10", quantity: 1 },
        { sku: "R-A", value: "20", quantity: 4 },
      ],
      until(),
    );
    expect(short).toEqual({ ok: false, sku: "R-A", value: "20", requested: 4, available: 3 });
    expect(await held(orderId)).toEqual({});
    expect(await availableCodes("R-A", "10")).toBe(freeA);
    expect(await availableCodes("R-A", "20")).toBe(3);
  });

  it("counts what the order already holds as available to it (a retry for the last codes succeeds)", async () => {
    const orderId = uid("ord");
    expect(await reserveCodes(env.DB, orderId, [{ sku: "R-A", value: "20", quantity: 3 }], until())).toEqual({
      ok: true,
    });
    expect(await availableCodes("R-A", "20")).toBe(0);
    expect(await reserveCodes(env.DB, orderId, [{ sku: "R-A", value: "20", quantity: 3 }], until())).toEqual({
      ok: true,
    });
    expect(await held(orderId)).toEqual({ "R-A/20": 3 });
    await releaseCodes(env.DB, orderId);
  });
});

describe("the inventory supplier", () => {
  const issue = (orderId: string, quantity: number) =>
    inventorySupplier(env.DB).issue({ orderId, line: { sku: "R-B", quantity } } as Parameters<
      ReturnType<typeof inventorySupplier>["issue"]
    >[0]);

  it("sells exactly the line's quantity even when the order holds more, returns the surplus to sale, and is idempotent", async () => {
    const orderId = uid("ord");
    const free = await availableCodes("R-B", "5");
    // As if a create had been retried before reservation was idempotent: the order holds 3 for a line of 2.
    await env.DB.prepare(
      `UPDATE codes SET status = 'reserved', order_id = ?1, reserved_until = ?2 WHERE id IN (SELECT id FROM codes WHERE sku = 'R-B' AND status = 'available' ORDER BY id LIMIT 3)`,
    )
      .bind(orderId, until())
      .run();
    const first = await issue(orderId, 2);
    expect(first.kind).toBe("issued");
    expect(first.kind === "issued" && first.codes).toHaveLength(2);
    const again = await issue(orderId, 2);
    expect(again).toEqual(first);
    const { results } = await env.DB.prepare(
      `SELECT status, COUNT(*) AS n FROM codes WHERE order_id = ?1 GROUP BY status`,
    )
      .bind(orderId)
      .all();
    expect(results).toEqual([{ status: "sold", n: 2 }]);
    expect(await availableCodes("R-B", "5")).toBe(free - 2);
  });

  it("a line whose codes are no longer all held fails without selling any, and its held codes go back on sale", async () => {
    const orderId = uid("ord");
    const free = await availableCodes("R-B", "5");
    await reserveCodes(env.DB, orderId, [{ sku: "R-B", value: "5", quantity: 1 }], until());
    const outcome = await issue(orderId, 2);
    expect(outcome.kind).toBe("failed");
    const { results } = await env.DB.prepare(`SELECT COUNT(*) AS n FROM codes WHERE order_id = ?1`)
      .bind(orderId)
      .all<{ n: number }>();
    expect(results[0]!.n).toBe(0);
    expect(await availableCodes("R-B", "5")).toBe(free);
  });
});
