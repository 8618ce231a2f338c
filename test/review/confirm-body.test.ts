import { beforeAll, describe, expect, it } from "vitest";
import { call, seedDemo } from "../helpers";

// Spec §4.2/§7: confirm answers 400 "Body has no valid orderId" when the body lacks a valid orderId. A body
// that is empty or not JSON lacks one too, but confirm reads it with readJson first and answers the generic
// 400 malformed_json "Request body is not valid JSON", a message the spec's confirm table does not have.
// The fix belongs in src/orders/order-routes.ts (confirmOrder: map a malformed body to invalid_order_id),
// which this review may not edit; expected to fail until then.
describe("confirm with no JSON body", () => {
  beforeAll(seedDemo);

  it.fails("an empty body is 400 Body has no valid orderId", async () => {
    const response = await call("PUT", "/order/confirm", { rawBody: "" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ message: "Body has no valid orderId", code: "invalid_order_id" });
  });

  it.fails("a body that is not JSON is 400 Body has no valid orderId", async () => {
    const response = await call("PUT", "/order/confirm", { rawBody: "orderId=ord_1" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ message: "Body has no valid orderId", code: "invalid_order_id" });
  });
});
