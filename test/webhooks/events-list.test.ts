/**
 * GET /events: the client's events from its books, newest first, with the cursor contract of GET /orders,
 * filtered by type and time; an order's events are there whether or not it named a webhookUrl, and ride
 * with its books write (no request of their own). Another client's events are never in the list.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, line, seedDemo } from "../helpers";
import { expectConforms } from "../openapi/conformance";
import { drainTimers, expectError, freshClient, indexNow, storedOrder } from "../order-helpers";

beforeAll(async () => {
  await seedDemo();
});

async function confirmed(key: string, reference: string, productList = [line("DEMO-US-RANGE", 10)]): Promise<string> {
  const answer = await call("POST", "/order/create", { key, body: { productList, wallet: "USD", reference } });
  const orderId = answer.body.data.id as string;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await drainTimers(orderId);
  await indexNow(orderId);
  return orderId;
}

const list = (key: string, query = "") => call("GET", `/events${query}`, { key });

describe("GET /events", () => {
  it("lists each order's state changes newest first, as the webhook bodies, without a webhookUrl", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const first = await confirmed(key, "ev-1");
    const second = await confirmed(key, "ev-2", [line("DEMO-US-FAILING", 5)]);
    const answer = await list(key);
    await expectConforms("GET", "/events", answer);
    expect(answer.body.message).toBe("Events");
    const events = answer.body.data.events;
    expect(events.map((event: any) => [event.data.orderId, event.type])).toEqual([
      [second, "order.failed"],
      [second, "order.confirmed"],
      [first, "order.successful"],
      [first, "order.confirmed"],
    ]);
    expect(answer.body.data.next).toBeNull();
    const stored = await storedOrder(first);
    expect(events[3]).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: "order.confirmed",
      createdAt: expect.any(Number),
      data: { orderId: first, state: "confirmed", reference: "ev-1" },
      livemode: false,
    });
    expect(events[3].createdAt).toBeGreaterThanOrEqual(stored.createdAt);
  });

  it("keeps an order's events in its books once: a repeated books write stores nothing more", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const orderId = await confirmed(key, "ev-once");
    expect(await indexNow(orderId)).toBe(0);
    const events = (await list(key)).body.data.events;
    expect(events).toHaveLength(2);
  });

  it("pages with limit and after, and filters by type and time", async () => {
    const { key } = await freshClient({ USD: "1000" });
    await confirmed(key, "ev-a");
    await confirmed(key, "ev-b");
    const all = (await list(key)).body.data.events;
    expect(all).toHaveLength(4);
    const first = await list(key, "?limit=3");
    expect(first.body.data.events).toEqual(all.slice(0, 3));
    const second = await list(key, `?limit=3&after=${encodeURIComponent(first.body.data.next)}`);
    expect(second.body.data.events).toEqual(all.slice(3));
    expect(second.body.data.next).toBeNull();
    const confirmedOnly = (await list(key, "?type=order.confirmed")).body.data.events;
    expect(confirmedOnly).toEqual(all.filter((event: any) => event.type === "order.confirmed"));
    const both = (await list(key, "?type=order.confirmed,order.successful")).body.data.events;
    expect(both).toEqual(all);
    const from = all[1].createdAt;
    const windowed = (await list(key, `?createdFrom=${from}&createdTo=${all[0].createdAt}`)).body.data.events;
    expect(windowed).toEqual(all.filter((event: any) => event.createdAt >= from));
  });

  it("refuses an unknown type or cursor with 400, and never shows another client's events", async () => {
    const { key } = await freshClient({ USD: "1000" });
    const other = await freshClient({ USD: "1000" });
    await confirmed(other.key, "ev-other");
    expect((await list(key)).body.data.events).toEqual([]);
    expectError(await list(key, "?type=order.shipped"), 400, "Invalid path or query parameters", "invalid_parameters");
    expectError(
      await list(key, "?type=order.confirmed,nope"),
      400,
      "Invalid path or query parameters",
      "invalid_parameters",
    );
    expectError(await list(key, "?after=garbage"), 400, "Invalid path or query parameters", "invalid_parameters");
  });

  it("registers each day with events once in D1's directory of event days", async () => {
    const { id, key } = await freshClient({ USD: "1000" });
    await confirmed(key, "ev-day-1");
    await confirmed(key, "ev-day-2");
    const { results } = await env.DB.prepare(`SELECT day FROM books_event_days WHERE client_id = ?1`)
      .bind(id)
      .all<{ day: number }>();
    expect(results).toEqual([{ day: Math.floor(Date.now() / 86_400_000) }]);
  });
});
