import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { handleRequest } from "../../src/app";
import { forgetCachedKeys } from "../../src/http/auth";
import { addClient, BASE, countingEnv, seedDemo } from "../helpers";

async function send(on: Env, key: string, address: string): Promise<Response> {
  const request = new Request(`${BASE}/order/get?orderId=ord_none`, {
    headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": address },
  });
  const exec = createExecutionContext();
  const response = await handleRequest(request, on, exec);
  await waitOnExecutionContext(exec);
  return response;
}

// wrangler.toml: UNKNOWN_KEY_LIMITER allows 100 lookups of keys this isolate does not know per 10 s per
// address; this project keeps that limit.
describe("unknown API keys are limited by address before D1 is read", () => {
  beforeAll(seedDemo);

  it("answers 429 with Retry-After once an address has looked up 100 unknown keys, without reading D1", async () => {
    forgetCachedKeys();
    const counted = countingEnv();
    if (Date.now() % 10_000 > 6_000)
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 100; attempt += 1)
      statuses.push((await send(counted.env, `sk_made_up_${attempt}`, "203.0.113.7")).status);
    expect(statuses.every((status) => status === 403)).toBe(true);
    // Each unknown key is asked of the primary (it may be new): the first at once (this isolate has no
    // bookmark of the primary yet), the others after a copy at least as new as the bookmark the first gave.
    const readsBefore = counted.statements();
    expect(readsBefore).toBe(1 + 99 * 2);
    const limited = await send(counted.env, "sk_made_up_100", "203.0.113.7");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(await limited.json()).toEqual({ message: "Too many requests", code: "rate_limited" });
    expect(counted.statements()).toBe(readsBefore);
    // Another address has its own budget.
    expect((await send(counted.env, "sk_made_up_101", "203.0.113.8")).status).toBe(403);
  });

  it("answers a key already known to be unknown from memory, without counting or reading D1", async () => {
    forgetCachedKeys();
    const counted = countingEnv();
    expect((await send(counted.env, "sk_wrong_twice", "198.51.100.1")).status).toBe(403);
    for (let attempt = 0; attempt < 150; attempt += 1)
      expect((await send(counted.env, "sk_wrong_twice", "198.51.100.1")).status).toBe(403);
    // One lookup, on the primary (this isolate has no bookmark of it yet).
    expect(counted.statements()).toBe(1);
  });

  it("never slows a known key: flooded from its own address, it is still answered from the cache", async () => {
    const key = await addClient("flooded");
    const counted = countingEnv();
    expect((await send(counted.env, key, "192.0.2.44")).status).toBe(404);
    for (let attempt = 0; attempt < 120; attempt += 1) await send(counted.env, `sk_flood_${attempt}`, "192.0.2.44");
    const reads = counted.statements();
    expect((await send(counted.env, key, "192.0.2.44")).status).toBe(404);
    expect(counted.statements()).toBe(reads);
  });
});
