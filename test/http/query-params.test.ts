import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { call, createOrder, line, seedDemo, topUp } from "../helpers";

// README: "Missing `orderId` (or given twice) → 400 `Query has no valid orderId`", and operator queries
// refuse a repeated parameter. itty-router folds a repeated parameter whose first value is empty into the
// second value instead of an array, so `?orderId=&orderId=ord_…` answered 200 with the order.
describe("a query parameter given twice is refused, whatever its first value", () => {
  let orderId: string;
  beforeAll(async () => {
    await seedDemo();
    await topUp("demo", "USD", "100");
    const created = await createOrder({ productList: [line("DEMO-US-RANGE", 10)], reference: "query-twice" });
    expect(created.status).toBe(200);
    orderId = created.body.data.id;
  });

  it("GET /order/get?orderId=&orderId=<id> is 400 invalid_order_query", async () => {
    const response = await call("GET", `/order/get?orderId=&orderId=${orderId}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_order_query", message: "Query has no valid orderId" });
  });

  it("GET /order/get?orderId=<id>&orderId= is 400 too (as before)", async () => {
    const response = await call("GET", `/order/get?orderId=${orderId}&orderId=`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_order_query");
  });

  it("an operator query with a repeated parameter is 400 invalid_parameters", async () => {
    const response = await admin("GET", "/admin/orders?clientId=&clientId=demo&reference=query-twice");
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("invalid_parameters");
  });

  it("a single parameter still works", async () => {
    const response = await call("GET", `/order/get?orderId=${orderId}`);
    expect(response.status).toBe(200);
  });
});
