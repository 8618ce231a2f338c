import { beforeAll, describe, expect, it } from "vitest";
import { admin } from "../admin-helpers";
import { addClient, call, seedDemo } from "../helpers";

// This project runs the Worker with RATE_LIMITER at 5 requests per 10 s per key (vitest.config.ts).
describe("a key's IP allow-list and its rate limit", () => {
  beforeAll(seedDemo);

  it("refuses requests from outside the list before counting them: a leaked key cannot spend the budget", async () => {
    await addClient("listed");
    const issued = await admin("POST", "/admin/clients/listed/keys", { allowedIps: ["198.51.100.0/24"] });
    const key = issued.body.data.apiKey as string;
    // The limiter counts in fixed 10 s windows; start well inside one so that every request shares it.
    if (Date.now() % 10_000 > 6_000)
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    for (let request = 0; request < 8; request += 1) {
      const outside = await call("GET", "/order/get?orderId=ord_none", {
        key,
        headers: { "cf-connecting-ip": "203.0.113.9" },
      });
      expect([outside.status, outside.body.code]).toEqual([403, "ip_not_allowed"]);
    }
    const inside = { key, headers: { "cf-connecting-ip": "198.51.100.9" } };
    expect((await call("GET", "/order/get?orderId=ord_none", inside)).status).toBe(404);
  });
});
