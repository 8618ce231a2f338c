/**
 * What a reseller's finance team does with its API key alone, read the way a client reads it: shared by
 * test/wallets (the sandbox) and test/live (live mode), so that both environments answer the books alike.
 */
import { expect } from "vitest";
import { call, line, type ApiCall } from "./helpers";
import { parseCsv } from "./csv-helpers";
import { drainTimers, indexNow, uid } from "./order-helpers";

/** An order created, confirmed and processed to its end; answers its id. */
export async function placedOrder(key: string, productList: unknown[], reference = uid("ref")): Promise<string> {
  const created = await call("POST", "/order/create", { key, body: { productList, wallet: "USD", reference } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId = created.body.data.id as string;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await drainTimers(orderId);
  return orderId;
}

/** Every movement of the wallet, walking the ledger's pages of `limit`. */
export async function wholeLedger(key: string, currency: string, limit: number): Promise<any[]> {
  const movements: any[] = [];
  let after: number | null = 0;
  for (let pages = 0; after !== null; pages += 1) {
    expect(pages).toBeLessThan(100);
    const page: ApiCall = await call("GET", `/wallets/${currency}/ledger?limit=${limit}&after=${after}`, { key });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.message).toBe("Ledger");
    expect(page.body.data.movements.length).toBeLessThanOrEqual(limit);
    movements.push(...page.body.data.movements);
    after = page.body.data.next;
  }
  return movements;
}

/** Each movement's balance after is the one before plus its amount, to the minor unit; answers the last. */
export function expectChained(movements: { amount: number; balanceAfter: number }[], opening = 0): number {
  let balance = Math.round(opening * 100);
  for (const movement of movements) {
    balance += Math.round(movement.amount * 100);
    expect(Math.round(movement.balanceAfter * 100), JSON.stringify(movement)).toBe(balance);
  }
  return balance / 100;
}

/**
 * The finance team's walk, for a client with a USD wallet holding 100 and no order yet: an order placed
 * and one that failed; the failed one in the list of failed orders since the walk began, the other found
 * by its reference, both in the ledger with their references, and a statement whose opening balance
 * plus its rows is its closing balance and the wallet's balance.
 */
export async function expectBooks(
  key: string,
  {
    placed = [line("DEMO-US-RANGE", 10)],
    failing = [line("DEMO-US-FAILING", 5)],
  }: {
    /** The order that is placed and found by its reference: a line charging 10 USD. */
    placed?: unknown[];
    /** The order that fails and is refunded, charging 5 USD; null where no SKU fails (live has no sandbox SKUs). */
    failing?: unknown[] | null;
  } = {},
): Promise<void> {
  const from = Date.now();
  const reference = uid("books");
  const orderId = await placedOrder(key, placed, reference);
  const failedReference = uid("failed");
  const failed = failing === null ? null : await placedOrder(key, failing, failedReference);
  await indexNow(orderId, ...(failed === null ? [] : [failed]));

  if (failed !== null) {
    const failedOnes = await call("GET", `/orders?state=failed&createdFrom=${from}`, { key });
    expect(failedOnes.status).toBe(200);
    expect(failedOnes.body.data.orders.map((order: { id: string }) => order.id)).toEqual([failed]);
  }
  const byReference = await call("GET", `/order/get?reference=${encodeURIComponent(reference)}`, { key });
  expect(byReference.status).toBe(200);
  expect(byReference.body).toEqual((await call("GET", `/order/get?orderId=${orderId}`, { key })).body);

  const ours = failed === null ? 1 : 3;
  const movements = await wholeLedger(key, "USD", 100);
  expect(movements.slice(-ours)).toMatchObject([
    { kind: "order_charge", amount: -10, orderId, reference },
    ...(failed === null
      ? []
      : [
          { kind: "order_charge", amount: -5, orderId: failed, reference: failedReference },
          { kind: "order_refund", amount: 5, orderId: failed, reference: failedReference, sku: "DEMO-US-FAILING" },
        ]),
  ]);
  expectChained(movements);
  const balance = (await call("GET", "/wallets", { key })).body.data.wallets.find(
    (wallet: { currency: string }) => wallet.currency === "USD",
  ).balance;
  expect(movements.at(-1).balanceAfter).toBe(balance);

  const to = Date.now();
  const csv = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, { key });
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  const rows = parseCsv(csv.body as string);
  expect(rows.map((row) => row.slice(1))).toEqual([
    ["kind", "order_id", "reference", "sku", "note", "amount", "balance_after"],
    ["opening_balance", "", "", "", "", "", String(balance + 10)],
    ["order_charge", orderId, reference, "", "", "-10", String(balance)],
    ...(failed === null
      ? []
      : [
          ["order_charge", failed, failedReference, "", "", "-5", String(balance - 5)],
          ["order_refund", failed, failedReference, "DEMO-US-FAILING", "", "5", String(balance)],
        ]),
    ["closing_balance", "", "", "", "", "", String(balance)],
  ]);
  const json = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, {
    key,
    headers: { accept: "application/json" },
  });
  expect(json.status).toBe(200);
  expect(json.body).toMatchObject({
    message: "Statement",
    data: { currency: "USD", from, to, openingBalance: balance + 10, closingBalance: balance },
  });
  expect(json.body.data.movements).toEqual(movements.slice(-ours));
}
