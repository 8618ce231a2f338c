import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { handleRequest } from "../../src/app";
import { forgetLiveOperatorTokens } from "../../src/http/admin-auth";
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

async function sendAdmin(on: Env, token: string, address: string): Promise<Response> {
  const request = new Request(`${BASE}/admin/operators`, {
    headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": address },
  });
  const exec = createExecutionContext();
  const response = await handleRequest(request, on, exec);
  await waitOnExecutionContext(exec);
  return response;
}

describe("made-up operator tokens are limited by address before D1 is read", () => {
  it("in console sign-in too: 429 once an address has tried 100 tokens, without reading D1", async () => {
    const signIn = async (on: Env, token: string) => {
      const exec = createExecutionContext();
      const response = await handleRequest(
        new Request(`${BASE}/console/sign-in`, {
          method: "POST",
          headers: {
            origin: BASE,
            "content-type": "application/x-www-form-urlencoded",
            "cf-connecting-ip": "203.0.113.120",
          },
          body: new URLSearchParams({ token }).toString(),
        }),
        on,
        exec,
      );
      await waitOnExecutionContext(exec);
      return response;
    };
    if (Date.now() % 10_000 > 5_000)
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    const counted = countingEnv();
    for (let attempt = 0; attempt < 100; attempt += 1)
      expect((await signIn(counted.env, `opt_${attempt.toString(16).padStart(64, "0")}`)).status).toBe(401);
    const reads = counted.statements();
    const limited = await signIn(counted.env, `opt_${"f".repeat(64)}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(await limited.text()).toContain("Too many sign-in tries from this address");
    expect(counted.statements()).toBe(reads);
  });

  const madeUp = (n: number) => `opt_${n.toString(16).padStart(64, "0")}`;

  it("answers 429 once an address has made 100 lookups of tokens not seen live; a live token still passes", async () => {
    forgetLiveOperatorTokens();
    const created = await sendAdminPost("Olga Flooded", "viewer");
    // All below in one 10 s window of the limiter.
    if (Date.now() % 10_000 > 5_000)
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (Date.now() % 10_000) + 50));
    // Seen live before the flood (this first lookup is counted), then not counted again.
    expect((await sendAdmin(env, created, "203.0.113.90")).status).toBe(200);
    const counted = countingEnv();
    // 99 more lookups fill the address's 100.
    for (let attempt = 0; attempt < 99; attempt += 1)
      expect((await sendAdmin(counted.env, madeUp(attempt), "203.0.113.90")).status).toBe(403);
    const reads = counted.statements();
    const limited = await sendAdmin(counted.env, madeUp(100), "203.0.113.90");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(await limited.json()).toEqual({ message: "Too many requests", code: "rate_limited" });
    expect(counted.statements()).toBe(reads);
    expect((await sendAdmin(counted.env, created, "203.0.113.90")).status).toBe(200);
    // Another address has its own budget.
    expect((await sendAdmin(counted.env, madeUp(101), "203.0.113.91")).status).toBe(403);
  });
});

/** Creates an operator with the break-glass token; answers its token. */
async function sendAdminPost(name: string, role: string): Promise<string> {
  const request = new Request(`${BASE}/admin/operators`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name, role }),
  });
  const exec = createExecutionContext();
  const response = await handleRequest(request, env, exec);
  await waitOnExecutionContext(exec);
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { token: string } }).data.token;
}
