/**
 * GET /order/get?reference=: the order named by the calling client and its own reference, read from the
 * order object itself, as `orderId` reads it; another client's reference is an unknown one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readReference } from "../../src/orders/requests";
import { GetOrderByReferenceQuery } from "../../src/orders/order-schemas";
import { call, confirmOrder, createOrder, getOrder, line, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { drainTimers, expectError, expectOk, freshClient, MESSAGES, uid } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

const byReference = (reference: string, key?: string | null) =>
  call("GET", `/order/get?reference=${encodeURIComponent(reference)}`, { key });

describe("GET /order/get?reference=", () => {
  it("answers the same order as its orderId, in every state it passes through", async () => {
    const { key } = await freshClient();
    const reference = `po ${uid("ref")} / ünïcode & more`;
    const created = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10)], reference }, key));
    const first = await byReference(reference, key);
    await expectConforms("GET", "/order/get", first);
    expect(first.body).toEqual((await getOrder(created.id, key)).body);
    expect(first.body.data).toMatchObject({ uid: created.id, state: "created", reference });
    expectOk(await confirmOrder(created.id, key));
    await drainTimers(created.id);
    const done = await byReference(reference, key);
    expect(done.body.data.state).toBe("successful");
    expect(done.body).toEqual((await getOrder(created.id, key)).body);
  });

  it("answers another client's reference exactly as an unknown one: 404 order_not_found", async () => {
    const mine = await freshClient();
    const theirs = await freshClient();
    const reference = uid("shared");
    expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10)], reference }, theirs.key));
    const other = await byReference(reference, mine.key);
    const unknown = await byReference(uid("never"), mine.key);
    expectError(other, 404, MESSAGES.notFound, "order_not_found");
    expect(other.body).toEqual(unknown.body);
    expect(JSON.stringify(other.body)).not.toContain(reference);
    expect((await byReference(reference, theirs.key)).status).toBe(200);
  });

  it("reads orderId when both are given, as it always did; neither is the existing 400", async () => {
    const { key } = await freshClient();
    const a = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 10)], reference: uid("a") }, key));
    const b = expectOk(await createOrder({ productList: [line("DEMO-US-RANGE", 20)], reference: uid("b") }, key));
    const both = await call("GET", `/order/get?orderId=${a.id}&reference=${encodeURIComponent(b.id)}`, { key });
    expect(expectOk(both).uid).toBe(a.id);
    const badId = await call("GET", `/order/get?orderId=&reference=x`, { key });
    expectError(badId, 400, "Query has no valid orderId", "invalid_order_query");
    expectError(await call("GET", "/order/get", { key }), 400, "Query has no valid orderId", "invalid_order_query");
  });

  it.each([
    ["empty", "/order/get?reference="],
    ["twice", "/order/get?reference=a&reference=b"],
    ["too long", `/order/get?reference=${"r".repeat(257)}`],
  ])("a reference %s → 400 invalid_order_query naming it", async (_name, path) => {
    const res = await call("GET", path);
    expectError(res, 400, "Query has no valid orderId", "invalid_order_query");
    expect(res.body.details.issues[0].path).toBe("reference");
  });

  it("needs the client's key: 403 without one", async () => {
    expectError(await byReference("po-1", null), 403, MESSAGES.auth, "unauthenticated");
    expectError(await byReference("po-1", "sk_test_unknown"), 403, MESSAGES.auth, "unauthenticated");
  });

  it("readReference accepts exactly the references its schema accepts", () => {
    const values: unknown[] = ["", "a", "r".repeat(256), "r".repeat(257), 1, null, ["a"], {}, "😀".repeat(256)];
    for (const value of values)
      for (const input of [{ reference: value }, { reference: value, orderId: 1 }, value]) {
        const parsed = GetOrderByReferenceQuery.safeParse(input);
        const read = readReference(input);
        expect(read !== null, JSON.stringify(input)).toBe(parsed.success);
        if (read !== null) expect(parsed.data?.reference).toBe(read);
      }
  });
});
