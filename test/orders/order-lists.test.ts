/**
 * The order lists from the index: the client's GET /orders (only its own, every filter, stable paging),
 * GET /order/get by reference, the operator's GET /admin/orders, its CSV export (the rows the list shows,
 * formula-safe), the lookup by reference, reconciliation and the backfill.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { writeIndexRow } from "../../src/orders/order-index";
import { reconcile, RECONCILE_GRACE_MS } from "../../src/orders/order-reconciliation";
import { admin } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { call, confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { expectError, expectOk, freshClient, runPendingIndex, storedOrder, uid } from "../order-helpers";

const list = (path: string, key: string) => call("GET", path, { key });

/** Waits for the order to come to rest (processing runs after confirm answers), then lets its index write run. */
async function indexed(orderId: string): Promise<void> {
  for (let wait = 0; wait < 200 && ["confirmed", "processing"].includes((await storedOrder(orderId)).state); wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  await runPendingIndex(orderId);
}

async function placeOrder(key: string, reference: string, options: { confirm?: boolean; sku?: string; quote?: number } = {}): Promise<string> {
  const created = expectOk(await createOrder({ productList: [line(options.sku ?? "DEMO-US-RANGE", options.quote ?? 5, 1)], wallet: "USD", reference }, key));
  if (options.confirm) expectOk(await confirmOrder(created.id, key));
  await indexed(created.id);
  return created.id;
}

beforeAll(seedDemo);

describe("GET /orders", () => {
  it("lists only the caller's own orders, newest first, each with its summary", async () => {
    const me = await freshClient();
    const other = await freshClient();
    const first = await placeOrder(me.key, "mine-1");
    const second = await placeOrder(me.key, "mine-2", { confirm: true });
    await placeOrder(other.key, "theirs-1");
    const answer = await list("/orders", me.key);
    await expectConforms("GET", "/orders", answer);
    const data = expectOk(answer);
    expect(data.orders.map((order: { id: string }) => order.id)).toEqual([second, first]);
    expect(data.next).toBeNull();
    const stored = await storedOrder(second);
    expect(data.orders[0]).toEqual({
      id: second,
      reference: "mine-2",
      state: "successful",
      wallet: "USD",
      total: 5,
      createdAt: stored.createdAt,
      modifiedAt: stored.modifiedAt,
      expiresAt: stored.expiresAt,
      skus: ["DEMO-US-RANGE"],
    });
  });

  it("filters by state, creation period and reference prefix", async () => {
    const me = await freshClient();
    const open = await placeOrder(me.key, "po-1");
    const done = await placeOrder(me.key, "po-2", { confirm: true });
    const failed = await placeOrder(me.key, "inv-1", { confirm: true, sku: "DEMO-US-FAILING", quote: 7 });
    const ids = async (query: string) => expectOk(await list(`/orders?${query}`, me.key)).orders.map((order: { id: string }) => order.id);
    expect(await ids("state=failed")).toEqual([failed]);
    expect(await ids("state=created")).toEqual([open]);
    expect(await ids("reference=po-")).toEqual([done, open]);
    expect(await ids("reference=po-&state=successful")).toEqual([done]);
    const { createdAt } = await storedOrder(done);
    expect(await ids(`createdFrom=${createdAt}&createdTo=${createdAt}`)).toEqual([done]);
    expect(await ids(`createdTo=${createdAt - 1}`)).toEqual([open]);
  });

  it("pages stably: orders created during the walk never repeat or skip one that existed when it began", async () => {
    const me = await freshClient();
    const existing: string[] = [];
    for (let n = 0; n < 5; n += 1) existing.push(await placeOrder(me.key, `walk-${n}`));
    const seen: string[] = [];
    let after: string | null = null;
    let page = 0;
    do {
      const data: { orders: { id: string }[]; next: string | null } = expectOk(await list(`/orders?limit=2${after ? `&after=${after}` : ""}`, me.key));
      seen.push(...data.orders.map((order) => order.id));
      after = data.next;
      // Another order arrives between every two pages.
      await placeOrder(me.key, `walk-new-${page}`);
      page += 1;
    } while (after !== null);
    expect(seen).toEqual([...existing].reverse());
  });

  it("refuses a bad limit, cursor or period with 400 and needs an API key", async () => {
    const me = await freshClient();
    for (const query of ["limit=0", "limit=101", "after=nope", "state=lost", "createdFrom=5&createdTo=4", "createdFrom=x"]) {
      const refused = await list(`/orders?${query}`, me.key);
      expectError(refused, 400, "Invalid path or query parameters", "invalid_parameters");
      await expectConforms("GET", "/orders", refused);
    }
    expect((await call("GET", "/orders", { key: null })).status).toBe(403);
  });
});

describe("GET /order/get?reference=", () => {
  it("answers the caller's own order by its reference; another client's reference is the 404 of an unknown one", async () => {
    const me = await freshClient();
    const other = await freshClient();
    const id = await placeOrder(me.key, "by-ref-1");
    expect(expectOk(await call("GET", "/order/get?reference=by-ref-1", { key: me.key }))).toEqual(expectOk(await call("GET", `/order/get?orderId=${id}`, { key: me.key })));
    const theirs = await call("GET", "/order/get?reference=by-ref-1", { key: other.key });
    const unknown = await call("GET", "/order/get?reference=never-made", { key: me.key });
    expectError(theirs, 404, "Not Found", "order_not_found");
    expect(theirs.body).toEqual(unknown.body);
    expectError(await call("GET", "/order/get", { key: me.key }), 400, "Query has no valid orderId", "invalid_order_query");
  });
});

describe("GET /admin/orders, its export and the lookup by reference", () => {
  it("lists every client's orders with clientId and sku filters, and the export has exactly the list's rows", async () => {
    const a = await freshClient();
    const b = await freshClient();
    const a1 = await placeOrder(a.key, "=HYPERLINK(\"http://evil\")", { confirm: true });
    const b1 = await placeOrder(b.key, "b-1", { sku: "DEMO-US-FAILING", quote: 3 });
    const byClientAnswer = await admin("GET", `/admin/orders?clientId=${a.id}`);
    await expectConforms("GET", "/admin/orders", byClientAnswer);
    const byClient = expectOk(byClientAnswer);
    expect(byClient.orders.map((order: { id: string }) => order.id)).toEqual([a1]);
    expect(byClient.orders[0]).toMatchObject({ clientId: a.id, state: "successful", charged: 5, refunded: 0 });
    const bySku = expectOk(await admin("GET", "/admin/orders?sku=DEMO-US-FAILING&limit=100"));
    expect(bySku.orders.map((order: { id: string }) => order.id)).toContain(b1);
    expect(bySku.orders.every((order: { skus: string[] }) => order.skus.includes("DEMO-US-FAILING"))).toBe(true);

    const exported = await admin("GET", "/admin/orders/export?sku=DEMO-US-FAILING");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/^text\/csv/);
    const { orders: all } = expectOk(await admin("GET", "/admin/orders?sku=DEMO-US-FAILING&limit=100"));
    const lines = String(exported.body).trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,clientId,reference,state,wallet,total,charged,refunded,createdAt,modifiedAt,expiresAt,skus");
    expect(lines.slice(1).map((text) => text.split(",")[0])).toEqual(all.map((order: { id: string }) => order.id));

    // A reference that a spreadsheet would run is shown as text.
    const mine = String((await admin("GET", `/admin/orders/export?clientId=${a.id}`)).body).trimEnd().split("\r\n");
    expect(mine[1]).toContain(`,"'=HYPERLINK(""http://evil"")",`);
  });

  it("refuses a reference prefix without clientId, and the operator token is required", async () => {
    expectError(await admin("GET", "/admin/orders?reference=po-"), 400, "Invalid path or query parameters", "invalid_parameters");
    expect((await admin("GET", "/admin/orders", undefined, { token: null })).status).toBe(403);
    expect((await admin("GET", "/admin/orders/export", undefined, { token: null })).status).toBe(403);
    expect((await admin("GET", "/admin/reconciliation?createdFrom=0&createdTo=1", undefined, { token: null })).status).toBe(403);
    expect((await admin("POST", "/admin/orders/index/backfill", undefined, { token: null })).status).toBe(403);
    // A client's API key is not the operator's token.
    const me = await freshClient();
    expect((await call("GET", "/admin/orders", { key: me.key })).status).toBe(403);
  });

  it("still finds a client's order by its reference", async () => {
    const me = await freshClient();
    const id = await placeOrder(me.key, "lookup-1");
    expect(expectOk(await admin("GET", `/admin/orders/by-reference?clientId=${me.id}&reference=lookup-1`)).record.id).toBe(id);
  });
});

describe("reconciliation and backfill", () => {
  it("reports 0 mismatches for orders that moved money as their index says, and each row that does not match", async () => {
    const me = await freshClient();
    const from = Date.now();
    const good = await placeOrder(me.key, uid("rec"), { confirm: true });
    const partial = await placeOrder(me.key, uid("rec"), { confirm: true, sku: "DEMO-US-FAILING", quote: 2 });
    const later = Date.now() + RECONCILE_GRACE_MS + 1;
    const clean = await reconcile(env, from, Date.now(), later);
    expect(clean.mismatches.filter((m) => m.clientId === me.id)).toEqual([]);
    expect(clean.checked.indexedOrders).toBeGreaterThanOrEqual(2);
    // The index is made to disagree with the ledger: both checks report the order.
    await env.DB.prepare(`UPDATE order_index SET charged = '0' WHERE id = ?1`).bind(good).run();
    const found = (await reconcile(env, from, Date.now(), later)).mismatches.filter((m) => m.orderId === good);
    expect(found.map((m) => m.check).sort()).toEqual(["index_matches_ledger", "ledger_matches_index"]);
    expect(found[0]!.lookAt).toContain(good);
    expect(partial).toBeTruthy();
    const reconciled = await admin("GET", `/admin/reconciliation?createdFrom=${from}&createdTo=${Date.now()}`);
    await expectConforms("GET", "/admin/reconciliation", reconciled);
    const answer = expectOk(reconciled);
    expect(answer).toMatchObject({ createdFrom: from, checked: expect.any(Object), mismatches: expect.any(Array) });
    // By default the last 5 minutes are left to a later run; grace=0 checks them too.
    expect(answer.mismatches.filter((m: { orderId: string }) => m.orderId === good)).toEqual([]);
    const now = expectOk(await admin("GET", `/admin/reconciliation?createdFrom=${from}&createdTo=${Date.now()}&grace=0`));
    expect(now.mismatches.filter((m: { orderId: string }) => m.orderId === good).map((m: { check: string }) => m.check).sort()).toEqual(["index_matches_ledger", "ledger_matches_index"]);
    expectError(await admin("GET", "/admin/reconciliation?createdFrom=5&createdTo=4"), 400, "Invalid path or query parameters", "invalid_parameters");
  });

  it("the backfill writes, from the ledgers, the orders the index lacks, and never overwrites a row an order wrote", async () => {
    const me = await freshClient();
    const id = await placeOrder(me.key, uid("old"), { confirm: true });
    const keep = await placeOrder(me.key, uid("kept"), { confirm: true });
    // As if the first order had been made before the index existed.
    await env.DB.prepare(`DELETE FROM order_index WHERE id = ?1`).bind(id).run();
    const before = await env.DB.prepare(`SELECT version FROM order_index WHERE id = ?1`).bind(keep).first<{ version: number }>();
    const result = expectOk(await admin("POST", "/admin/orders/index/backfill"));
    expect(result.written).toBeGreaterThanOrEqual(1);
    expect(await env.DB.prepare(`SELECT state, version FROM order_index WHERE id = ?1`).bind(id).first()).toEqual({ state: "successful", version: 0 });
    expect(await env.DB.prepare(`SELECT version FROM order_index WHERE id = ?1`).bind(keep).first()).toEqual(before);
    // Run again: nothing left to write.
    expect(expectOk(await admin("POST", "/admin/orders/index/backfill")).written).toBe(0);
  });

  it("the hourly cron reconciles the last day and logs each mismatch as one structured line; the 5-minute cron does not", async () => {
    const now = Date.now();
    const settled = now - 2 * 60 * 60_000;
    const orderId = `ord_${"9".repeat(64)}`;
    // An order the index says was charged, with no ledger line anywhere.
    await writeIndexRow(env.DB, { id: orderId, clientId: "cron-client", reference: "cron-1", state: "successful", wallet: "USD", total: "5", charged: "5", refunded: "0", skus: ["DEMO-US-RANGE"], createdAt: settled, modifiedAt: settled, expiresAt: settled + 600_000, version: 1 });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await worker.scheduled!(createScheduledController({ scheduledTime: now, cron: "*/5 * * * *" }), env);
      expect(errors.mock.calls.some(([line]) => String(line).includes("reconciliation mismatch"))).toBe(false);
      await worker.scheduled!(createScheduledController({ scheduledTime: now, cron: "0 * * * *" }), env);
      const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>).filter((line) => line.message === "reconciliation mismatch");
      expect(lines).toEqual([expect.objectContaining({ level: "error", step: "reconciliation", check: "index_matches_ledger", orderId, clientId: "cron-client", lookAt: expect.stringContaining(orderId) })]);
    } finally {
      errors.mockRestore();
      await env.DB.prepare(`DELETE FROM order_index WHERE id = ?1`).bind(orderId).run();
    }
  });
});
