import { beforeAll, describe, expect, it } from "vitest";
import { addClient, call, seedDemo } from "../helpers";

// This project runs the Worker with RATE_LIMITER at 5 requests per 10 s per key (vitest.config.ts); the
// deployed limit is 10,000 per 10 s (wrangler.toml).
describe("rate limit per API key", () => {
  beforeAll(seedDemo);

  it("answers 429 with Retry-After once a key has used its requests, and counts each key alone", async () => {
    const busy = await addClient("busy");
    const calm = await addClient("calm");
    // The limiter counts in fixed 10 s windows; start well inside one so that all 8 requests share it.
    if (Date.now() % 10_000 > 7_000)
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | null = null;
    for (let request = 0; request < 8; request += 1) {
      const response = await call("GET", "/order/get?orderId=ord_none", { key: busy });
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429]);
    expect(limited).not.toBeNull();
    expect(limited!.body).toEqual({ message: "Too many requests", code: "rate_limited" });
    expect(limited!.headers.get("retry-after")).toBe("10");
    expect(limited!.headers.get("x-request-id")).toMatch(/^req_/);
    expect((await call("GET", "/order/get?orderId=ord_none", { key: calm })).status).toBe(404);
  });

  it("does not count requests without a valid key against anyone", async () => {
    const key = await addClient("untouched");
    for (let request = 0; request < 6; request += 1)
      expect((await call("GET", "/order/get?orderId=ord_none", { key: "sk_wrong" })).status).toBe(403);
    expect((await call("GET", "/order/get?orderId=ord_none", { key })).status).toBe(404);
  });
});
