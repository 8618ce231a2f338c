/**
 * The reconciliation's delivery check for an order whose state says it was never charged (`created`,
 * `rejected`) but that delivered a line anyway: that is codes handed out for nothing, and the run names it,
 * as the pure rule does.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../../src/reconciliation/reconciliation";
import { deliveryProblem, emptyMoney } from "../../src/reconciliation/reconciliation-rules";
import { Money } from "../../src/pricing/money";
import { createOrder, line, seedDemo } from "../helpers";
import { expectOk, expireByAlarm, indexNow, rewriteStoredOrder, storedOrder, uid } from "../order-helpers";
import { auditedClient } from "./reconciliation-helpers";

const start = Date.now() - 1_000;
beforeAll(seedDemo);

describe("delivered under a state that was never charged", () => {
  it("is named by the rule, whatever the state that was never charged", () => {
    const money = emptyMoney("acme", "USD");
    const delivered = [{ status: "fulfilled", redeem: { pins: ["PIN"] } }];
    expect(deliveryProblem("rejected", delivered, money)).toBe(
      "rejected: 1 line delivered, but the ledger holds no charge for the order",
    );
    expect(deliveryProblem("created", [{ status: "pending", redeem: { pins: ["PIN"] } }], money)).toBe(
      "created: 1 line delivered, but the ledger holds no charge for the order",
    );
    // Neither charged nor delivered: nothing to say; charged and kept: nothing either.
    expect(deliveryProblem("rejected", [{ status: "pending", redeem: null }], money)).toBeNull();
    expect(deliveryProblem("rejected", delivered, { ...money, charged: new Money(5) })).toBeNull();
  });

  it("is found by the run: an expired order whose stored line says it was fulfilled", async () => {
    const { key, id: clientId } = await auditedClient();
    const orderId = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("never") }, key),
    ).id as string;
    await expireByAlarm(orderId);
    expect((await storedOrder(orderId)).state).toBe("rejected");
    await rewriteStoredOrder(orderId, (doc) => {
      doc.lines[0] = { ...doc.lines[0]!, status: "fulfilled", redeem: { pins: ["LEAKED-PIN"], links: [] } } as never;
      // Stored as a change, which its books write carries: the books then show the line delivered.
      doc.modifiedAt += 1;
    });
    await indexNow(orderId);
    const run = await reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 });
    expect(
      run.mismatches
        .filter((mismatch) => mismatch.orderId === orderId && mismatch.clientId === clientId)
        .map((mismatch) => [mismatch.check, mismatch.problem]),
    ).toContainEqual([
      "charge_for_delivery",
      "rejected: 1 line delivered, but the ledger holds no charge for the order",
    ]);
  });
});
