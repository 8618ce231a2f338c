/**
 * A shard of a client's books, written and read as the order object, the webhook consumer and the lists
 * do: the rows each write costs (counted from the SQL cursors' rowsWritten and D1's rows_written), the
 * counters kept in the same step, the day registered in D1 and the exceptions, the parts of a split day,
 * the publish to D1, and the webhook answers kept in the order's row.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { BooksObject } from "../../src/books/books-object";
import { clientBooks, DAYS_PER_PAGE } from "../../src/books/books-reader";
import { recordAnswers, shardOf, writeToBooks } from "../../src/books/books-writer";
import { countersOf } from "../../src/books/counters-rules";
import { publishedDays } from "../../src/books/directory-store";
import type { OrderAnswer } from "../../src/books/answer-rules";
import { bookWriteOf, hashedRow, type BookedOrder, type BookWrite } from "../../src/books/row-rules";
import { DAY_MS, dayOf, partOf, type ShardAddress } from "../../src/books/shard-rules";
import { bookedOrderOf, deliveredLine } from "../book-helpers";
import { uid } from "../order-helpers";

const TODAY = dayOf(Date.now());

/** A successful order of one fulfilled line, changed once since its creation. */
function orderOf(clientId: string, overrides: Partial<BookedOrder> = {}): BookedOrder {
  const createdAt = overrides.createdAt ?? Date.now();
  return bookedOrderOf(clientId, {
    modifiedAt: createdAt + 10,
    lines: [deliveredLine("DEMO-US-RANGE", "5")],
    ...overrides,
  });
}

const addressOf = (row: BookWrite, parts = 1): ShardAddress => ({
  clientId: row.clientId,
  day: dayOf(row.createdAt),
  part: partOf(row.id, parts),
});
const shard = (address: ShardAddress) => shardOf(env.BOOKS, address);
const write = async (row: BookWrite) => {
  const answer = await shard(addressOf(row)).write(addressOf(row), row);
  if ("misrouted" in answer) throw new Error("misrouted");
  return answer.written;
};

async function directoryRows(clientId: string): Promise<Record<string, unknown>[]> {
  return (await env.DB.prepare(`SELECT * FROM books_days WHERE client_id = ?1`).bind(clientId).all()).results;
}

describe("a shard's write", () => {
  it("costs 2 rows an order (its row and its wallet's counters), the shard's creation once, a repeat nothing", async () => {
    const clientId = uid("books");
    const first = bookWriteOf(orderOf(clientId), 1);
    const created = await write(first);
    // The shard's two tables and its meta are written once, with its first row: 3 rows more.
    expect(created).toBe(5);
    const second = bookWriteOf(orderOf(clientId), 1);
    expect(await write(second)).toBe(2);
    expect(await write(second)).toBe(0);
    expect(await write({ ...second, version: 0, state: "created" })).toBe(0);
    const newer = {
      ...second,
      version: 2,
      state: "partial" as const,
      refunded: "1",
      modifiedAt: second.modifiedAt + 5,
    };
    expect(await write(newer)).toBe(2);
    const [counters] = await shard(addressOf(first)).counters();
    expect(counters!.counters).toEqual(countersOf(await Promise.all([first, newer].map(hashedRow))));
    expect(counters!.changes).toBe(3);
    // A row without a rowid and without an index: the list newest first is the key walked backwards.
    const rows = await shard(addressOf(first)).page({ limit: 10 });
    expect(rows.map((row) => row.id)).toEqual(
      [first, newer].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((row) => row.id),
    );
    expect(rows.find((row) => row.id === newer.id)).toMatchObject({ state: "partial", version: 2, clientId });
  });

  it("registers the day in D1 before its first row of a wallet, once (each publish then replaces it)", async () => {
    const clientId = uid("books");
    expect(await directoryRows(clientId)).toEqual([]);
    await write(bookWriteOf(orderOf(clientId), 1));
    await write(bookWriteOf(orderOf(clientId), 1));
    await write(bookWriteOf(orderOf(clientId, { wallet: "EUR" }), 1));
    const rows = await directoryRows(clientId);
    expect(rows.map((row) => [row.day, row.currency, row.part, row.changes])).toEqual([
      [TODAY, "EUR", 0, 0],
      [TODAY, "USD", 0, 0],
    ]);
  });

  it("adds an order that ended failed or partial to D1's exceptions once, with its failed lines", async () => {
    const clientId = uid("books");
    const open = bookWriteOf(orderOf(clientId, { state: "processing" }), 2);
    await write(open);
    const failed = bookWriteOf(
      orderOf(clientId, {
        id: open.id,
        createdAt: open.createdAt,
        state: "failed",
        lines: [
          {
            sku: "DEMO-US-FAILING",
            quantity: 1,
            charge: "5",
            refunded: "5",
            status: "failed",
            product: { supplier: "sandbox" },
            redeem: null,
          },
        ],
      }),
      3,
    );
    await write(failed);
    await write({ ...failed, version: 4, modifiedAt: failed.modifiedAt + 1 });
    const { results } = await env.DB.prepare(`SELECT * FROM books_exceptions WHERE client_id = ?1`)
      .bind(clientId)
      .all();
    expect(results).toEqual([
      expect.objectContaining({
        order_id: open.id,
        state: "failed",
        lines: JSON.stringify([{ sku: "DEMO-US-FAILING", supplier: "sandbox", quantity: 1, amount: "5" }]),
      }),
    ]);
  });
});

describe("a client's split day", () => {
  it("keeps each order in the part its id picks: a shard refuses another part's, and the writer follows", async () => {
    const clientId = uid("split");
    // Set straight into D1: the operator's way refuses a day that may have begun (directory-store.ts).
    await env.DB.prepare(
      `INSERT INTO books_layouts (client_id, from_day, parts, set_at, set_by) VALUES (?1, ?2, 4, 0, 'test')`,
    )
      .bind(clientId, TODAY)
      .run();
    const rows = Array.from({ length: 12 }, () => bookWriteOf(orderOf(clientId), 1));
    const stray = rows.find((row) => partOf(row.id, 4) !== 0)!;
    const refused = await shard({ clientId, day: TODAY, part: 0 }).write({ clientId, day: TODAY, part: 0 }, stray);
    expect(refused).toEqual({ misrouted: true, parts: 4 });
    for (const row of rows) expect(await writeToBooks(env.BOOKS, row)).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      const stored = await shard(addressOf(row, 4)).row(row.createdAt, row.id);
      expect(stored?.id).toBe(row.id);
    }
    // The list merges the day's parts newest first.
    const page = await clientBooks(env, clientId, {}, null, 100);
    expect(page.rows.map((row) => row.id)).toEqual(
      [...rows].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((row) => row.id),
    );
    expect(page.next).toBeNull();
  });
});

describe("publishing", () => {
  it("replaces each wallet's D1 row with its counters: one row each, nothing when nothing changed", async () => {
    const clientId = uid("publish");
    const rows = [bookWriteOf(orderOf(clientId), 1), bookWriteOf(orderOf(clientId, { state: "rejected" }), 2)];
    for (const row of rows) await write(row);
    const stub = shard(addressOf(rows[0]!));
    expect(await stub.publishNow()).toBe(1);
    expect(await stub.publishNow()).toBe(0);
    const [published] = await publishedDays(env.DB, clientId, TODAY, TODAY);
    const counters = countersOf(await Promise.all(rows.map(hashedRow)));
    expect(published).toMatchObject({
      day: TODAY,
      currency: "USD",
      part: 0,
      changes: 2,
      counters: {
        orders: 2,
        buckets: counters.buckets,
        total: 10_000,
        charged: 5_000,
        refunded: 0,
        lines: counters.lines,
      },
    });
    // A publish carrying fewer changes than D1 has (a late one) passes nothing.
    await env.DB.prepare(`UPDATE books_days SET changes = 99 WHERE client_id = ?1`).bind(clientId).run();
    await write(bookWriteOf(orderOf(clientId), 1));
    expect(await stub.publishNow()).toBe(0);
  });

  it("writes its alarm once a publish, at the first change after the last one", async () => {
    const clientId = uid("publish");
    const rows = [bookWriteOf(orderOf(clientId), 1), bookWriteOf(orderOf(clientId), 1)];
    const address = addressOf(rows[0]!);
    /** The alarm writes of `rows` written in turn. */
    const alarmWrites = (written: BookWrite[]) =>
      runInDurableObject(shard(address), async (instance: BooksObject, state) => {
        const set = vi.spyOn(state.storage, "setAlarm");
        const writes: number[] = [];
        for (const row of written) {
          await instance.write(address, row);
          writes.push(set.mock.calls.length);
        }
        set.mockRestore();
        return writes;
      });
    // One for the first change, none for the second; one again after the publish the alarm made.
    expect(await alarmWrites(rows)).toEqual([1, 1]);
    expect(await runDurableObjectAlarm(shard(address))).toBe(true);
    expect(await alarmWrites([{ ...rows[0]!, version: 2, modifiedAt: rows[0]!.modifiedAt + 1 }])).toEqual([1]);
  });

  it("sets its alarm for the publish within the hour of a change", async () => {
    const clientId = uid("publish");
    const row = bookWriteOf(orderOf(clientId), 1);
    const before = Date.now();
    await write(row);
    const alarm = await runInDurableObject(shard(addressOf(row)), (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    expect(alarm).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(await runDurableObjectAlarm(shard(addressOf(row)))).toBe(true);
    expect((await publishedDays(env.DB, clientId, TODAY, TODAY))[0]?.changes).toBe(1);
  });
});

describe("webhook answers", () => {
  const answerTo = (row: BookWrite, state: BookWrite["state"], answeredAt = Date.now()): OrderAnswer => ({
    clientId: row.clientId,
    orderId: row.id,
    orderCreatedAt: row.createdAt,
    state,
    eventId: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    attempts: 1,
    outcome: "delivered",
    status: 200,
    error: null,
    answeredAt,
  });

  it("are stored by the row's write that is on its way, at no row of their own", async () => {
    const clientId = uid("answers");
    const row = bookWriteOf(orderOf(clientId), 3);
    const answers = [answerTo(row, "confirmed"), answerTo(row, "successful")];
    // Both answered before the order's row came: held.
    expect(await recordAnswers(env.BOOKS, answers)).toBe(0);
    expect(await shard(addressOf(row)).row(row.createdAt, row.id)).toBeNull();
    const written = await write(row);
    const other = bookWriteOf(orderOf(clientId), 1);
    // The row's write cost what any row's write costs (creation aside): compare with one without answers.
    expect(await write(other)).toBe(2);
    expect(written).toBeGreaterThan(2);
    const stored = await shard(addressOf(row)).row(row.createdAt, row.id);
    expect(Object.keys(stored!.deliveries).sort()).toEqual(answers.map((answer) => answer.eventId).sort());
  });

  it("are written at once, one row per order, when the row already shows their state; the last answer wins", async () => {
    const clientId = uid("answers");
    const row = bookWriteOf(orderOf(clientId), 3);
    await write(row);
    const late = answerTo(row, "successful", Date.now() + 1_000);
    const early = { ...answerTo(row, "successful", Date.now()), eventId: late.eventId, attempts: 3 };
    expect(await recordAnswers(env.BOOKS, [late, early])).toBe(1);
    expect(await recordAnswers(env.BOOKS, [early])).toBe(0);
    const stored = await shard(addressOf(row)).row(row.createdAt, row.id);
    expect(stored!.deliveries[late.eventId]).toMatchObject({ attempts: 1, answeredAt: late.answeredAt });
  });

  it("still waiting for their row's write are shown with the row it has (the console's timeline)", async () => {
    const clientId = uid("answers");
    const open = bookWriteOf(orderOf(clientId, { state: "confirmed" }), 2);
    await write(open);
    const answer = answerTo(open, "successful");
    expect(await recordAnswers(env.BOOKS, [answer])).toBe(0);
    const shown = await shard(addressOf(open)).row(open.createdAt, open.id);
    expect(shown!.deliveries[answer.eventId]).toMatchObject({ status: 200, outcome: "delivered" });
    // Shown, not stored: the stored row has no answer yet (the row's next write brings it).
    const stored = await runInDurableObject(shard(addressOf(open)), (_instance, state) =>
      state.storage.sql.exec(`SELECT deliveries FROM orders WHERE id = ?1`, open.id).one(),
    );
    expect(JSON.parse(stored.deliveries as string)).toEqual({});
  });

  it("that waited too long for their row are written by the shard's alarm", async () => {
    const clientId = uid("answers");
    const open = bookWriteOf(orderOf(clientId, { state: "confirmed" }), 2);
    await write(open);
    const answer = answerTo(open, "successful");
    expect(await recordAnswers(env.BOOKS, [answer])).toBe(0);
    // As if ANSWER_WAIT_MS had passed: the held answer is due now.
    await runInDurableObject(shard(addressOf(open)), (instance: BooksObject) => {
      const waiting = (instance as unknown as { host: { waiting: Map<string, { dueAt: number }> } }).host.waiting;
      waiting.get(open.id)!.dueAt = Date.now() - 1;
    });
    expect(await runDurableObjectAlarm(shard(addressOf(open)))).toBe(true);
    const stored = await shard(addressOf(open)).row(open.createdAt, open.id);
    expect(stored!.deliveries[answer.eventId]).toMatchObject({ status: 200, outcome: "delivered" });
  });
});

describe("a client's list across its days", () => {
  it(`opens at most ${DAYS_PER_PAGE} days a page, and its next page goes on before the last day it opened`, async () => {
    const clientId = uid("days");
    const days = DAYS_PER_PAGE + 4;
    const rows: BookWrite[] = [];
    for (let back = 0; back < days; back += 1) {
      const createdAt = (TODAY - back * 3) * DAY_MS + 3_600_000;
      const row = bookWriteOf(orderOf(clientId, { createdAt }), 1);
      rows.push(row);
      await write(row);
    }
    const first = await clientBooks(env, clientId, {}, null, 100);
    expect(first.rows.map((row) => row.id)).toEqual(rows.slice(0, DAYS_PER_PAGE).map((row) => row.id));
    expect(first.next).toEqual({ createdAt: (TODAY - (DAYS_PER_PAGE - 1) * 3) * DAY_MS, id: `ord_${"0".repeat(64)}` });
    const second = await clientBooks(env, clientId, {}, first.next, 100);
    expect(second.rows.map((row) => row.id)).toEqual(rows.slice(DAYS_PER_PAGE).map((row) => row.id));
    expect(second.next).toBeNull();
    // A full page's cursor is its last row's, wherever the page ended.
    const small = await clientBooks(env, clientId, {}, null, 2);
    expect(small.rows.map((row) => row.id)).toEqual(rows.slice(0, 2).map((row) => row.id));
    expect(small.next).toEqual({ createdAt: rows[1]!.createdAt, id: rows[1]!.id });
    // Filters are applied in the shards: the creation range opens only its own days.
    const ranged = await clientBooks(
      env,
      clientId,
      { createdFrom: rows[5]!.createdAt, createdTo: rows[2]!.createdAt },
      null,
      100,
    );
    expect(ranged.rows.map((row) => row.id)).toEqual(rows.slice(2, 6).map((row) => row.id));
  });
});
