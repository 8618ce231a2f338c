/**
 * `redeem` is filled only when the order is `successful` or `partial`: while it is `processing`, codes a
 * line already received stay out of the client's view, so no client acts on a half-delivered order.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { confirmOrder, createOrder, getOrder, line, orderStub, seedDemo } from "../helpers";
import { addProduct, freshClient, storedOrder } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
  await addProduct({
    sku: "RV-UPSTREAM",
    productType: "range",
    currency: "USD",
    min: "1",
    max: "100",
    supplier: "upstream",
  });
});

afterEach(() => vi.restoreAllMocks());

describe("redeem while processing", () => {
  it("is empty while a line waits for its supplier, and filled once the order is successful", async () => {
    let upstreamUp = false;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input as RequestInfo, init);
      expect(new URL(request.url).hostname).toBe("127.0.0.1");
      if (!upstreamUp) return new Response("busy", { status: 503 });
      const { quantity } = (await request.json()) as { quantity: number };
      return Response.json({
        codes: Array.from({ length: quantity }, (_, i) => ({
          pin: `RV-${i}`,
          link: `https://codes.example.com/rv/${i}`,
        })),
      });
    });
    const client = await freshClient({ USD: "100" });
    const created = await createOrder(
      { productList: [line("DEMO-US-RANGE", 5, 1), line("RV-UPSTREAM", 7, 1)] },
      client.key,
    );
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    expect((await confirmOrder(id, client.key)).status).toBe(200);
    // The sandbox line is fulfilled, the upstream line waits for a retry: the order is processing.
    await vi.waitFor(async () => {
      const stored = await storedOrder(id);
      expect(stored.state).toBe("processing");
      expect(stored.lines.find((l) => l.sku === "DEMO-US-RANGE")?.redeem?.pins).toHaveLength(1);
    });
    const during = await getOrder(id, client.key);
    expect(during.body.data.state).toBe("processing");
    expect(during.body.data.redeem).toEqual({});
    upstreamUp = true;
    for (let run = 0; run < 5 && (await storedOrder(id)).state === "processing"; run += 1)
      await runDurableObjectAlarm(orderStub(id));
    const after = await getOrder(id, client.key);
    expect(after.body.data.state).toBe("successful");
    expect(Object.keys(after.body.data.redeem).sort()).toEqual(["DEMO-US-RANGE", "RV-UPSTREAM"]);
    expect(after.body.data.redeem["RV-UPSTREAM"].redeemPin).toEqual(["RV-0"]);
  });
});
