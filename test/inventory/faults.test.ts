/**
 * Every fault seam of the inventory (src/inventory/seams.ts), failed before and after its D1
 * call, then retried as the caller would: the order holds exactly what it needs, no code is held twice or
 * stranded, and a sold line has exactly its quantity.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ALL_INVENTORY_SEAMS, INVENTORY_SEAMS, type InventorySeam } from "../../src/inventory/seams";
import { releaseCodes, reserveCodes } from "../../src/inventory/reservation-store";
import { inventorySupplier } from "../../src/fulfilment/inventory-supplier";
import type { IssueRequest } from "../../src/fulfilment/supplier";
import { armFault, clearFaults, firedFaults, InjectedFault, type FaultWhen } from "../../src/kernel/faults";
import { addCodes, addProduct, availableCodes, uid } from "../order-helpers";

const SKU = "F-INV";
const LINES = [{ sku: SKU, value: "10", quantity: 3 }];

beforeAll(async () => {
  await addProduct({ sku: SKU, productType: "fixed", currency: "USD", quotes: ["10"], supplier: "inventory" });
  await addCodes(SKU, "10", 60);
});

afterEach(() => clearFaults());

async function codesByStatus(orderId: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    `SELECT status, COUNT(*) AS n FROM codes WHERE order_id = ?1 GROUP BY status`,
  )
    .bind(orderId)
    .all<{ status: string; n: number }>();
  return Object.fromEntries(results.map((row) => [row.status, row.n]));
}

const reserve = (orderId: string) => reserveCodes(env.DB, orderId, LINES, Date.now() + 600_000);
const sell = (orderId: string) =>
  inventorySupplier(env.DB).issue({
    orderId,
    idempotencyKey: `${orderId}:${SKU}`,
    line: { sku: SKU, quantity: 3 },
    attempt: 1,
  } as unknown as IssueRequest);

/** Per seam: what runs before the fault, the call that fails, and what the order must hold after the retry. */
const SCENARIOS: Record<
  InventorySeam,
  { setup(orderId: string): Promise<unknown>; call(orderId: string): Promise<unknown>; holds: Record<string, number> }
> = {
  [INVENTORY_SEAMS.reserve]: { setup: async () => undefined, call: reserve, holds: { reserved: 3 } },
  [INVENTORY_SEAMS.release]: { setup: reserve, call: (orderId) => releaseCodes(env.DB, orderId), holds: {} },
  [INVENTORY_SEAMS.sell]: { setup: reserve, call: sell, holds: { sold: 3 } },
};

const WHEN: FaultWhen[] = ["before", "after"];

describe("inventory under faults", () => {
  it("every inventory seam has a scenario", () => {
    expect(Object.keys(SCENARIOS).sort()).toEqual([...ALL_INVENTORY_SEAMS].sort());
  });

  it.each(ALL_INVENTORY_SEAMS.flatMap((seam) => WHEN.map((when) => [seam, when] as const)))(
    "%s fails %s; the retry leaves the order holding exactly what it needs",
    async (seam, when) => {
      const scenario = SCENARIOS[seam];
      const orderId = uid("ord");
      const free = await availableCodes(SKU, "10");
      await scenario.setup(orderId);
      armFault(seam, { when });
      await expect(scenario.call(orderId)).rejects.toBeInstanceOf(InjectedFault);
      expect(firedFaults()).toEqual([`${seam}:${when}`]);
      const outcome = await scenario.call(orderId);
      if (seam === INVENTORY_SEAMS.sell) expect(outcome).toMatchObject({ kind: "issued", codes: expect.any(Array) });
      if (seam === INVENTORY_SEAMS.sell) expect((outcome as { codes: unknown[] }).codes).toHaveLength(3);
      if (seam === INVENTORY_SEAMS.reserve) expect(outcome).toEqual({ ok: true });
      // and once more, as a second retry would
      await scenario.call(orderId);
      expect(await codesByStatus(orderId)).toEqual(scenario.holds);
      const taken = Object.values(scenario.holds).reduce((a, b) => a + b, 0);
      expect(await availableCodes(SKU, "10")).toBe(free - taken);
    },
  );
});
