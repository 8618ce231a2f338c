/**
 * A client's invalid request is explained in English from the Worker's first request on. The client's
 * routes read their requests without zod and load its schemas only for a request they do not accept
 * plainly; zod/mini, which those schemas use, loads no messages, and zod classic (which sets English when
 * it loads) comes only with the operator's routes or the document. So src/orders/order-schemas.ts sets them
 * itself. The requests below are the first this file's Worker gets, and nothing before them loads zod
 * (the demo seed is written to D1 directly): without that line their issues would read "Invalid input".
 */
import { describe, expect, it } from "vitest";
import { call, line, seedDemo } from "../helpers";

describe("the first invalid requests of a Worker", () => {
  it("have zod's English messages in details", async () => {
    await seedDemo();
    const create = await call("POST", "/order/create", {
      body: {
        productList: [{ ...line("DEMO-US-RANGE", 10), quantity: "1" }],
        wallet: "USD",
        reference: "r".repeat(257),
      },
    });
    expect(create.status).toBe(400);
    expect(create.body.code).toBe("invalid_request_body");
    expect(create.body.details.issues).toEqual([
      { path: "productList.0.quantity", message: "Invalid input: expected number, received string" },
      { path: "reference", message: "Too big: expected string to have <=256 characters" },
    ]);

    const confirm = await call("PUT", "/order/confirm", { body: { orderId: 42 } });
    expect(confirm.status).toBe(400);
    expect(confirm.body.details.issues).toEqual([
      { path: "orderId", message: "Invalid input: expected string, received number" },
    ]);

    const get = await call("GET", "/order/get?orderId=");
    expect(get.status).toBe(400);
    expect(get.body.details.issues).toEqual([
      { path: "orderId", message: "Too small: expected string to have >=1 characters" },
    ]);
  });
});
