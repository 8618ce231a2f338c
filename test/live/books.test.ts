/**
 * The client's books in live mode (sk_live_ keys): the same walk as in the sandbox (test/books-check.ts),
 * and another client's order, reference and wallet answered as unknown ones.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { expectBooks, placedOrder } from "../books-check";
import { call, line, seedDemo } from "../helpers";
import { expectError } from "../order-helpers";

// Live fails closed: a currency without an approval limit makes every posting wait for a second person.
// These clients are funded alone by the break-glass token, within limits set for it (dual control itself
// is tried in test/live/dual-control-scenarios.test.ts).
beforeAll(async () => {
  await env.DB.prepare(
    `INSERT INTO approval_limits (currency, amount, updated_at) VALUES ('USD', '1000000', 0), ('EUR', '1000000', 0)`,
  ).run();
});

async function liveClient(id: string, currency = "USD"): Promise<string> {
  const created = await admin("POST", "/admin/clients", { id, name: id });
  expect(created.body.data.apiKey).toMatch(/^sk_live_/);
  const topUp = await admin("POST", `/admin/wallets/${id}/${currency}/top-ups`, {
    amount: "100",
    idempotencyKey: `${id}-opening`,
    reason: "opening",
  });
  expect(topUp.status).toBe(200);
  return created.body.data.apiKey as string;
}

/**
 * Live sells no sandbox-supplier SKU (docs/sandbox.md), so the walk orders the demo's USD inventory card,
 * stocked here with codes of its own.
 */
const LIVE_LINE = line("DEMO-US-SOLDOUT", 10);
async function stockLiveLine(count: number): Promise<void> {
  for (let at = 0; at < count; at += 1)
    await env.DB.prepare(
      "INSERT INTO codes (sku, value, pin, link, created_at) VALUES ('DEMO-US-SOLDOUT', '10', ?1, '', ?2)",
    )
      .bind(`LIVE-BOOKS-${crypto.randomUUID()}`, Date.now())
      .run();
}

describe("a client's books in live mode", () => {
  it("an order found by its reference, its charge in the ledger, a statement that adds up", async () => {
    await seedDemo();
    await stockLiveLine(1);
    await expectBooks(await liveClient("live-books"), { placed: [LIVE_LINE], failing: null });
  });

  it("another client's reference and wallet are unknown ones", async () => {
    await seedDemo();
    const mine = await liveClient("live-mine");
    const theirs = await liveClient("live-theirs", "EUR");
    await admin("POST", "/admin/wallets/live-theirs/USD/top-ups", {
      amount: "100",
      idempotencyKey: "live-theirs-usd",
      reason: "opening",
    });
    await stockLiveLine(1);
    await placedOrder(theirs, [LIVE_LINE], "their-po");
    expectError(await call("GET", "/order/get?reference=their-po", { key: mine }), 404, "Not Found", "order_not_found");
    expect((await call("GET", "/order/get?reference=their-po", { key: theirs })).status).toBe(200);
    expect((await call("GET", "/orders?reference=their", { key: mine })).body.data.orders).toEqual([]);
    for (const path of ["/wallets/EUR/ledger", "/wallets/EUR/statement?from=0&to=1"])
      expectError(await call("GET", path, { key: mine }), 404, "Wallet not found", "wallet_unknown");
  });
});
