/**
 * D1 does not grow with orders (issue 42, docs/books.md "D1 keeps what does not grow with orders"): 200
 * orders of one client in one day, each with a webhook delivered to a receiver on 127.0.0.1 and its
 * answers recorded, each written to its books, leave every D1 table with the row count it had after the
 * day's first order. The day's first order is what registers the day (its aggregates); an order that ended
 * failed or partial would add an exception row (none here: all succeed).
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { ended, freshClient, indexNow, runIndexTimer, storedOrder } from "../order-helpers";
import { LifeReceiver } from "../webhooks/order-life-receiver";

const ORDERS = 200;
const DAY_MS = 86_400_000;

let receiver: LifeReceiver;

beforeAll(async () => {
  await seedDemo();
  // The queue consumer logs a line per message: kept out of the test output.
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  receiver = new LifeReceiver();
});

afterAll(() => {
  receiver.restore();
  vi.restoreAllMocks();
});

/** Every D1 table's row count, by table. */
async function d1RowCounts(): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'
      AND name != 'd1_migrations' ORDER BY name`,
  ).all<{ name: string }>();
  const counts: Record<string, number> = {};
  for (const { name } of results)
    counts[name] = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).first<{ n: number }>())!.n;
  return counts;
}

/** An order with a webhook, confirmed and ended, written to its books; answers its id. */
async function placed(key: string, webhookUrl: string): Promise<string> {
  const created = await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], webhookUrl }, key);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.id as string;
  expect((await confirmOrder(id, key)).status).toBe(200);
  expect(await ended(id)).toBe("successful");
  await indexNow(id);
  return id;
}

/** Waits until the receiver has answered both events (confirmed, successful) of every order. */
async function delivered(ids: string[]): Promise<void> {
  await vi.waitFor(
    () => {
      for (const id of ids) expect(receiver.forOrder(id).filter((each) => each.status === 204).length).toBe(2);
    },
    { timeout: 60_000, interval: 100 },
  );
  // The consumer records a batch's answers after it has acked it.
  await new Promise((resolve) => setTimeout(resolve, 200));
}

describe("D1's row count does not grow with orders", () => {
  it("is the same after 200 orders with webhooks of one client in one day as after the day's first", async () => {
    const client = await freshClient({ USD: "5000" }, "growth");
    const url = await receiver.urlFor(client.id);
    const first = await placed(client.key, url);
    await delivered([first]);
    const afterFirst = await d1RowCounts();

    const ids: string[] = [];
    for (let at = 1; at < ORDERS; at += 1) ids.push(await placed(client.key, url));
    await delivered(ids);
    const after = await d1RowCounts();

    // A run across midnight (UTC) registers the next day too: one more aggregate row, still not per order.
    const days = new Set(
      await Promise.all([first, ...ids].map(async (id) => Math.floor((await storedOrder(id)).createdAt / DAY_MS))),
    );
    expect(after).toEqual({ ...afterFirst, books_days: afterFirst.books_days! + days.size - 1 });
    // The orders' index timers, due 2 s after their last change, run now rather than while the file's
    // environment is closing behind them.
    for (const id of [first, ...ids]) await runIndexTimer(id);
  }, 240_000);
});
