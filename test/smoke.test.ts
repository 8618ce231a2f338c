import { beforeAll, describe, expect, it } from "vitest";
import { createOrder, confirmOrder, getOrder, line, seedDemo, topUp } from "./helpers";

describe("smoke", () => {
  beforeAll(async () => {
    await seedDemo();
    await topUp("demo", "USD", "100000");
  });
  it("creates, confirms and retrieves", async () => {
    const created = await createOrder({ productList: [line("DEMO-EU-FIXED", 10, 2)] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const confirmed = await confirmOrder(created.body.data.id);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const got = await getOrder(created.body.data.id);
    expect(got.status).toBe(200);
    console.log(JSON.stringify(got.body, null, 1).slice(0, 3000));
  });
});
