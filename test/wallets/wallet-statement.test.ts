/**
 * The client's own ledger (GET /wallets/:currency/ledger) and CSV statement (GET /wallets/:currency/
 * statement): only the caller's wallet (any other is the 404 of an unknown one), a statement that balances
 * to the minor unit, and text cells a spreadsheet would run neutralised.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Money } from "../../src/pricing/money";
import { admin } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { call, confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { expectError, expectOk, freshClient, runPendingIndex, storedOrder } from "../order-helpers";

beforeAll(seedDemo);

async function settledOrder(key: string, reference: string, sku = "DEMO-US-RANGE", quote = 5): Promise<string> {
  const created = expectOk(await createOrder({ productList: [line(sku, quote, 1)], wallet: "USD", reference }, key));
  expectOk(await confirmOrder(created.id, key));
  for (let wait = 0; wait < 200 && ["confirmed", "processing"].includes((await storedOrder(created.id)).state); wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  await runPendingIndex(created.id);
  return created.id;
}

/** The statement's rows as objects, by the header line. */
function rowsOf(csv: string): Record<string, string>[] {
  const [header, ...lines] = csv.trimEnd().split("\r\n");
  const names = header!.split(",");
  // No cell in these tests holds a comma, so a plain split reads them.
  return lines.map((text) => Object.fromEntries(text.split(",").map((value, at) => [names[at]!, value])));
}

describe("GET /wallets/:currency/ledger", () => {
  it("answers the caller's own ledger in the operator ledger's shape, a page at a time", async () => {
    const me = await freshClient({ USD: "100" });
    const orderId = await settledOrder(me.key, "ledger-1");
    const answer = await call("GET", "/wallets/USD/ledger?limit=1", { key: me.key });
    await expectConforms("GET", "/wallets/{currency}/ledger", answer);
    const mine = expectOk(answer);
    const operator = expectOk(await admin("GET", `/admin/wallets/${me.id}/USD/ledger?limit=1`));
    expect(mine).toEqual(operator);
    const rest = expectOk(await call("GET", `/wallets/USD/ledger?after=${mine.next}`, { key: me.key }));
    expect(rest.entries.map((entry: { orderId: string | null; amount: number }) => [entry.orderId, entry.amount])).toEqual([[orderId, -5]]);
    expect(rest.next).toBeNull();
  });

  it("a wallet the caller does not hold, another client's included, is the same 404 as an unknown one", async () => {
    const me = await freshClient({ USD: "100" });
    await freshClient({ USD: "100", EUR: "50" });
    const other = await call("GET", "/wallets/EUR/ledger", { key: me.key });
    expectError(other, 404, "Wallet not found", "wallet_unknown");
    await expectConforms("GET", "/wallets/{currency}/ledger", other);
    expect((await call("GET", "/wallets/EUR/statement?from=0&to=1", { key: me.key })).body).toEqual(other.body);
    expectError(await call("GET", "/wallets/usd/ledger", { key: me.key }), 400, "Invalid path or query parameters", "invalid_parameters");
    expect((await call("GET", "/wallets/USD/ledger", { key: null })).status).toBe(403);
    expect((await call("GET", "/wallets/USD/statement?from=0&to=1", { key: null })).status).toBe(403);
  });
});

describe("GET /wallets/:currency/statement", () => {
  it("balances: the opening balance plus the movements equals the closing balance, to the minor unit", async () => {
    const me = await freshClient({ USD: "100" });
    await settledOrder(me.key, "before-period");
    const from = Date.now() + 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const charged = await settledOrder(me.key, "in-period-1");
    const partial = await settledOrder(me.key, "in-period-2", "DEMO-US-FAILING", 3.33);
    const to = Date.now();
    const answer = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, { key: me.key });
    expect(answer.status, String(answer.body)).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = rowsOf(String(answer.body));
    expect(rows[0]).toMatchObject({ row: "opening", balanceAfter: "95.00", currency: "USD" });
    const movements = rows.filter((row) => row.row === "movement");
    expect(movements.map((row) => [row.orderId, row.reference, row.kind, row.amount])).toEqual([
      [charged, "in-period-1", "order_charge", "-5.00"],
      [partial, "in-period-2", "order_charge", "-3.33"],
      [partial, "in-period-2", "order_refund", "3.33"],
    ]);
    const closing = rows[rows.length - 1]!;
    expect(closing).toMatchObject({ row: "closing", balanceAfter: "90.00" });
    const sum = movements.reduce((total, row) => total.plus(row.amount!), new Money(rows[0]!.balanceAfter!));
    expect(sum.toFixed(2)).toBe(closing.balanceAfter);
    expect(movements[movements.length - 1]!.balanceAfter).toBe(closing.balanceAfter);
  });

  it("neutralises a reference or reason a spreadsheet would run as a formula", async () => {
    const me = await freshClient({ USD: "100" });
    const from = Date.now();
    await settledOrder(me.key, "@SUM(A1:A9)");
    expectOk(await admin("POST", `/admin/wallets/${me.id}/USD/adjustments`, { amount: "1", idempotencyKey: "formula", reason: "=1+1" }));
    for (const reason of ["+1", "-1", "\tx"]) expectOk(await admin("POST", `/admin/wallets/${me.id}/USD/adjustments`, { amount: "1", idempotencyKey: `formula${reason}`, reason }));
    const csv = String((await call("GET", `/wallets/USD/statement?from=${from}&to=${Date.now()}`, { key: me.key })).body);
    const movements = rowsOf(csv).filter((row) => row.row === "movement");
    expect(movements.map((row) => row.reference)).toContain("'@SUM(A1:A9)");
    expect(movements.map((row) => row.reason)).toEqual(expect.arrayContaining(["'=1+1", "'+1", "'-1", "'\tx"]));
    for (const row of movements) for (const value of [row.reference!, row.reason!]) expect(value).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("refuses a period that ends before it starts, or none at all", async () => {
    const me = await freshClient({ USD: "100" });
    expectError(await call("GET", "/wallets/USD/statement?from=5&to=4", { key: me.key }), 400, "Invalid path or query parameters", "invalid_parameters");
    expectError(await call("GET", "/wallets/USD/statement", { key: me.key }), 400, "Invalid path or query parameters", "invalid_parameters");
  });
});
