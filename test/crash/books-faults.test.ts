/**
 * The books under faults: the order's write to its shard and every seam of the books (src/books/seams.ts),
 * each failed before its call and after it (the reply lost), with and without the object evicted there
 * (the shard for its own seams, the order for its write), then left to what really follows: the order's
 * `index` timer retries until its write is in, and the shard's alarm publishes again. After every case:
 *
 * - the order's row in its shard is its stored record at its index version (state, amounts, lines, the
 *   hashes of its members of the day's sets), written once: the shard holds one row for it;
 * - each wallet's counters equal the sum of the shard's rows, whatever was retried;
 * - the day is in D1's directory, and a failed order is among D1's exceptions, once;
 * - once published, D1's figures of the day are the shard's counters.
 *
 * A seam of the books without a case here fails the coverage test.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { bookedRow } from "../../src/books/books-reader";
import { shardOf } from "../../src/books/books-writer";
import { countersOf } from "../../src/books/counters-rules";
import { publishedDays } from "../../src/books/directory-store";
import { dropExpiredDays } from "../../src/books/books-retention";
import { writeToBooks } from "../../src/books/books-writer";
import { setRetention } from "../../src/books/directory-store";
import { bookWriteOf, hashedRow } from "../../src/books/row-rules";
import { BOOKS_SEAMS } from "../../src/books/seams";
import { dayOf, type ShardAddress } from "../../src/books/shard-rules";
import { armFault, clearFaults, firedFaults, type FaultWhen } from "../../src/kernel/faults";
import { OrderStore } from "../../src/orders/order-store";
import { ORDER_SEAMS } from "../../src/orders/seams";
import { call, line, orderStub, seedDemo } from "../helpers";
import { bookedWriteOf } from "../book-helpers";
import { ended, freshClient, liveStore, storedOrder, uid } from "../order-helpers";

beforeAll(seedDemo);
afterEach(clearFaults);

interface Case {
  seam: string;
  /** The order's lines; its end state. */
  lines: () => unknown[];
  state: string;
  /** What the fault interrupts: the order's books write (its index timer), or the shard's publish. */
  step: "write" | "publish";
}

const SANDBOX = () => [line("DEMO-US-RANGE", 5, 1)];
const FAILING = () => [line("DEMO-US-FAILING", 5, 1)];

const CASES: Case[] = [
  { seam: ORDER_SEAMS.booksWrite, lines: SANDBOX, state: "successful", step: "write" },
  { seam: BOOKS_SEAMS.register, lines: SANDBOX, state: "successful", step: "write" },
  { seam: BOOKS_SEAMS.layout, lines: SANDBOX, state: "successful", step: "write" },
  { seam: BOOKS_SEAMS.exception, lines: FAILING, state: "failed", step: "write" },
  { seam: BOOKS_SEAMS.publish, lines: SANDBOX, state: "successful", step: "publish" },
  { seam: BOOKS_SEAMS.eventDay, lines: SANDBOX, state: "successful", step: "write" },
  { seam: BOOKS_SEAMS.announce, lines: FAILING, state: "failed", step: "write" },
];

const VARIANTS = (["before", "after"] as FaultWhen[]).flatMap((when) => [
  { when, evict: false },
  { when, evict: true },
]);

async function placed(lines: unknown[]): Promise<{ clientId: string; orderId: string }> {
  const { id: clientId, key } = await freshClient();
  const created = await call("POST", "/order/create", {
    key,
    body: { productList: lines, wallet: "USD", reference: uid("ref") },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const orderId = created.body.data.id as string;
  expect((await call("PUT", "/order/confirm", { key, body: { orderId } })).status).toBe(200);
  await ended(orderId);
  return { clientId, orderId };
}

/** Whether the order's `index` timer still waits to run (as its live object holds its timers). */
async function indexPending(orderId: string): Promise<boolean> {
  return runInDurableObject(orderStub(orderId), (instance, state) =>
    liveStore(instance, state)
      .timers()
      .some((timer) => timer.kind === "index"),
  );
}

/** Runs the order's alarm until its books write is in: what the timer's retries do after a fault. */
async function drainIndex(orderId: string): Promise<void> {
  for (let run = 0; run < 10 && (await indexPending(orderId)); run += 1)
    await runDurableObjectAlarm(orderStub(orderId));
  expect(await indexPending(orderId)).toBe(false);
}

async function shardAddress(clientId: string, orderId: string): Promise<ShardAddress> {
  return { clientId, day: dayOf((await storedOrder(orderId)).createdAt), part: 0 };
}

async function expectBooksHold(clientId: string, orderId: string, state: string): Promise<void> {
  const order = await storedOrder(orderId);
  const version = await runInDurableObject(orderStub(orderId), (_instance, storage) =>
    new OrderStore(storage.storage).indexVersion(),
  );
  expect(order.state).toBe(state);
  const { deliveries, ...row } = (await bookedRow(env, order))!;
  expect(deliveries).toEqual({});
  expect(row).toEqual(await hashedRow(bookWriteOf(order, version)));
  const address = await shardAddress(clientId, orderId);
  const shard = shardOf(env.BOOKS, address);
  const rows = await shard.page({ limit: 100 });
  expect(rows.map((each) => each.id)).toEqual([orderId]);
  const [counters] = await shard.counters();
  expect(counters!.counters).toEqual(countersOf(rows));
  const directory = await env.DB.prepare(`SELECT currency, part FROM books_days WHERE client_id = ?1 AND day = ?2`)
    .bind(clientId, address.day)
    .all();
  expect(directory.results).toEqual([{ currency: "USD", part: 0 }]);
  const exceptions = await env.DB.prepare(`SELECT order_id FROM books_exceptions WHERE client_id = ?1`)
    .bind(clientId)
    .all();
  expect(exceptions.results).toEqual(state === "failed" ? [{ order_id: orderId }] : []);
  // The order's events (issue 44): each in the shard once, its day in D1's directory of event days once.
  const events: { id: string; type: string }[] = await runInDurableObject(
    orderStub(orderId),
    (_instance, storage) => new OrderStore(storage.storage).allEvents() as { id: string; type: string }[],
  );
  expect(events.map((event) => event.type)).toEqual(["order.confirmed", `order.${state}`]);
  const booked = (await shard.eventPage({ limit: 100 })) as unknown as { id: string }[];
  expect(booked.map((event) => event.id).sort()).toEqual(events.map((event) => event.id).sort());
  expect(booked).toEqual(expect.arrayContaining(events));
  const eventDays = await env.DB.prepare(`SELECT day FROM books_event_days WHERE client_id = ?1`).bind(clientId).all();
  expect(eventDays.results).toEqual([{ day: address.day }]);
}

async function expectPublished(clientId: string, orderId: string): Promise<void> {
  const address = await shardAddress(clientId, orderId);
  const [counters] = await shardOf(env.BOOKS, address).counters();
  const [published] = await publishedDays(env.DB, clientId, address.day, address.day);
  expect(published?.changes).toBe(counters!.changes);
  const { orders, buckets, total, charged, refunded, lines } = counters!.counters;
  expect(published?.counters).toEqual({ orders, buckets, total, charged, refunded, lines });
}

/** The retention's seams: a day's shard dropped, then its directory rows. */
const RETENTION_SEAMS = [BOOKS_SEAMS.drop, BOOKS_SEAMS.forget];

describe("the books under faults", () => {
  it("has a case for the order's write to its books and for every seam of the books", () => {
    const covered = new Set([...CASES.map((each) => each.seam), ...RETENTION_SEAMS]);
    expect([ORDER_SEAMS.booksWrite, ...Object.values(BOOKS_SEAMS)].filter((seam) => !covered.has(seam))).toEqual([]);
  });

  it.each(CASES.flatMap((each) => VARIANTS.map((variant) => [each.seam, variant.when, variant.evict, each] as const)))(
    "%s fails %s (evicted: %s): the order's row, the counters, the directory and the exceptions hold",
    async (seam, when, evict, { lines, state, step }) => {
      const { clientId, orderId } = await placed(lines());
      const shard = () => shardOf(env.BOOKS, { clientId, day: dayOf(Date.now()), part: 0 });
      if (step === "publish") await drainIndex(orderId);
      armFault(seam, { when });
      if (step === "write") await runDurableObjectAlarm(orderStub(orderId));
      else
        await shard()
          .publishNow()
          .catch(() => undefined);
      expect(firedFaults()).toEqual([`${seam}:${when}`]);
      if (evict) await evictDurableObject(seam === ORDER_SEAMS.booksWrite ? orderStub(orderId) : shard());
      await drainIndex(orderId);
      await expectBooksHold(clientId, orderId, state);
      // The shard's alarm publishes (again, after a failed publish): D1 then has the counters.
      await shard().publishNow();
      await expectPublished(clientId, orderId);
    },
  );
});

describe("retention under faults", () => {
  const oldDay = (daysAgo: number) => Date.now() - daysAgo * 86_400_000;

  it.each(RETENTION_SEAMS.flatMap((seam) => (["before", "after"] as FaultWhen[]).map((when) => [seam, when] as const)))(
    "%s fails %s: the next run drops the day past retention, and the days kept stay whole",
    async (seam, when) => {
      const { id: clientId } = await freshClient();
      const row = (createdAt: number) => bookedWriteOf(clientId, { createdAt });
      const expired = row(oldDay(40));
      const kept = row(Date.now());
      for (const each of [expired, kept]) await writeToBooks(env.BOOKS, each);
      await setRetention(env.DB, 31, "test", Date.now());
      try {
        armFault(seam, { when });
        await dropExpiredDays(env, Date.now()).catch(() => undefined);
        expect(firedFaults()).toEqual([`${seam}:${when}`]);
        clearFaults();
        await dropExpiredDays(env, Date.now());
      } finally {
        await setRetention(env.DB, null, "test", Date.now());
      }
      const shardOfRow = (each: typeof kept) => shardOf(env.BOOKS, { clientId, day: dayOf(each.createdAt), part: 0 });
      expect(await shardOfRow(expired).page({ limit: 10 })).toEqual([]);
      expect(await shardOfRow(expired).counters()).toEqual([]);
      expect((await shardOfRow(kept).page({ limit: 10 })).map((each) => each.id)).toEqual([kept.id]);
      const days = await env.DB.prepare(`SELECT day FROM books_days WHERE client_id = ?1`).bind(clientId).all();
      expect(days.results).toEqual([{ day: dayOf(kept.createdAt) }]);
    },
  );
});
