import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { handleRequest } from "../../src/app";
import { addClient, BASE, countingEnv, seedDemo } from "../helpers";

async function send(on: Env, key: string, address: string): Promise<number> {
  const request = new Request(`${BASE}/order/get?orderId=ord_none`, {
    headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": address },
  });
  const exec = createExecutionContext();
  const response = await handleRequest(request, on, exec);
  await waitOnExecutionContext(exec);
  await response.arrayBuffer();
  return response.status;
}

describe("the isolate's key cache", () => {
  beforeAll(seedDemo);

  it("keeps a known key through 10,001 distinct unknown keys: its next request reads nothing from D1", async () => {
    const key = await addClient("steady");
    // A known key stays cached for an hour here, so that the test does not depend on how fast it runs.
    const counted = countingEnv({ API_KEY_CACHE_SECONDS: "3600" });
    expect(await send(counted.env, key, "192.0.2.1")).toBe(404);
    expect(counted.statements()).toBe(1);
    // Each made-up key from its own address, so that no limit stops them: they all reach the lookup.
    for (let batch = 0; batch < 101; batch += 1) {
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          send(counted.env, `sk_stranger_${batch}_${index}`, `10.${batch}.${index}.1`),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([403]));
    }
    const reads = counted.statements();
    expect(await send(counted.env, key, "192.0.2.1")).toBe(404);
    expect(counted.statements()).toBe(reads);
  }, 400_000);
});
