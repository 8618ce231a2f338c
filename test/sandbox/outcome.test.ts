/**
 * The sandbox's create header Sandbox-Outcome: it decides how processing ends whatever the SKUs'
 * suppliers (successful, failed, partial, slow), with refunds and stock as for any such order; a value it
 * does not know is 400, and it is part of the request a replay compares. Its 400 in live is
 * test/live/sandbox-off.test.ts.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { balanceOf, call, ledgerSumOf, line, seedDemo } from "../helpers";
import { availableCodes, drainTimers, expectError, freshClient, ledgerOf, uid } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

async function create(key: string, productList: unknown[], outcome?: string, reference = uid("ref")) {
  return call("POST", "/order/create", {
    key,
    body: { productList, wallet: "USD", reference },
    headers: outcome === undefined ? {} : { "sandbox-outcome": outcome },
  });
}

async function run(key: string, productList: unknown[], outcome: string) {
  const created = await create(key, productList, outcome);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId: string = created.body.data.id;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await drainTimers(orderId);
  return (await call("GET", `/order/get?orderId=${orderId}`, { key })).body.data;
}

// An inventory line (its codes reserved at create), a sandbox line, and a sandbox SKU set to fail.
const LINES = () => [line("DEMO-EU-FIXED", 10, 1), line("DEMO-US-RANGE", 5), line("DEMO-US-FAILING", 7)];

describe("Sandbox-Outcome", () => {
  it("successful: every line issued, even the SKU set to fail; the inventory line sells its reserved code", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    const stock = await availableCodes("DEMO-EU-FIXED", "10");
    const order = await run(key, LINES(), "successful");
    expect(order.state).toBe("successful");
    expect(Object.keys(order.redeem).sort()).toEqual(["DEMO-EU-FIXED", "DEMO-US-FAILING", "DEMO-US-RANGE"]);
    for (const sku of ["DEMO-US-FAILING", "DEMO-US-RANGE"]) expect(order.redeem[sku].redeemPin[0]).toMatch(/^SBX-/);
    // As in live: the code the create reserved is sold (test/sandbox/outcome-stock.test.ts has every outcome).
    const { results: sold } = await env.DB.prepare(`SELECT pin, status FROM codes WHERE order_id = ?1`)
      .bind(order.uid)
      .all<{ pin: string; status: string }>();
    expect(sold.map((code) => code.status)).toEqual(["sold"]);
    expect(order.redeem["DEMO-EU-FIXED"].redeemPin).toEqual(sold.map((code) => code.pin));
    expect(order.invoice.status).toBe("paid");
    expect(await availableCodes("DEMO-EU-FIXED", "10")).toBe(stock - 1);
    expect(await balanceOf(id, "USD")).toBe(await ledgerSumOf(id, "USD"));
  });

  it("failed: every line fails and the whole charge is refunded", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    const stock = await availableCodes("DEMO-EU-FIXED", "10");
    const order = await run(key, LINES(), "failed");
    expect(order.state).toBe("failed");
    expect(order.redeem).toEqual({});
    expect(order.invoice.status).toBe("refunded");
    expect(await balanceOf(id, "USD")).toBe("1000");
    expect(await ledgerSumOf(id, "USD")).toBe("1000");
    expect((await ledgerOf(id, "USD")).filter((entry) => entry.kind === "order_refund")).toHaveLength(3);
    expect(await availableCodes("DEMO-EU-FIXED", "10")).toBe(stock);
  });

  it("partial: the last line fails and is refunded, the others are issued", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    const order = await run(key, [line("DEMO-US-RANGE", 5), line("DEMO-JP-RANGE", 1000)], "partial");
    expect(order.state).toBe("partial");
    expect(Object.keys(order.redeem)).toEqual(["DEMO-US-RANGE"]);
    expect(order.invoice.status).toBe("partially_refunded");
    const refunds = (await ledgerOf(id, "USD")).filter((entry) => entry.kind === "order_refund");
    expect(refunds).toHaveLength(1);
    expect(await balanceOf(id, "USD")).toBe("995");
    expect(await ledgerSumOf(id, "USD")).toBe("995");
  });

  it("slow: the order shows processing while the supplier retries, then succeeds", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const created = await create(key, [line("DEMO-US-RANGE", 5)], "slow");
    const orderId: string = created.body.data.id;
    await call("PUT", "/order/confirm", { key, body: { orderId } });
    let seen = (await call("GET", `/order/get?orderId=${orderId}`, { key })).body.data.state;
    for (let i = 0; i < 50 && seen === "confirmed"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = (await call("GET", `/order/get?orderId=${orderId}`, { key })).body.data.state;
    }
    expect(seen).toBe("processing");
    await drainTimers(orderId);
    expect((await call("GET", `/order/get?orderId=${orderId}`, { key })).body.data.state).toBe("successful");
  });

  it("without the header an order ends as its suppliers decide", async () => {
    const { key } = await freshClient({ USD: "1000" });
    expect((await run(key, [line("DEMO-US-FAILING", 7)], undefined as unknown as string)).state).toBe("failed");
  });

  it("refuses a value it does not know, and partial of one line, with 400 and no order", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    for (const value of ["success", "SUCCESSFUL", "", "slow,failed"]) {
      const answer = await create(key, [line("DEMO-US-RANGE", 5)], value);
      expectError(answer, 400, "Invalid Sandbox-Outcome header", "invalid_sandbox_outcome");
      expect(answer.body.details.reason).toBe(
        `${JSON.stringify(value)} is not one of successful, partial, failed, slow`,
      );
    }
    const single = await create(key, [line("DEMO-US-RANGE", 5)], "partial");
    expectError(single, 400, "Invalid Sandbox-Outcome header", "invalid_sandbox_outcome");
    expect(single.body.details).toEqual({
      reason: "partial needs at least two lines: the last fails, the others succeed",
    });
    expect(await ledgerOf(id, "USD")).toHaveLength(1);
  });

  it("is part of the request a replay compares: the same reference with another outcome is 409", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const reference = uid("ref");
    const first = await create(key, [line("DEMO-US-RANGE", 5)], "failed", reference);
    expect(first.status).toBe(200);
    const replay = await create(key, [line("DEMO-US-RANGE", 5)], "failed", reference);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expectError(
      await create(key, [line("DEMO-US-RANGE", 5)], "successful", reference),
      409,
      "Reference already used",
      "reference_already_used",
    );
    expectError(
      await create(key, [line("DEMO-US-RANGE", 5)], undefined, reference),
      409,
      "Reference already used",
      "reference_already_used",
    );
  });
});
