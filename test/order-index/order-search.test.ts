/**
 * The operator's order search (GET /admin/orders/search) and its CSV export (GET /admin/orders/export)
 * over the order index: each filter selects exactly the orders that match, pages walk every order once
 * while new ones arrive, bad queries are 400 and change nothing, the export's rows are the list's rows,
 * a reference that a spreadsheet would run as a formula is neutralised, and every role may read.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../csv-helpers";
import { IndexedState } from "../../src/order-index/order-search-admin-schemas";
import { orderCsvStream } from "../../src/order-index/order-search";
import { OrderState } from "../../src/orders/order-view-schemas";
import { admin, snapshot } from "../admin-helpers";
import { call, confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { ended, expectError, expectOk, expireByAlarm, freshClient, indexNow, storedOrder, uid } from "../order-helpers";

/** What the test knows of an order it made, to say which orders a filter must select. */
interface Known {
  id: string;
  clientId: string;
  reference: string;
  state: string;
  skus: string[];
  createdAt: number;
  indexed: boolean;
}

const known: Known[] = [];
let clientA: { id: string; key: string };
let clientB: { id: string; key: string };
/** An order left `created`: never in the index. */
let openOrder: { id: string; reference: string };

/** Creates an order, confirms it (or lets it expire) and waits until it has ended; remembers it. */
async function placed(
  client: { id: string; key: string },
  reference: string,
  lines: ReturnType<typeof line>[],
  how: "confirm" | "expire" = "confirm",
): Promise<Known> {
  const created = expectOk(await createOrder({ productList: lines, wallet: "USD", reference }, client.key));
  if (how === "confirm") expectOk(await confirmOrder(created.id, client.key));
  else expect(await expireByAlarm(created.id)).toBe(true);
  const state = await ended(created.id);
  // As its `index` timer does a couple of seconds after its last change.
  await indexNow(created.id);
  const stored = await storedOrder(created.id);
  const order: Known = {
    id: created.id,
    clientId: client.id,
    reference,
    state,
    skus: [...new Set(lines.map((item) => item.sku))],
    createdAt: stored.createdAt,
    // Every order is indexed, one that expired unconfirmed too.
    indexed: true,
  };
  known.push(order);
  return order;
}

/** The known orders a filter selects, newest first (createdAt, then id), by id. */
function expected(filter: {
  clientId?: string;
  state?: string;
  sku?: string;
  createdFrom?: number;
  createdTo?: number;
  reference?: string;
}): string[] {
  return known
    .filter((order) => order.indexed)
    .filter(
      (order) =>
        (filter.clientId === undefined || order.clientId === filter.clientId) &&
        (filter.state === undefined || order.state === filter.state) &&
        (filter.sku === undefined || order.skus.includes(filter.sku)) &&
        (filter.createdFrom === undefined || order.createdAt >= filter.createdFrom) &&
        (filter.createdTo === undefined || order.createdAt <= filter.createdTo) &&
        (filter.reference === undefined || order.reference.startsWith(filter.reference)),
    )
    .sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))
    .map((order) => order.id);
}

function queryOf(filter: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.set(name, String(value));
  return params.toString();
}

/** Every page of a search, followed with `next`; the orders in the order they came. */
async function searchAll(filter: Record<string, string | number | undefined>, limit = 100): Promise<any[]> {
  const orders: any[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 100; pages += 1) {
    const data = expectOk(
      await admin("GET", `/admin/orders/search?${queryOf({ ...filter, limit, after: after ?? undefined })}`),
    );
    orders.push(...data.orders);
    if (data.next === null) return orders;
    after = data.next;
  }
  throw new Error("too many pages");
}

const COLUMNS = [
  "id",
  "client_id",
  "reference",
  "state",
  "wallet",
  "total",
  "charged",
  "refunded",
  "skus",
  "created_at",
  "modified_at",
  "expires_at",
];

/** A listed order as the CSV row the export must write for it. */
function rowOfSummary(order: any): string[] {
  const reference = /^[=+\-@\t\r]/.test(order.reference) ? `'${order.reference}` : order.reference;
  return [
    order.id,
    order.clientId,
    reference,
    order.state,
    order.wallet,
    String(order.total),
    String(order.charged),
    String(order.refunded),
    order.skus.join(" "),
    String(order.createdAt),
    String(order.modifiedAt),
    String(order.expiresAt),
  ];
}

async function indexRows(): Promise<unknown[]> {
  const { results } = await env.DB.prepare(`SELECT * FROM order_index ORDER BY client_id, reference`).all();
  return results;
}

beforeAll(async () => {
  await seedDemo();
  clientA = await freshClient({ USD: "1000" }, "sa");
  clientB = await freshClient({ USD: "1000" }, "sb");
  await placed(clientA, "inv-2026-001", [line("DEMO-US-RANGE", 5, 2)]);
  await placed(clientA, "inv-2026-002", [line("DEMO-US-FAILING", 7)]);
  await placed(clientA, "po-77", [line("DEMO-US-FAILING", 3), line("DEMO-US-RANGE", 10)]);
  await placed(clientA, '=HYPERLINK("http://127.0.0.1/x","open")', [line("DEMO-US-RANGE", 6)]);
  await placed(clientA, "inv-2026-003", [line("DEMO-US-RANGE", 8)], "expire");
  await placed(clientB, "inv-2026-001", [line("DEMO-US-RANGE", 9)]);
  await placed(clientB, "inv-9", [line("DEMO-US-FAILING", 4)]);
  const reference = "inv-2026-open";
  const open = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5)], wallet: "USD", reference }, clientA.key),
  );
  openOrder = { id: open.id, reference };
  await indexNow(open.id);
  known.push({
    id: open.id,
    clientId: clientA.id,
    reference,
    state: "created",
    skus: ["DEMO-US-RANGE"],
    createdAt: (await storedOrder(open.id)).createdAt,
    indexed: true,
  });
}, 60_000);

describe("GET /admin/orders/search", () => {
  it("takes as `state` exactly the states the index holds", () => {
    expect([...IndexedState.options].sort()).toEqual([...OrderState.options].sort());
  });

  it("the orders made here have the states the filters are tested with", () => {
    expect(known.map((order) => order.state)).toEqual([
      "successful",
      "failed",
      "partial",
      "successful",
      "rejected",
      "successful",
      "failed",
      "created",
    ]);
  });

  it("answers each order's summary as the index holds it, amounts as numbers", async () => {
    const answer = await admin("GET", `/admin/orders/search?clientId=${clientA.id}&reference=po-77`);
    await expectConforms("GET", "/admin/orders/search", answer);
    const data = expectOk(answer);
    const partial = known.find((order) => order.reference === "po-77")!;
    const stored = await storedOrder(partial.id);
    expect(answer.body.message).toBe("Orders");
    expect(data).toEqual({
      orders: [
        {
          id: partial.id,
          clientId: clientA.id,
          reference: "po-77",
          state: "partial",
          wallet: "USD",
          total: 13,
          charged: 13,
          refunded: 3,
          skus: ["DEMO-US-FAILING", "DEMO-US-RANGE"],
          createdAt: stored.createdAt,
          modifiedAt: stored.modifiedAt,
          expiresAt: stored.expiresAt,
        },
      ],
      next: null,
    });
  });

  const filters: [string, () => Record<string, string | number | undefined>][] = [
    ["no filter", () => ({})],
    ["a client", () => ({ clientId: clientA.id })],
    ["the other client", () => ({ clientId: clientB.id })],
    ["a state", () => ({ state: "failed" })],
    ["a state only rejected orders have", () => ({ state: "rejected" })],
    ["a state and a client", () => ({ state: "successful", clientId: clientB.id })],
    ["a state no order has", () => ({ state: "processing" })],
    ["a SKU", () => ({ sku: "DEMO-US-FAILING" })],
    ["a SKU no order has", () => ({ sku: "DEMO-EU-FIXED" })],
    ["a client's reference prefix", () => ({ clientId: clientA.id, reference: "inv-2026-" })],
    ["the other client's reference prefix", () => ({ clientId: clientB.id, reference: "inv-2026-" })],
    ["a reference prefix and a state", () => ({ clientId: clientA.id, reference: "inv", state: "successful" })],
    ["a whole reference as the prefix", () => ({ clientId: clientB.id, reference: "inv-9" })],
    [
      "created from and to, both inclusive",
      () => ({ createdFrom: known[1]!.createdAt, createdTo: known[5]!.createdAt }),
    ],
    ["created from only", () => ({ createdFrom: known[3]!.createdAt })],
    ["created to only", () => ({ createdTo: known[2]!.createdAt })],
    [
      "a time range and a SKU",
      () => ({ createdFrom: known[0]!.createdAt, sku: "DEMO-US-RANGE", clientId: clientA.id }),
    ],
  ];
  for (const [name, filterOf] of filters) {
    it(`selects exactly the matching orders, newest first: ${name}`, async () => {
      const filter = filterOf();
      const ids = (await searchAll(filter)).map((order) => order.id);
      expect(ids).toEqual(expected(filter));
    });
  }

  it("holds an order that is still created, as the lookup by its exact reference finds it", async () => {
    const all = await searchAll({ clientId: clientA.id, state: "created" });
    expect(all.map((order) => order.id)).toEqual([openOrder.id]);
    const found = expectOk(
      await admin("GET", `/admin/orders?clientId=${clientA.id}&reference=${encodeURIComponent(openOrder.reference)}`),
    );
    expect(found.state).toBe("created");
  });

  it("pages walk every order once, newest first, while new orders are created between pages", async () => {
    const before = expected({});
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const answer = await admin("GET", `/admin/orders/search?${queryOf({ limit: 2, after: after ?? undefined })}`);
      const data = expectOk(answer);
      expect(data.orders.length).toBeLessThanOrEqual(2);
      seen.push(...data.orders.map((order: any) => order.id));
      pages += 1;
      if (data.next === null) break;
      after = data.next;
      // A newer order lands before the page the walk is on: it must not shift what the walk sees.
      if (pages <= 2) await placed(clientB, uid("late"), [line("DEMO-US-RANGE", 5)]);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(before);
    expect(pages).toBe(Math.ceil(before.length / 2));
    // A new search starts at the newest order, the ones made during the walk included.
    const fresh = expectOk(await admin("GET", "/admin/orders/search?limit=2"));
    expect(fresh.orders.map((order: any) => order.id)).toEqual(expected({}).slice(0, 2));
  });

  it("a full last page says no next page; a page one short says the same", async () => {
    const count = expected({ clientId: clientA.id }).length;
    const exact = expectOk(await admin("GET", `/admin/orders/search?clientId=${clientA.id}&limit=${count}`));
    expect(exact.orders).toHaveLength(count);
    expect(exact.next).toBeNull();
    const short = expectOk(await admin("GET", `/admin/orders/search?clientId=${clientA.id}&limit=${count - 1}`));
    expect(short.orders).toHaveLength(count - 1);
    expect(short.next).toEqual(expect.any(String));
  });

  it("defaults to 50 orders a page", async () => {
    const data = expectOk(await admin("GET", "/admin/orders/search"));
    expect(data.orders.map((order: any) => order.id)).toEqual(expected({}).slice(0, 50));
  });
});

describe("bad queries are 400 invalid_parameters and change nothing", () => {
  const bad: [string, string, string][] = [
    ["a reference prefix without clientId", "reference=inv", "reference"],
    ["a state that is none", "state=shipped", "state"],
    ["limit 0", "limit=0", "limit"],
    ["limit 101", "limit=101", "limit"],
    ["a limit that is not a number", "limit=ten", "limit"],
    ["a cursor this service did not write", "after=page-2", "after"],
    ["a cursor of the right shape with a bad order id", "after=1795345078500.ord_xyz", "after"],
    ["a time that is not a number", "createdFrom=yesterday", "createdFrom"],
    ["a SKU that cannot be one", "sku=%2Cx", "sku"],
    ["a repeated parameter", "state=failed&state=successful", "state"],
  ];
  for (const [name, query, field] of bad) {
    it(`search: ${name}`, async () => {
      const [rows, tables] = [await indexRows(), await snapshot()];
      const answer = await admin("GET", `/admin/orders/search?${query}`);
      expectError(answer, 400, "Invalid path or query parameters", "invalid_parameters");
      expect(answer.body.details.issues.map((issue: any) => issue.path)).toContain(field);
      await expectConforms("GET", "/admin/orders/search", answer);
      expect(await indexRows()).toEqual(rows);
      expect(await snapshot()).toEqual(tables);
    });
  }

  it("search: the reference prefix's 400 says that it needs clientId", async () => {
    const answer = await admin("GET", "/admin/orders/search?reference=inv");
    expect(answer.body.details).toEqual({
      issues: [{ path: "reference", message: "a reference prefix needs clientId: references are each client's own" }],
    });
  });

  for (const [name, query, field] of bad.filter(([, query]) => !/limit|after/.test(query))) {
    it(`export: ${name}`, async () => {
      const rows = await indexRows();
      const answer = await admin("GET", `/admin/orders/export?${query}`);
      expectError(answer, 400, "Invalid path or query parameters", "invalid_parameters");
      expect(answer.body.details.issues.map((issue: any) => issue.path)).toContain(field);
      expect(await indexRows()).toEqual(rows);
    });
  }

  it("export: takes no paging parameters", async () => {
    expectError(await admin("GET", "/admin/orders/export?limit=10"), 400, "Invalid path or query parameters");
  });
});

describe("GET /admin/orders/export", () => {
  const filters: [string, () => Record<string, string | number | undefined>][] = [
    ["no filter", () => ({})],
    ["a client", () => ({ clientId: clientA.id })],
    ["a state", () => ({ state: "successful" })],
    ["a SKU", () => ({ sku: "DEMO-US-FAILING" })],
    ["a reference prefix", () => ({ clientId: clientB.id, reference: "inv-" })],
    ["a time range", () => ({ createdFrom: known[1]!.createdAt, createdTo: known[4]!.createdAt })],
    ["nothing matches", () => ({ sku: "DEMO-EU-FIXED" })],
  ];
  for (const [name, filterOf] of filters) {
    it(`its rows are the list's rows, in the list's order: ${name}`, async () => {
      const filter = filterOf();
      const answer = await admin("GET", `/admin/orders/export?${queryOf(filter)}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(answer.headers.get("content-disposition")).toBe('attachment; filename="orders.csv"');
      expect(answer.headers.get("x-request-id")).toBeTruthy();
      const [header, ...rows] = parseCsv(answer.body as string);
      expect(header).toEqual(COLUMNS);
      const listed = await searchAll(filter, 3);
      expect(rows).toEqual(listed.map(rowOfSummary));
      expect(rows.map((row) => row[0])).toEqual(expected(filter));
    });
  }

  it("neutralises a reference a spreadsheet would run as a formula", async () => {
    const answer = await admin("GET", `/admin/orders/export?clientId=${clientA.id}&reference=%3D`);
    const text = answer.body as string;
    expect(text).toContain(`,"'=HYPERLINK(""http://127.0.0.1/x"",""open"")",`);
    const [, row] = parseCsv(text);
    expect(row![2]).toBe(`'=HYPERLINK("http://127.0.0.1/x","open")`);
  });

  it("streams the walk a batch at a time: small batches write the same CSV as one", async () => {
    const whole = await new Response(orderCsvStream(env, {})).text();
    const batched = await new Response(orderCsvStream(env, {}, 2)).text();
    expect(batched).toBe(whole);
    expect(parseCsv(whole)).toHaveLength(1 + expected({}).length);
  });
});

describe("who may search and export", () => {
  it("every role may read both; no token, an unknown one or a revoked one is refused", async () => {
    const tokens: Record<string, string> = {};
    for (const role of ["viewer", "operator", "admin"]) {
      const made = await admin("POST", "/admin/operators", { name: `Search ${role}`, role });
      expect(made.status).toBe(201);
      tokens[role] = made.body.data.token;
    }
    for (const [role, token] of Object.entries(tokens)) {
      const search = await call("GET", `/admin/orders/search?clientId=${clientB.id}`, { key: token });
      expect(search.status, role).toBe(200);
      expect(search.body.data.orders.map((order: any) => order.id)).toEqual(expected({ clientId: clientB.id }));
      const exported = await call("GET", `/admin/orders/export?clientId=${clientB.id}`, { key: token });
      expect(exported.status, role).toBe(200);
      expect(parseCsv(exported.body as string)).toHaveLength(1 + expected({ clientId: clientB.id }).length);
    }
    for (const path of ["/admin/orders/search", "/admin/orders/export"]) {
      // The service answers a missing or unknown token 403 unauthenticated (docs/operator-api.md).
      expectError(await call("GET", path, { key: null }), 403, "Authentication credentials are missing or invalid");
      expectError(
        await call("GET", path, { key: "opt_nope" }),
        403,
        "Authentication credentials are missing or invalid",
      );
      expectError(
        await call("GET", path, { key: clientA.key }),
        403,
        "Authentication credentials are missing or invalid",
      );
    }
  });
});
