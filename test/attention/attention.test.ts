import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addClient, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { admin, FIXED_PRODUCT, RANGE_PRODUCT, snapshot } from "../admin-helpers";
import { bareIndexRow, writeBooksRow } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

async function thresholdRows() {
  const [stock, wallets] = await env.DB.batch([
    env.DB.prepare(`SELECT * FROM stock_thresholds ORDER BY sku`),
    env.DB.prepare(`SELECT * FROM wallet_thresholds ORDER BY client_id, currency`),
  ]);
  return { stock: stock!.results, wallets: wallets!.results, rest: await snapshot() };
}

async function attention() {
  const answer = await admin("GET", "/admin/attention");
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  await expectConforms("GET", "/admin/attention", answer);
  return answer.body.data;
}

async function inventorySku(sku: string, codes: { value: string; count: number }[]) {
  expect((await admin("PUT", `/admin/products/${sku}`, FIXED_PRODUCT)).status).toBe(200);
  const rows = codes.flatMap(({ value, count }) =>
    Array.from(
      { length: count },
      (_, index) => `${value},${sku}-${value}-${index},https://redeem.example.com/${index}`,
    ),
  );
  if (rows.length > 0) {
    const upload = await admin("POST", `/admin/products/${sku}/codes`, undefined, {
      headers: { "content-type": "text/csv" },
      rawBody: `value,pin,link\n${rows.join("\n")}\n`,
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
  }
}

async function auditOf(target: string) {
  const answer = await admin("GET", `/admin/audit?target=${encodeURIComponent(target)}`);
  return answer.body.data.entries.map((entry: { action: string; details: unknown }) => ({
    action: entry.action,
    details: entry.details,
  }));
}

describe("low-stock thresholds", () => {
  it("lists an active inventory SKU while fewer codes than its threshold are available, with counts per value", async () => {
    await inventorySku("ATT-LOW-1", [{ value: "10", count: 3 }]);
    const set = await admin("PUT", "/admin/products/ATT-LOW-1/low-stock-threshold", { threshold: 4 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await expectConforms("PUT", "/admin/products/{sku}/low-stock-threshold", set);
    expect(set.body).toMatchObject({
      message: "Low-stock threshold set",
      data: { sku: "ATT-LOW-1", threshold: 4, available: 3 },
    });
    const listed = (await attention()).lowStock.find((row: { sku: string }) => row.sku === "ATT-LOW-1");
    // Every quote of the fixed SKU is shown, the one without codes as 0.
    expect(listed).toEqual({
      sku: "ATT-LOW-1",
      name: "Test voucher",
      threshold: 4,
      available: 3,
      byValue: [
        { value: 10, available: 3 },
        { value: 25.5, available: 0 },
      ],
    });

    // At the threshold it is no longer low.
    expect((await admin("PUT", "/admin/products/ATT-LOW-1/low-stock-threshold", { threshold: 3 })).status).toBe(200);
    expect((await attention()).lowStock.map((row: { sku: string }) => row.sku)).not.toContain("ATT-LOW-1");

    const removed = await admin("PUT", "/admin/products/ATT-LOW-1/low-stock-threshold", { threshold: null });
    expect(removed.body).toMatchObject({
      message: "Low-stock threshold removed",
      data: { threshold: null, available: 3 },
    });
    expect(await env.DB.prepare(`SELECT * FROM stock_thresholds WHERE sku = 'ATT-LOW-1'`).first()).toBeNull();
    expect(await auditOf("product:ATT-LOW-1")).toEqual([
      expect.objectContaining({ action: "product.create" }),
      expect.objectContaining({ action: "inventory.upload" }),
      { action: "product.low_stock_threshold.set", details: { threshold: 4 } },
      { action: "product.low_stock_threshold.set", details: { threshold: 3 } },
      { action: "product.low_stock_threshold.remove", details: { threshold: null } },
    ]);
  });

  it("leaves a disabled SKU off the list, and lists it again when it is enabled", async () => {
    await inventorySku("ATT-LOW-2", []);
    expect((await admin("PUT", "/admin/products/ATT-LOW-2/low-stock-threshold", { threshold: 1 })).status).toBe(200);
    expect((await attention()).lowStock.map((row: { sku: string }) => row.sku)).toContain("ATT-LOW-2");
    expect((await admin("POST", "/admin/products/ATT-LOW-2/disable")).status).toBe(200);
    expect((await attention()).lowStock.map((row: { sku: string }) => row.sku)).not.toContain("ATT-LOW-2");
    expect((await admin("POST", "/admin/products/ATT-LOW-2/enable")).status).toBe(200);
    expect((await attention()).lowStock.map((row: { sku: string }) => row.sku)).toContain("ATT-LOW-2");
  });

  it("refuses an unknown SKU, a SKU without codes and every malformed threshold, changing nothing", async () => {
    expect((await admin("PUT", "/admin/products/ATT-RANGE", RANGE_PRODUCT)).status).toBe(200);
    await inventorySku("ATT-LOW-3", []);
    const before = await thresholdRows();
    const unknown = await admin("PUT", "/admin/products/NO-SUCH-SKU/low-stock-threshold", { threshold: 5 });
    expect([unknown.status, unknown.body.code]).toEqual([404, "sku_not_found"]);
    const notStock = await admin("PUT", "/admin/products/ATT-RANGE/low-stock-threshold", { threshold: 5 });
    expect([notStock.status, notStock.body.code]).toEqual([400, "invalid_request_body"]);
    for (const body of [
      {},
      { threshold: 0 },
      { threshold: -1 },
      { threshold: 1.5 },
      { threshold: "5" },
      { threshold: 1_000_001 },
      { threshold: 5, extra: 1 },
    ]) {
      const refused = await admin("PUT", "/admin/products/ATT-LOW-3/low-stock-threshold", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await admin("PUT", "/admin/products/ATT-LOW-3/low-stock-threshold", { threshold: 5 }, { token: null })).status,
    ).toBe(403);
    expect(await thresholdRows()).toEqual(before);
  });
});

describe("low-balance thresholds", () => {
  it("lists a wallet while its balance is below its threshold, exactly", async () => {
    await addClient("att-wallet-1", { USD: "100.10" });
    const set = await admin("PUT", "/admin/wallets/att-wallet-1/USD/low-balance-threshold", { threshold: "100.11" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await expectConforms("PUT", "/admin/wallets/{clientId}/{currency}/low-balance-threshold", set);
    expect(set.body.data).toEqual({ clientId: "att-wallet-1", currency: "USD", threshold: 100.11, balance: 100.1 });
    const listed = (await attention()).lowBalance.filter(
      (row: { clientId: string }) => row.clientId === "att-wallet-1",
    );
    expect(listed).toEqual([{ clientId: "att-wallet-1", currency: "USD", threshold: 100.11, balance: 100.1 }]);

    // Equal is not below: 100.1 against 100.10.
    expect(
      (await admin("PUT", "/admin/wallets/att-wallet-1/USD/low-balance-threshold", { threshold: 100.1 })).status,
    ).toBe(200);
    expect((await attention()).lowBalance.map((row: { clientId: string }) => row.clientId)).not.toContain(
      "att-wallet-1",
    );
    expect(
      (await env.DB.prepare(`SELECT threshold FROM wallet_thresholds WHERE client_id = 'att-wallet-1'`).first())!
        .threshold,
    ).toBe("100.1");

    const removed = await admin("PUT", "/admin/wallets/att-wallet-1/USD/low-balance-threshold", { threshold: null });
    expect(removed.body).toMatchObject({
      message: "Low-balance threshold removed",
      data: { threshold: null, balance: 100.1 },
    });
    expect(await auditOf("wallet:att-wallet-1:USD")).toEqual([
      { action: "wallet.low_balance_threshold.set", details: { threshold: "100.11" } },
      { action: "wallet.low_balance_threshold.set", details: { threshold: "100.1" } },
      { action: "wallet.low_balance_threshold.remove", details: { threshold: null } },
    ]);
  });

  it("refuses an unknown client or wallet and thresholds the currency cannot hold, changing nothing", async () => {
    await addClient("att-wallet-2", { USD: "5", JPY: "500" });
    const before = await thresholdRows();
    const noClient = await admin("PUT", "/admin/wallets/att-nobody/USD/low-balance-threshold", { threshold: "1" });
    expect([noClient.status, noClient.body.code]).toEqual([404, "client_not_found"]);
    const noWallet = await admin("PUT", "/admin/wallets/att-wallet-2/EUR/low-balance-threshold", { threshold: "1" });
    expect([noWallet.status, noWallet.body.code]).toEqual([404, "wallet_unknown"]);
    for (const [currency, body] of [
      ["USD", { threshold: "0" }],
      ["USD", { threshold: 0 }],
      ["USD", { threshold: "-1" }],
      ["USD", { threshold: "1.001" }],
      ["JPY", { threshold: "1.5" }],
      ["USD", { threshold: "abc" }],
      ["USD", {}],
      ["USD", { threshold: "1", reason: "x" }],
    ] as const) {
      const refused = await admin("PUT", `/admin/wallets/att-wallet-2/${currency}/low-balance-threshold`, body);
      expect(refused.status, `${currency} ${JSON.stringify(body)}`).toBe(400);
    }
    expect(
      (await admin("PUT", "/admin/wallets/att-wallet-2/XXX/low-balance-threshold", { threshold: "1" })).status,
    ).toBe(400);
    expect(await thresholdRows()).toEqual(before);
  });
});

describe("the Needs attention list", () => {
  it("carries the stuck orders and the pending dead letters, saying when their own lists hold more", async () => {
    const now = Date.now();
    await env.DB.prepare(
      `INSERT INTO timer_failures (order_id, client_id, timer, failures, last_error, first_failed_at, last_failed_at, next_attempt_at)
       VALUES ('ord_att_stuck', 'demo', 'outbox', 4, 'Queue send failed', ?1, ?1, ?1)`,
    )
      .bind(now)
      .run();
    const letter = (id: string, replayedAt: number | null) =>
      env.DB.prepare(
        `INSERT INTO dead_letters (event_id, client_id, url, message, attempts, last_error, failed_at, replayed_at) VALUES (?1, 'demo', 'https://hooks.example.com/o', ?2, 8, 'HTTP 503', ?3, ?4)`,
      ).bind(
        id,
        JSON.stringify({
          clientId: "demo",
          url: "https://hooks.example.com/o",
          event: {
            id,
            type: "order.confirmed",
            createdAt: 1,
            data: { orderId: "ord_1", state: "confirmed", reference: "r" },
          },
        }),
        now,
        replayedAt,
      );
    await env.DB.batch([letter("evt_att_replayed", now), letter("evt_att_pending", null)]);
    let data = await attention();
    expect(data.stuckOrders.orders.map((row: { orderId: string }) => row.orderId)).toContain("ord_att_stuck");
    expect(data.stuckOrders.more).toBe(false);
    const events = data.deadLetters.deadLetters.map((row: { eventId: string }) => row.eventId);
    expect(events).toContain("evt_att_pending");
    expect(events).not.toContain("evt_att_replayed");
    expect(data.deadLetters.more).toBe(false);

    await env.DB.batch(Array.from({ length: 50 }, (_, index) => letter(`evt_att_many_${index}`, null)));
    data = await attention();
    expect(data.deadLetters.deadLetters).toHaveLength(50);
    expect(data.deadLetters.more).toBe(true);
  });

  it("carries the orders that ended failed or partial this week, from the books' exceptions", async () => {
    const failedLine = { sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 2, amount: "2.5", outcome: "failed" };
    const partial = bareIndexRow({
      clientId: "att-books",
      state: "partial",
      total: "7.5",
      charged: "7.5",
      refunded: "2.5",
      lines: [
        { sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: "5", outcome: "delivered" },
        failedLine,
      ],
    } as Parameters<typeof bareIndexRow>[0]);
    const successful = bareIndexRow({ clientId: "att-books" });
    await writeBooksRow(partial);
    await writeBooksRow(successful);
    const answer = await admin("GET", "/admin/attention");
    await expectConforms("GET", "/admin/attention", answer);
    const { failedOrders } = answer.body.data;
    expect(failedOrders.more).toBe(false);
    const mine = failedOrders.orders.filter((row: { clientId: string }) => row.clientId === "att-books");
    expect(mine).toEqual([
      {
        clientId: "att-books",
        orderId: partial.id,
        createdAt: partial.createdAt,
        state: "partial",
        wallet: "USD",
        reference: partial.reference,
        lines: [{ sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 2, amount: 2.5 }],
        foundAt: expect.any(Number),
      },
    ]);
  });

  it("is for operators only", async () => {
    expect((await admin("GET", "/admin/attention", undefined, { token: null })).status).toBe(403);
    expect((await admin("GET", "/admin/attention", undefined, { token: "not-the-admin-token" })).status).toBe(403);
  });
});
