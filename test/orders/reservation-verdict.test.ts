/**
 * The sweep's rule for an order that holds stale reservations (src/orders/reservation-verdict.ts), pure:
 * which orders give their codes back and which keep them.
 */
import { describe, expect, it } from "vitest";
import type { OrderRecord } from "../../src/orders/order-record";
import { verdictOn } from "../../src/orders/reservation-verdict";
import type { OrderState } from "../../src/orders/order-view-schemas";

const NOW = 1_800_000_000_000;
const order = (state: OrderState, expiresAt = NOW + 60_000) => ({ state, expiresAt }) as OrderRecord;

describe("verdictOn", () => {
  it("releases the codes of an order that was never stored", () => {
    expect(verdictOn(null, NOW)).toEqual({ release: true, state: "missing" });
  });

  it("releases the codes of an order that is over", () => {
    for (const state of ["rejected", "failed", "partial", "successful"] as const)
      expect(verdictOn(order(state), NOW)).toEqual({ release: true, state });
  });

  it("releases a created order's codes only once it is past expiresAt", () => {
    expect(verdictOn(order("created", NOW - 1), NOW)).toEqual({ release: true, state: "created" });
    expect(verdictOn(order("created", NOW), NOW)).toEqual({ release: false, state: "created" });
    expect(verdictOn(order("created", NOW + 1), NOW)).toEqual({ release: false, state: "created" });
  });

  it("keeps the codes of an order being fulfilled, even past its expiry: processing sells them", () => {
    for (const state of ["confirmed", "processing"] as const)
      expect(verdictOn(order(state, NOW - 60_000), NOW)).toEqual({ release: false, state });
  });
});
