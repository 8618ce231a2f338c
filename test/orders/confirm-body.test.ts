import { beforeAll, describe, expect, it } from "vitest";
import { call, seedDemo } from "../helpers";

// docs/api.md (PUT /order/confirm) and docs/errors.md: confirm answers 400 "Body has no valid orderId" when the body lacks a valid orderId. A body
// that is empty or not JSON lacks one too, so it gets that message rather than the generic malformed_json.
describe("confirm with no JSON body", () => {
  it("an oversized body is still 413", async () => {
    const response = await call("PUT", "/order/confirm", { rawBody: JSON.stringify({ orderId: "x".repeat(70_000) }) });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("payload_too_large");
  });

  beforeAll(seedDemo);

  it("an empty body is 400 Body has no valid orderId", async () => {
    const response = await call("PUT", "/order/confirm", { rawBody: "" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ message: "Body has no valid orderId", code: "invalid_order_id" });
  });

  it("a body that is not JSON is 400 Body has no valid orderId", async () => {
    const response = await call("PUT", "/order/confirm", { rawBody: "orderId=ord_1" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ message: "Body has no valid orderId", code: "invalid_order_id" });
  });
});
