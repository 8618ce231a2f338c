/**
 * PUT /order/confirm and GET /order/get (docs/api.md, docs/errors.md), ownership, and the HTTP conventions of
 * docs/api.md that hold on every route: 403, 404, 405, X-Request-Id, error body shape.
 */
import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  balanceOf,
  call,
  confirmOrder,
  createOrder,
  getOrder,
  ledgerSumOf,
  line,
  orderStub,
  seedDemo,
  topUp,
  wallet,
} from "../helpers";
import { MESSAGES, expectError, expectOk, freshClient, ledgerOf, storedOrder, uid } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await topUp("demo", "USD", "100000");
});

async function createdOrder(
  key?: string,
  productList = [line("DEMO-US-RANGE", 12.34, 2)],
): Promise<{ id: string; total: number }> {
  const data = expectOk(await createOrder({ productList }, key));
  return { id: data.id, total: data.invoice.total };
}

describe("confirm", () => {
  it("200 {message, data: {id, state: confirmed}}; the wallet is debited exactly the invoice total, once", async () => {
    const client = await freshClient({ USD: "100" });
    const order = await createdOrder(client.key);
    expect(order.total).toBe(24.68);
    expect(await balanceOf(client.id, "USD")).toBe("100");
    const res = await confirmOrder(order.id, client.key);
    expect(expectOk(res)).toEqual({ id: order.id, state: "confirmed" });
    expect(Object.keys(res.body).sort()).toEqual(["data", "message"]);
    expect(await balanceOf(client.id, "USD")).toBe("75.32");
    const entries = await ledgerOf(client.id, "USD");
    const charges = entries.filter((entry) => entry.kind === "order_charge");
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ amount: "-24.68", orderId: order.id, balanceAfter: "75.32" });
    expect(await ledgerSumOf(client.id, "USD")).toBe("75.32");
  });

  it("get after confirm shows the order past created (confirmed, or already being fulfilled), invoice paid", async () => {
    const order = await createdOrder();
    const before = expectOk(await getOrder(order.id));
    expect(before.state).toBe("created");
    expect(before.invoice.status).toBe("unpaid");
    expectOk(await confirmOrder(order.id));
    const after = expectOk(await getOrder(order.id));
    // Processing starts right after confirmation; a sandbox SKU that succeeds keeps the invoice paid.
    expect(["confirmed", "processing", "successful"]).toContain(after.state);
    expect(after.invoice.status).toBe("paid");
    expect(after.createdDate).toEqual(before.createdDate);
    const ms = (t: { _seconds: number; _nanoseconds: number }) => t._seconds * 1000 + t._nanoseconds / 1e6;
    expect(ms(after.modifiedDate)).toBeGreaterThanOrEqual(ms(after.createdDate));
  });

  it("a repeated confirm → 409 Order already confirmed, and no second charge", async () => {
    const client = await freshClient({ USD: "100" });
    const order = await createdOrder(client.key);
    expectOk(await confirmOrder(order.id, client.key));
    const balance = await balanceOf(client.id, "USD");
    const again = await confirmOrder(order.id, client.key);
    expectError(again, 409, MESSAGES.alreadyConfirmed, "order_already_confirmed");
    expectError(await confirmOrder(order.id, client.key), 409, MESSAGES.alreadyConfirmed);
    expect(await balanceOf(client.id, "USD")).toBe(balance);
    expect((await ledgerOf(client.id, "USD")).filter((entry) => entry.kind === "order_charge")).toHaveLength(1);
  });

  it("insufficient funds at confirm → 400 contract message; the order stays created; after a top-up it confirms", async () => {
    const client = await freshClient({ USD: "30" });
    const order = await createdOrder(client.key); // 24.68
    // Another charge takes the wallet down to 5.
    const drained = await wallet(client.id, "USD").post({ key: uid("drain"), kind: "order_charge", amount: "25" });
    expect(drained.ok).toBe(true);
    const res = await confirmOrder(order.id, client.key);
    expectError(res, 400, MESSAGES.insufficient, "insufficient_funds");
    expect(await balanceOf(client.id, "USD")).toBe("5");
    expect(expectOk(await getOrder(order.id, client.key)).state).toBe("created");
    expect((await storedOrder(order.id)).invoiceStatus).toBe("unpaid");
    // one cent short is still short
    await topUp(client.id, "USD", "19.67");
    expectError(await confirmOrder(order.id, client.key), 400, MESSAGES.insufficient);
    await topUp(client.id, "USD", "0.01");
    expect(expectOk(await confirmOrder(order.id, client.key))).toEqual({ id: order.id, state: "confirmed" });
    expect(await balanceOf(client.id, "USD")).toBe("0");
    expect(await ledgerSumOf(client.id, "USD")).toBe("0");
  });

  it("a wallet that refuses the charge for another reason than funds → 500 Server error; try again later, order stays created", async () => {
    const client = await freshClient({ USD: "100" });
    const order = await createdOrder(client.key);
    // Something already sits under the order's charge key with another amount: the wallet answers idempotency_conflict.
    const { chargeKey } = await import("../../src/wallets/ledger-keys");
    expect(
      (await wallet(client.id, "USD").post({ key: chargeKey(order.id), kind: "order_charge", amount: "1" })).ok,
    ).toBe(true);
    expectError(await confirmOrder(order.id, client.key), 500, "Server error; try again later", "server_error");
    expect(expectOk(await getOrder(order.id, client.key)).state).toBe("created");
    expect(await balanceOf(client.id, "USD")).toBe("99");
  });

  it("the order survives the eviction of its object (state is stored, not only cached)", async () => {
    const client = await freshClient({ USD: "100" });
    const order = await createdOrder(client.key);
    const view = expectOk(await getOrder(order.id, client.key));
    await evictDurableObject(orderStub(order.id));
    expect(expectOk(await getOrder(order.id, client.key))).toEqual(view);
    expectOk(await confirmOrder(order.id, client.key));
    await evictDurableObject(orderStub(order.id)).catch(() => undefined);
    expectError(await confirmOrder(order.id, client.key), 409, MESSAGES.alreadyConfirmed);
    expect(await balanceOf(client.id, "USD")).toBe("75.32");
  });

  it.each([
    ["an empty object", {}],
    ["orderId a number", { orderId: 123 }],
    ["orderId null", { orderId: null }],
    ["orderId empty", { orderId: "" }],
    ["orderId an array", { orderId: ["ord_x"] }],
    ["a JSON array", [{ orderId: "x" }]],
    ["JSON null", null],
  ])("body %s → 400 Body has no valid orderId", async (_name, body) => {
    expectError(await call("PUT", "/order/confirm", { body }), 400, MESSAGES.noOrderId, "invalid_order_id");
  });

  it("a body that is not JSON → 400 (never 500)", async () => {
    const res = await call("PUT", "/order/confirm", { rawBody: "orderId=ord_1" });
    expect(res.status).toBe(400);
    expectError(res, 400, res.body.message);
  });

  it("an oversized confirm body → 413", async () => {
    const res = await call("PUT", "/order/confirm", { body: { orderId: "x", pad: "x".repeat(70_000) } });
    expectError(res, 413, "Request body is too large", "payload_too_large");
  });

  it.each([
    ["a random string", "nope"],
    ["ord_ + 64 zero hex", `ord_${"0".repeat(64)}`],
    ["ord_ + 64 random hex not made by the namespace", `ord_${"ab".repeat(32)}`],
    ["an id without the ord_ prefix", "0".repeat(64)],
    ["upper-case hex", `ord_${"AB".repeat(32)}`],
  ])("unknown id (%s) → 404 Not Found", async (_name, orderId) => {
    expectError(await confirmOrder(orderId), 404, MESSAGES.notFound, "order_not_found");
    expectError(await getOrder(orderId), 404, MESSAGES.notFound, "order_not_found");
  });

  it("a well-formed id of an object that holds no order → 404, on confirm and get", async () => {
    const orderId = `ord_${env.ORDERS.newUniqueId().toString()}`;
    expectError(await confirmOrder(orderId), 404, MESSAGES.notFound);
    expectError(await getOrder(orderId), 404, MESSAGES.notFound);
  });

  it("the id of an order without the prefix → 404 (ids are opaque, exactly as returned)", async () => {
    const order = await createdOrder();
    expectError(await getOrder(order.id.replace(/^ord_/, "")), 404, MESSAGES.notFound);
    expectError(await confirmOrder(order.id.replace(/^ord_/, "")), 404, MESSAGES.notFound);
  });
});

describe("ownership: another client's order is 404", () => {
  it("get and confirm by another client → 404; nothing is charged; the owner can still confirm", async () => {
    const owner = await freshClient({ USD: "100" });
    const stranger = await freshClient({ USD: "100" });
    const order = await createdOrder(owner.key);
    expectError(await getOrder(order.id, stranger.key), 404, MESSAGES.notFound, "order_not_found");
    expectError(await confirmOrder(order.id, stranger.key), 404, MESSAGES.notFound, "order_not_found");
    expect(await balanceOf(owner.id, "USD")).toBe("100");
    expect(await balanceOf(stranger.id, "USD")).toBe("100");
    expect(expectOk(await getOrder(order.id, owner.key)).state).toBe("created");
    expectOk(await confirmOrder(order.id, owner.key));
    // and once confirmed, still 404 to the stranger (not 409)
    expectError(await confirmOrder(order.id, stranger.key), 404, MESSAGES.notFound);
    expectError(await getOrder(order.id, stranger.key), 404, MESSAGES.notFound);
  });

  it("the same reference used by two clients makes two independent orders", async () => {
    const a = await freshClient({ USD: "100" });
    const b = await freshClient({ USD: "100" });
    const reference = uid("shared-ref");
    const ra = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference }, a.key));
    const rb = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 20, 1)], reference }, b.key));
    expect(ra.id).not.toBe(rb.id);
    expect(expectOk(await getOrder(ra.id, a.key)).reference).toBe(reference);
    expect(expectOk(await getOrder(rb.id, b.key)).invoice.total).toBe(20);
  });
});

describe("get", () => {
  it("200 {message, data: Order} with uid, state, reference", async () => {
    const reference = uid("ref-get");
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10, 1)], reference }));
    const res = await getOrder(created.id);
    const data = expectOk(res);
    expect(Object.keys(res.body).sort()).toEqual(["data", "message"]);
    expect(data.uid).toBe(created.id);
    expect(data.state).toBe("created");
    expect(data.reference).toBe(reference);
    expect(data.redeem).toEqual({});
  });

  it.each([
    ["no query", "/order/get"],
    ["empty orderId", "/order/get?orderId="],
    ["another parameter only", "/order/get?id=ord_x"],
    ["orderId twice", "/order/get?orderId=a&orderId=b"],
  ])("%s → 400", async (_name, path) => {
    const res = await call("GET", path);
    expectError(res, 400, "Query has no valid orderId", "invalid_order_query");
  });
});

describe("authentication on every client route → 403", () => {
  const routes: [string, string, unknown][] = [
    ["POST", "/order/create", { productList: [line("DEMO-US-RANGE", 10, 1)], wallet: "USD", reference: "r" }],
    ["PUT", "/order/confirm", { orderId: "ord_x" }],
    ["GET", "/order/get?orderId=ord_x", undefined],
  ];
  for (const [method, path, body] of routes) {
    it(`${method} ${path}: missing key, unknown key, wrong scheme → 403 with the contract message`, async () => {
      expectError(await call(method, path, { key: null, body }), 403, MESSAGES.auth, "unauthenticated");
      expectError(await call(method, path, { key: "sk_test_unknown", body }), 403, MESSAGES.auth, "unauthenticated");
      expectError(
        await call(method, path, { key: null, body, headers: { authorization: "Token sk_test_demo" } }),
        403,
        MESSAGES.auth,
      );
    });
  }

  it("a real order id with a wrong key is 403, not 404 and not the order", async () => {
    const order = await createdOrder();
    const res = await getOrder(order.id, "sk_test_wrong");
    expectError(res, 403, MESSAGES.auth);
    expect(JSON.stringify(res.body)).not.toContain(order.id);
    expectError(await confirmOrder(order.id, null), 403, MESSAGES.auth);
    expect(expectOk(await getOrder(order.id)).state).toBe("created");
  });
});

describe("routing: 404 unknown route, 405 wrong method", () => {
  it.each([
    ["GET", "/"],
    ["GET", "/order"],
    ["POST", "/order/cancel"],
    ["GET", "/order/get/extra"],
    ["POST", "/orders/create"],
  ])("%s %s → 404 Not Found", async (method, path) => {
    expectError(
      await call(method, path, { body: method === "GET" ? undefined : {} }),
      404,
      MESSAGES.notFound,
      "route_not_found",
    );
    expectError(
      await call(method, path, { key: null, body: method === "GET" ? undefined : {} }),
      404,
      MESSAGES.notFound,
    );
  });

  it.each([
    ["GET", "/order/create", "POST"],
    ["PUT", "/order/create", "POST"],
    ["DELETE", "/order/confirm", "PUT"],
    ["POST", "/order/confirm", "PUT"],
    ["POST", "/order/get", "GET"],
    ["PATCH", "/order/get", "GET"],
  ])("%s %s → 405 with Allow listing %s", async (method, path, allowed) => {
    const res = await call(method, path, { body: method === "GET" || method === "DELETE" ? undefined : {} });
    expectError(res, 405, "Method Not Allowed", "method_not_allowed");
    const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim());
    expect(allow).toContain(allowed);
    expect(allow).not.toContain(method);
  });

  it("a 405 never advertises a method that itself answers 405 (Allow on /order/get vs HEAD)", async () => {
    const post = await call("POST", "/order/get", { body: {} });
    const allow = (post.headers.get("allow") ?? "")
      .split(",")
      .map((m) => m.trim())
      .filter(Boolean);
    for (const method of allow) {
      const res = await call(method, `/order/get?orderId=${encodeURIComponent("nope")}`);
      expect(res.status, `${method} is listed in Allow but answers ${res.status}`).not.toBe(405);
    }
  });
});

describe("X-Request-Id on every response", () => {
  it("is present on 200, 400, 403, 404, 405, 409, 413 and unique per request", async () => {
    const order = await createdOrder();
    const responses = await Promise.all([
      getOrder(order.id),
      call("POST", "/order/create", { rawBody: "{" }),
      call("GET", "/order/get?orderId=x", { key: null }),
      call("GET", "/nowhere"),
      call("DELETE", "/order/create"),
      call("PUT", "/order/confirm", { body: { orderId: "x", pad: "y".repeat(70_000) } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 400, 403, 404, 405, 413]);
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(/^[\w.:-]{1,128}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes a well-formed X-Request-Id given by the client, replaces a malformed one", async () => {
    const given = await call("GET", "/order/get?orderId=x", { headers: { "x-request-id": "client-abc.123" } });
    expect(given.headers.get("x-request-id")).toBe("client-abc.123");
    const bad = await call("GET", "/order/get?orderId=x", { headers: { "x-request-id": "has spaces and <tags>" } });
    expect(bad.headers.get("x-request-id")).not.toBe("has spaces and <tags>");
    expect(bad.headers.get("x-request-id")).toBeTruthy();
  });
});
