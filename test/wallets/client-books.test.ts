/**
 * The client's own books of a wallet: GET /wallets/{currency}/ledger and GET /wallets/{currency}/statement,
 * across the wallet's objects (a moved wallet), with void markers and moves kept out, formula cells
 * neutralised, and another client's wallet answered as an unknown one.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { armFault, clearFaults } from "../../src/kernel/faults";
import { orderReferences } from "../../src/order-index/order-references";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { movementsPage } from "../../src/wallets/wallet-history";
import { historyOf, walletCurrencies } from "../../src/wallets/wallet-registry-store";
import { statementStream } from "../../src/wallets/wallet-statement";
import { admin, snapshot } from "../admin-helpers";
import { expectBooks, expectChained, placedOrder, wholeLedger } from "../books-check";
import { parseCsv } from "../csv-helpers";
import { call, line, seedDemo, wallet } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import {
  indexNow,
  addCodes,
  drainTimers,
  expectError,
  expireByAlarm,
  rewriteStoredOrder,
  storedOrder,
  uid,
} from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await addCodes("DEMO-EU-FIXED", "10", 20);
});

afterEach(() => clearFaults());

/** A client made through the operator API (its key is what it has), with a USD wallet holding `funds`. */
async function newClient(funds = "1000", note = "opening"): Promise<{ clientId: string; key: string }> {
  const clientId = uid("bk");
  const created = await admin("POST", "/admin/clients", { id: clientId, name: clientId });
  expect(created.status).toBe(200);
  const topUp = await operatorTopUp(clientId, funds, note);
  expect(topUp.status).toBe(200);
  return { clientId, key: created.body.data.apiKey as string };
}

/** An operator's top-up whose client-facing note is `note`; its internal reason is never shown to the client. */
const operatorTopUp = (clientId: string, amount: string, note: string, currency = "USD") =>
  admin("POST", `/admin/wallets/${clientId}/${currency}/top-ups`, {
    amount,
    idempotencyKey: uid("k"),
    reason: `${INTERNAL} ${note}`,
    note,
  });

/** What every operator reason here starts with: the client's books never show it. */
const INTERNAL = "internal: matched by Rita against the bank statement";

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("GET /wallets/{currency}/ledger", () => {
  it("lists every movement oldest first with its balance after and its order's reference; void markers and unconfirmed orders move nothing", async () => {
    const { clientId, key } = await newClient("1000");
    const successful = await placedOrder(key, [line("DEMO-US-RANGE", 10)], "po-1");
    const partial = await placedOrder(key, [line("DEMO-US-RANGE", 5), line("DEMO-US-FAILING", 7)], "po-2");
    expect((await storedOrder(partial)).state).toBe("partial");
    // Created, never confirmed, expired: its void is a marker, not a movement.
    const created = await call("POST", "/order/create", {
      key,
      body: { productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference: "po-3" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const expired = created.body.data.id as string;
    await expireByAlarm(expired);
    expect((await storedOrder(expired)).state).toBe("rejected");
    await operatorTopUp(clientId, "50", "Bank transfer 2026-11-26");

    const answer = await call("GET", "/wallets/USD/ledger", { key });
    expect(answer.status).toBe(200);
    await expectConforms("GET", "/wallets/{currency}/ledger", answer);
    expect(answer.body.data.next).toBeNull();
    const movements = answer.body.data.movements;
    expect(movements.map(({ createdAt: _, ...movement }: { createdAt: number }) => movement)).toEqual([
      {
        kind: "top_up",
        amount: 1000,
        balanceAfter: 1000,
        orderId: null,
        reference: null,
        sku: null,
        note: "opening",
      },
      {
        kind: "order_charge",
        amount: -10,
        balanceAfter: 990,
        orderId: successful,
        reference: "po-1",
        sku: null,
        note: null,
      },
      {
        kind: "order_charge",
        amount: -12,
        balanceAfter: 978,
        orderId: partial,
        reference: "po-2",
        sku: null,
        note: null,
      },
      {
        kind: "order_refund",
        amount: 7,
        balanceAfter: 985,
        orderId: partial,
        reference: "po-2",
        sku: "DEMO-US-FAILING",
        note: null,
      },
      {
        kind: "top_up",
        amount: 50,
        balanceAfter: 1035,
        orderId: null,
        reference: null,
        sku: null,
        note: "Bank transfer 2026-11-26",
      },
    ]);
    // The wallet did mark the expired order voided: kept out of the view, as every ledger view a person reads.
    expect(await wallet(clientId, "USD").chargeStatus(expired)).toMatchObject({ status: "voided" });
    const times = movements.map((movement: { createdAt: number }) => movement.createdAt);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 1035 }]);
  });

  it("names each order's reference from the wallet's own ledger (its charge's reason), page by page, across a move", async () => {
    const { clientId, key } = await newClient("100");
    const partial = await placedOrder(key, [line("DEMO-US-RANGE", 5), line("DEMO-US-FAILING", 7)], "ref-from-ledger");
    expect((await admin("POST", `/admin/clients/${clientId}/region`, { region: "weur" })).status).toBe(200);
    await operatorTopUp(clientId, "1", "after the move");
    const registered = (await walletCurrencies(env.DB, clientId))[0]!;
    // One movement a page: the refund's page reads its order's charge from the object before it.
    const named: [string, string | null][] = [];
    for (let after: number | null = 0; after !== null;) {
      const page: Awaited<ReturnType<typeof movementsPage>> = await movementsPage(env, clientId, registered, after, 1);
      named.push(...page.movements.map((movement) => [movement.kind, movement.reference] as [string, string | null]));
      after = page.next;
    }
    expect(named).toEqual([
      ["top_up", null],
      ["order_charge", "ref-from-ledger"],
      ["order_refund", "ref-from-ledger"],
      ["top_up", null],
    ]);
    expect((await storedOrder(partial)).reference).toBe("ref-from-ledger");
  });

  it("pages with limit and after: the pages join into the whole ledger, none repeated or skipped", async () => {
    const { clientId, key } = await newClient("100");
    for (let index = 0; index < 6; index += 1) await operatorTopUp(clientId, `${index + 1}`, `top-up ${index}`);
    const whole = await wholeLedger(key, "USD", 500);
    expect(whole).toHaveLength(7);
    expect(expectChained(whole)).toBe(121);
    for (const limit of [1, 2, 3, 6, 7]) expect(await wholeLedger(key, "USD", limit)).toEqual(whole);
    const bad = await call("GET", "/wallets/USD/ledger?limit=0", { key });
    expectError(bad, 400, "Invalid path or query parameters", "invalid_parameters");
    expectError(
      await call("GET", "/wallets/USD/ledger?after=-1", { key }),
      400,
      "Invalid path or query parameters",
      "invalid_parameters",
    );
  });

  it("shows a moved wallet's movements across its objects, without the move, and a refund the old object forwarded once, where it landed", async () => {
    const { clientId, key } = await newClient("100");
    const before = await placedOrder(key, [line("DEMO-US-RANGE", 10)], "before-move");
    // Charged before the move, its failing line refunded after it: the old object takes the refund and
    // forwards it to the new one (as in wallet-move.test.ts).
    const created = await call("POST", "/order/create", {
      key,
      body: { productList: [line("DEMO-US-RANGE", 6), line("DEMO-US-FAILING", 7)], wallet: "USD", reference: "split" },
    });
    const split = created.body.data.id as string;
    armFault(ORDER_SEAMS.supplierSandbox, { when: "before", times: 2 });
    expect((await call("PUT", "/order/confirm", { key, body: { orderId: split } })).status).toBe(200);
    await pause();
    await rewriteStoredOrder(split, () => {}, { process: Date.now() + 60_000 });
    expect((await admin("POST", `/admin/clients/${clientId}/region`, { region: "apac" })).status).toBe(200);
    clearFaults();
    await drainTimers(split);
    expect((await storedOrder(split)).state).toBe("partial");
    const after = await placedOrder(key, [line("DEMO-US-RANGE", 5)], "after-move");
    await operatorTopUp(clientId, "20", "after the move");

    const registered = (await walletCurrencies(env.DB, clientId))[0]!;
    expect(historyOf(registered)).toHaveLength(2);
    const movements = await wholeLedger(key, "USD", 2);
    expect(movements.map((movement) => [movement.kind, movement.amount, movement.reference])).toEqual([
      ["top_up", 100, null],
      ["order_charge", -10, "before-move"],
      ["order_charge", -13, "split"],
      ["order_refund", 7, "split"],
      ["order_charge", -5, "after-move"],
      ["top_up", 20, null],
    ]);
    expect(movements[1].orderId).toBe(before);
    expect(movements[3]).toMatchObject({ orderId: split, sku: "DEMO-US-FAILING" });
    expect(movements[4].orderId).toBe(after);
    expect(expectChained(movements)).toBe(99);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 99 }]);
  });

  it("answers another client's wallet as an unknown one: 404 wallet_unknown", async () => {
    const { clientId, key } = await newClient("10");
    const other = await newClient("10");
    await operatorTopUp(other.clientId, "10", "other's euros", "EUR");
    const theirs = await call("GET", "/wallets/EUR/ledger", { key });
    const unknown = await call("GET", "/wallets/XTS/ledger", { key });
    expectError(theirs, 404, "Wallet not found", "wallet_unknown");
    expectError(unknown, 404, "Wallet not found", "wallet_unknown");
    expect(theirs.body).toEqual({ ...unknown.body, details: { clientId, currency: "EUR" } });
    expect(unknown.body.details).toEqual({ clientId, currency: "XTS" });
    await expectConforms("GET", "/wallets/{currency}/ledger", theirs);
    expect((await call("GET", "/wallets/EUR/ledger", { key: other.key })).status).toBe(200);
    expectError(
      await call("GET", "/wallets/usd/ledger", { key }),
      400,
      "Invalid path or query parameters",
      "invalid_parameters",
    );
    expectError(
      await call("GET", "/wallets/USD/ledger", { key: null }),
      403,
      "Authentication credentials are missing or invalid",
    );
  });

  it("checks the query before the wallet, in the order its checks are declared: a bad query is 400 whoever's wallet it names", async () => {
    const { key } = await newClient("10");
    const other = await newClient("10");
    await operatorTopUp(other.clientId, "10", "other's euros", "EUR");
    for (const currency of ["USD", "EUR", "XTS"])
      for (const path of [`/wallets/${currency}/ledger?limit=0`, `/wallets/${currency}/statement?from=2&to=1`])
        expectError(await call("GET", path, { key }), 400, "Invalid path or query parameters", "invalid_parameters");
  });
});

describe("GET /wallets/{currency}/statement", () => {
  it("opens with the balance before the period, lists its movements, and closes at opening plus movements: the wallet's balance then", async () => {
    const { clientId, key } = await newClient("1000");
    await placedOrder(key, [line("DEMO-US-RANGE", 10)], "before");
    await pause();
    const from = Date.now();
    await pause();
    const charged = await placedOrder(key, [line("DEMO-US-RANGE", 5), line("DEMO-US-FAILING", 7)], "in-period");
    await operatorTopUp(clientId, "0.01", "cent");
    await pause();
    const to = Date.now();
    await pause();
    await operatorTopUp(clientId, "40", "after the period");

    const csv = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, { key });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("x-request-id")).toBeTruthy();
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="statement-USD-${from}-${to}.csv"`);
    const rows = parseCsv(csv.body as string);
    expect(rows.map((row) => row.slice(1))).toEqual([
      ["kind", "order_id", "reference", "sku", "note", "amount", "balance_after"],
      ["opening_balance", "", "", "", "", "", "990"],
      ["order_charge", charged, "in-period", "", "", "-12", "978"],
      ["order_refund", charged, "in-period", "DEMO-US-FAILING", "", "7", "985"],
      ["top_up", "", "", "", "cent", "0.01", "985.01"],
      ["closing_balance", "", "", "", "", "", "985.01"],
    ]);
    expect(rows[1]![0]).toBe(new Date(from).toISOString());
    expect(rows.at(-1)![0]).toBe(new Date(to).toISOString());
    // Opening plus the movements is the closing balance, to the minor unit.
    const cents = (cell: string) => Math.round(Number(cell) * 100);
    const sum = rows.slice(2, -1).reduce((total, row) => total + cents(row[6]!), cents(rows[1]![7]!));
    expect(sum).toBe(cents(rows.at(-1)![7]!));

    const json = await call("GET", `/wallets/USD/statement?from=${from}&to=${to}`, {
      key,
      headers: { accept: "application/json" },
    });
    await expectConforms("GET", "/wallets/{currency}/statement", json);
    expect(json.body.data).toMatchObject({ currency: "USD", from, to, openingBalance: 990, closingBalance: 985.01 });
    expect(json.body.data.movements.map((movement: { amount: number }) => movement.amount)).toEqual([-12, 7, 0.01]);

    // A period up to now closes at the wallet's balance.
    const now = await call("GET", `/wallets/USD/statement?from=${from}&to=${Date.now() + 1}`, {
      key,
      headers: { accept: "application/json" },
    });
    expect(now.body.data.closingBalance).toBe(1025.01);
    expect((await call("GET", "/wallets", { key })).body.data.wallets).toEqual([{ currency: "USD", balance: 1025.01 }]);
    // A period before anything happened: nothing but the balances.
    const empty = parseCsv((await call("GET", `/wallets/USD/statement?from=0&to=1`, { key })).body as string);
    expect(empty.map((row) => row.slice(1))).toEqual([
      ["kind", "order_id", "reference", "sku", "note", "amount", "balance_after"],
      ["opening_balance", "", "", "", "", "", "0"],
      ["closing_balance", "", "", "", "", "", "0"],
    ]);
  });

  it("neutralises every cell a client or operator wrote that a spreadsheet would run as a formula", async () => {
    const { clientId, key } = await newClient("100", '=HYPERLINK("https://evil.test","open")');
    const orderId = await placedOrder(key, [line("DEMO-US-RANGE", 10)], "@SUM(1+1)*cmd|' /C calc'!A0");
    await operatorTopUp(clientId, "1", '+1,"quoted"');
    const rows = parseCsv(
      (await call("GET", `/wallets/USD/statement?from=0&to=${Date.now() + 1}`, { key })).body as string,
    );
    expect(rows.slice(2, -1).map((row) => [row[1], row[3], row[5]])).toEqual([
      ["top_up", "", `'=HYPERLINK("https://evil.test","open")`],
      ["order_charge", "'@SUM(1+1)*cmd|' /C calc'!A0", ""],
      ["top_up", "", `'+1,"quoted"`],
    ]);
    expect(rows[3]![2]).toBe(orderId);
    // The JSON statement and the ledger carry them as they were written.
    const json = await call("GET", `/wallets/USD/statement?from=0&to=${Date.now() + 1}`, {
      key,
      headers: { accept: "application/json" },
    });
    expect(json.body.data.movements[1].reference).toBe("@SUM(1+1)*cmd|' /C calc'!A0");
  });

  it("streams: the rows are read a batch at a time as the reader pulls, never the whole period at once", async () => {
    const { clientId } = await newClient("100");
    for (let index = 0; index < 9; index += 1) await operatorTopUp(clientId, "1", `top-up ${index}`);
    const registered = (await walletCurrencies(env.DB, clientId))[0]!;
    let reads = 0;
    const counted = new Proxy(env, {
      get(target, name) {
        if (name !== "WALLETS") return Reflect.get(target, name);
        return new Proxy(target.WALLETS, {
          get(namespace, property) {
            if (property !== "get") return Reflect.get(namespace, property).bind(namespace);
            return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
              const stub = namespace.get(id, options);
              return new Proxy(stub, {
                get(object, method: string) {
                  return (...args: unknown[]) => {
                    if (method === "entries") reads += 1;
                    return (object as any)[method](...args);
                  };
                },
              });
            };
          },
        });
      },
    }) as Env;
    const stream = statementStream(
      counted,
      clientId,
      registered,
      { from: 0, to: Date.now() },
      orderReferences,
      "csv",
      2,
    );
    const reader = stream.getReader();
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    chunks.push(decoder.decode((await reader.read()).value));
    chunks.push(decoder.decode((await reader.read()).value));
    // The opening, then one batch of two entries: the rest is not read until asked for.
    expect(reads).toBeLessThanOrEqual(2);
    for (let next = await reader.read(); !next.done; next = await reader.read())
      chunks.push(decoder.decode(next.value));
    expect(reads).toBe(6);
    const rows = parseCsv(chunks.join(""));
    expect(rows).toHaveLength(1 + 1 + 10 + 1);
    expect(rows.at(-1)!.slice(1)).toEqual(["closing_balance", "", "", "", "", "", "109"]);
  });

  it("refuses a period that is not one, and answers another client's wallet as an unknown one", async () => {
    const { clientId, key } = await newClient("10");
    const other = await newClient("10");
    await operatorTopUp(other.clientId, "10", "other's euros", "EUR");
    for (const query of ["from=10&to=9", "from=1", "to=1", "from=a&to=2", "from=-1&to=2", "from=1&to=2&to=3"])
      expectError(
        await call("GET", `/wallets/USD/statement?${query}`, { key }),
        400,
        "Invalid path or query parameters",
        "invalid_parameters",
      );
    const theirs = await call("GET", "/wallets/EUR/statement?from=0&to=1", { key });
    const unknown = await call("GET", "/wallets/XTS/statement?from=0&to=1", { key });
    expectError(theirs, 404, "Wallet not found", "wallet_unknown");
    expect(theirs.body).toEqual({ ...unknown.body, details: { clientId, currency: "EUR" } });
    await expectConforms("GET", "/wallets/{currency}/statement", theirs);
    expect((await call("GET", "/wallets/EUR/statement?from=0&to=1", { key: other.key })).status).toBe(200);
  });
});

describe("the books, as a reseller's finance team reads them", () => {
  it("an order found by its reference, its charge in the ledger, a statement that adds up", async () => {
    const { key } = await newClient("100");
    await expectBooks(key);
  });

  it("reading the books writes nothing", async () => {
    const { key } = await newClient("100");
    // Its own row in the index written now, as its index timer would a few seconds later.
    await indexNow(await placedOrder(key, [line("DEMO-US-RANGE", 10)], "quiet"));
    const tables = async () => ({
      ...(await snapshot()),
      order_index: (await env.DB.prepare(`SELECT * FROM order_index ORDER BY id`).all()).results,
    });
    const before = await tables();
    for (const path of [
      "/wallets/USD/ledger",
      `/wallets/USD/statement?from=0&to=${Date.now()}`,
      "/wallets/EUR/ledger",
      "/order/get?reference=quiet",
      "/order/get?reference=never-created",
    ])
      await call("GET", path, { key });
    expect(await tables()).toEqual(before);
  });

  it("an order's reference is looked up among the caller's own orders only", async () => {
    const { clientId, key } = await newClient("100");
    const other = await newClient("100");
    const orderId = await placedOrder(key, [line("DEMO-US-RANGE", 10)], "mine");
    expect(await orderReferences(env, clientId, [orderId])).toEqual(new Map([[orderId, "mine"]]));
    expect(await orderReferences(env, other.clientId, [orderId])).toEqual(new Map());
    await admin("POST", "/admin/orders/index/run");
    expect(await orderReferences(env, clientId, [orderId, "ord_nothing"])).toEqual(new Map([[orderId, "mine"]]));
    expect(await orderReferences(env, other.clientId, [orderId])).toEqual(new Map());
  });
});
