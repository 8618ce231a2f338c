/**
 * The books' pure rules: where an order's row lives (its day, shard and part), which version of a row wins,
 * the counters as a sum of each row's part (exact whatever the order of writes), when a shard publishes, and
 * which webhook answer is the last.
 */
import { describe, expect, it } from "vitest";
import { mergeAnswers, waitsForRow, type DeliveryAnswer } from "../../src/books/answer-rules";
import { firstKeptDay, isRetention } from "../../src/books/retention-rules";
import { afterWrite, countersOf, emptyCounters, lineKey, withRow } from "../../src/books/counters-rules";
import { BUSY_CHANGES, MIN_PUBLISH_INTERVAL_MS, QUIET_PUBLISH_MS, publishDue } from "../../src/books/publish-rules";
import {
  bookWriteOf,
  hashedRow,
  isNewer,
  thousandths,
  type BookRow,
  type BookedOrder,
} from "../../src/books/row-rules";
import { amountHash, canonicalAmount, codesHash, hashText, pairHash, pairText } from "../../src/books/set-hash-rules";
import {
  DAY_MS,
  LOWEST_ID,
  RATE_WINDOW_MS,
  addressOf,
  beforeDay,
  dayOf,
  firstLayoutDay,
  isPartCount,
  mergeNewestFirst,
  newestFirst,
  partOf,
  partsOn,
  partsWanted,
  shardName,
} from "../../src/books/shard-rules";

const orderId = (n: number) => `ord_${n.toString(16).padStart(64, "0")}`;

function order(overrides: Partial<BookedOrder> = {}): BookedOrder {
  return {
    id: orderId(1),
    clientId: "c1",
    reference: "r1",
    state: "successful",
    wallet: "USD",
    charge: "12.50",
    createdAt: 1_800_000_000_000,
    modifiedAt: 1_800_000_000_010,
    expiresAt: 1_800_000_600_000,
    lines: [
      {
        sku: "INV",
        quantity: 2,
        charge: "10",
        refunded: "0",
        status: "fulfilled",
        product: { supplier: "inventory" },
        redeem: { pins: ["A-1", "A-2"] },
      },
      {
        sku: "UP",
        quantity: 1,
        charge: "2.5",
        refunded: "2.5",
        status: "failed",
        product: { supplier: "upstream" },
        redeem: null,
      },
    ],
    ...overrides,
  };
}

describe("shards: days, names and parts", () => {
  it("puts an order in the UTC day it was created on", () => {
    expect(dayOf(0)).toBe(0);
    expect(dayOf(DAY_MS - 1)).toBe(0);
    expect(dayOf(DAY_MS)).toBe(1);
  });

  it("names a shard by client, day and part, and reads the name back", () => {
    const address = { clientId: "acme", day: 20_500, part: 3 };
    expect(addressOf(shardName(address))).toEqual(address);
    expect(addressOf("acme")).toBeNull();
    expect(addressOf("acme\u00001\u0000x")).toBeNull();
    expect(shardName({ clientId: "a", day: 1, part: 0 })).not.toBe(shardName({ clientId: "a", day: 1, part: 1 }));
  });

  it("spreads a day's orders over its parts, each order always to the same part", () => {
    expect(partOf(orderId(7), 1)).toBe(0);
    const counts = new Array<number>(8).fill(0);
    for (let n = 0; n < 8000; n += 1) {
      const part = partOf(`ord_${crypto.randomUUID().replaceAll("-", "").repeat(2)}`, 8);
      expect(part).toBe(Math.min(Math.max(part, 0), 7));
      counts[part] = counts[part]! + 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(800);
    expect(partOf(orderId(42), 16)).toBe(partOf(orderId(42), 16));
  });

  it("gives a day the parts of the layout in force that day, 1 without one", () => {
    const layouts = [
      { fromDay: 10, parts: 4 },
      { fromDay: 20, parts: 8 },
    ];
    expect(partsOn([], 15)).toBe(1);
    expect(partsOn(layouts, 9)).toBe(1);
    expect(partsOn(layouts, 10)).toBe(4);
    expect(partsOn(layouts, 19)).toBe(4);
    expect(partsOn([...layouts].reverse(), 25)).toBe(8);
    expect([1, 2, 4, 64].every(isPartCount)).toBe(true);
    expect([0, 3, 128, 1.5].some(isPartCount)).toBe(false);
  });

  it("lets a layout take effect only from a day that has not begun anywhere", () => {
    const now = 5 * DAY_MS + 12 * 3_600_000;
    expect(firstLayoutDay(now)).toBe(6);
    // In the last hour of a day, tomorrow is too close: the day after.
    expect(firstLayoutDay(6 * DAY_MS - 1_000)).toBe(7);
  });

  it("asks for more parts only for a part that ran faster than its share for long enough", () => {
    const since = 1_000_000;
    expect(partsWanted(100_000, since, since + RATE_WINDOW_MS - 1, 1)).toBeNull();
    // 600 s at 10 orders/s: within one part's share.
    expect(partsWanted(6_000, since, since + RATE_WINDOW_MS, 1)).toBeNull();
    // 500 orders/s over one part: 8 parts would leave 62.5 a part, over its share of 60: 16.
    expect(partsWanted(300_000, since, since + RATE_WINDOW_MS, 1)).toBe(16);
    // A part of 4 that ran at 100/s: the day ran at 400/s, 8 parts.
    expect(partsWanted(60_000, since, since + RATE_WINDOW_MS, 4)).toBe(8);
    expect(partsWanted(10 ** 9, since, since + RATE_WINDOW_MS, 64)).toBeNull();
  });

  it("orders rows newest first across shards, and a day's boundary passes every order of that day", () => {
    const rows = (list: [number, number][]) => list.map(([createdAt, n]) => ({ createdAt, id: orderId(n) }));
    const merged = mergeNewestFirst(
      [
        rows([
          [30, 1],
          [10, 5],
        ]),
        rows([
          [30, 2],
          [20, 3],
        ]),
      ],
      3,
    );
    expect(merged.map((row) => [row.createdAt, row.id])).toEqual([
      [30, orderId(2)],
      [30, orderId(1)],
      [20, orderId(3)],
    ]);
    expect(newestFirst({ createdAt: 1, id: orderId(1) }, { createdAt: 2, id: orderId(0) })).toBeGreaterThan(0);
    const boundary = beforeDay(3);
    expect(boundary).toEqual({ createdAt: 3 * DAY_MS, id: LOWEST_ID });
    expect(newestFirst({ createdAt: 3 * DAY_MS, id: orderId(0) }, boundary)).toBeLessThanOrEqual(0);
  });
});

describe("rows", () => {
  it("builds the row from the order's record: amounts, lines' outcomes, inventory codes hashed, never kept", async () => {
    const sent = bookWriteOf(order(), 4);
    expect(sent).toMatchObject({
      state: "successful",
      total: "12.5",
      charged: "12.5",
      refunded: "2.5",
      skus: ["INV", "UP"],
      version: 4,
      deliveredCodes: ["A-1", "A-2"],
    });
    expect(sent.lines.map((line) => line.outcome)).toEqual(["delivered", "failed"]);
    // What the shard stores: the codes counted and hashed, not kept; its (order, amount) members hashed.
    const row = await hashedRow(sent);
    expect(row).toMatchObject({ codes: 2, version: 4 });
    expect(JSON.stringify(row)).not.toContain("A-1");
    expect(row.chargeHash).toBe(hashText(await pairHash("charge", orderId(1), "12.5")));
    expect(row.refundHash).toBe(hashText(await pairHash("refund", orderId(1), "2.5")));
    // The same codes in another order hash alike: the set's hash does not depend on the pins' order.
    const swapped = order({ lines: [{ ...order().lines[0]!, redeem: { pins: ["A-2", "A-1"] } }, order().lines[1]!] });
    expect((await hashedRow(bookWriteOf(swapped, 4))).codesHash).toBe(row.codesHash);
    expect(bookWriteOf(order({ state: "rejected" }), 1).charged).toBe("0");
    expect(bookWriteOf(order({ state: "created" }), 1).charged).toBe("0");
    // An amount of 0 is no member of its set.
    expect((await hashedRow(bookWriteOf(order({ state: "created" }), 1))).chargeHash).toBe("0000000000000000");
  });

  it("takes only a newer (version, modifiedAt): a repeat or an older write changes nothing", () => {
    const stored = { version: 2, modifiedAt: 100 };
    expect(isNewer({ version: 2, modifiedAt: 100 }, stored)).toBe(false);
    expect(isNewer({ version: 1, modifiedAt: 500 }, stored)).toBe(false);
    expect(isNewer({ version: 2, modifiedAt: 99 }, stored)).toBe(false);
    expect(isNewer({ version: 2, modifiedAt: 101 }, stored)).toBe(true);
    expect(isNewer({ version: 3, modifiedAt: 1 }, stored)).toBe(true);
    expect(isNewer({ version: 0, modifiedAt: 0 }, null)).toBe(true);
  });

  it("keeps amounts as exact thousandths, and refuses one finer than a currency can be", () => {
    expect(thousandths("12.345")).toBe(12_345);
    expect(thousandths("0.1")).toBe(100);
    expect(thousandths("-3")).toBe(-3_000);
    expect(() => thousandths("0.0001")).toThrow();
  });
});

describe("counters", () => {
  const at = (state: BookRow["state"], version: number, changes: Partial<BookedOrder> = {}) =>
    hashedRow(bookWriteOf(order({ state, ...changes }), version));

  it("are the sum of each row's part, whatever the order the rows and their changes were written in", async () => {
    const a1 = await at("created", 1, {
      id: orderId(1),
      lines: [{ ...order().lines[0]!, status: "pending", redeem: null }],
    });
    const a2 = await at("successful", 3, { id: orderId(1) });
    const b = await at("rejected", 2, {
      id: orderId(2),
      charge: "7",
      lines: [{ ...order().lines[0]!, charge: "7", status: "pending", redeem: null }],
    });
    const c = await at("partial", 3, { id: orderId(3) });
    let forward = emptyCounters();
    forward = afterWrite(forward, null, a1);
    forward = afterWrite(forward, null, b);
    forward = afterWrite(forward, a1, a2);
    forward = afterWrite(forward, null, c);
    let backward = emptyCounters();
    backward = afterWrite(backward, null, c);
    backward = afterWrite(backward, null, a2);
    backward = afterWrite(backward, null, b);
    expect(forward).toEqual(countersOf([a2, b, c]));
    expect(backward).toEqual(forward);
    expect(forward).toMatchObject({
      orders: 3,
      buckets: { open: 0, successful: 1, partial: 1, failed: 0, rejected: 1 },
      total: 32_000,
      charged: 25_000,
      refunded: 5_000,
      codes: 4,
    });
    expect(forward.lines[lineKey("INV", "inventory", "delivered")]).toEqual({ lines: 2, quantity: 4, amount: 20_000 });
  });

  it("take a row out exactly as it was put in: the empty set again, hashes included", async () => {
    const row = await at("partial", 3);
    expect(withRow(withRow(emptyCounters(), row, 1), row, -1)).toEqual(emptyCounters());
  });

  it("hash the (order, charged) pairs: another amount or another order is another hash", async () => {
    const one = countersOf([await at("successful", 1)]);
    expect(countersOf([await at("successful", 1, { charge: "12.51" })]).chargesHash).not.toBe(one.chargesHash);
    expect(countersOf([await at("successful", 1, { id: orderId(9) })]).chargesHash).not.toBe(one.chargesHash);
    // "12.50" and "12.5" are one amount.
    expect(countersOf([await at("successful", 1, { charge: "12.5" })]).chargesHash).toBe(one.chargesHash);
  });
});

describe("the hash of a set of pairs (shared with the wallet's and the codes' summaries)", () => {
  it("is the first 8 bytes of the SHA-256 of the pair's canonical text", async () => {
    expect(pairText("charge", orderId(1), canonicalAmount("12.50"))).toBe(`charge\n${orderId(1)}\n12.5`);
    // SHA-256("charge\nord_…01\n12.5"), its first 8 bytes: computed independently of the module.
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`charge\n${orderId(1)}\n12.5`)),
    );
    const expected = [...digest.slice(0, 8)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    expect(hashText(await amountHash("charge", orderId(1), "12.50"))).toBe(expected);
    expect(await pairHash("charge", orderId(1), "12.5")).not.toBe(await pairHash("refund", orderId(1), "12.5"));
    expect(await amountHash("refund", orderId(1), "0.00")).toBe(0n);
  });

  it("sums its members modulo 2^64: the order they come in does not count", async () => {
    const forward = await codesHash(orderId(1), ["A", "B", "C"]);
    expect(await codesHash(orderId(1), ["C", "A", "B"])).toBe(forward);
    expect(await codesHash(orderId(2), ["A", "B", "C"])).not.toBe(forward);
    expect(forward).toBeLessThan(2n ** 64n);
  });
});

describe("publishing", () => {
  const base = { now: 10_000_000, firstWaitingAt: 9_000_000, lastPublishAt: 0 };

  it("publishes a quiet shard within the hour of its first change waiting, and nothing when none waits", () => {
    expect(publishDue({ ...base, waiting: 0 })).toBeNull();
    expect(publishDue({ ...base, waiting: 1 })).toBe(base.firstWaitingAt + QUIET_PUBLISH_MS);
  });

  it("publishes a busy shard once its minute since the last publish has passed, never more often", () => {
    expect(publishDue({ ...base, waiting: BUSY_CHANGES, lastPublishAt: base.now - 10_000 })).toBe(
      base.now - 10_000 + MIN_PUBLISH_INTERVAL_MS,
    );
    expect(publishDue({ ...base, waiting: BUSY_CHANGES, lastPublishAt: base.now - 120_000 })).toBe(base.now);
    expect(publishDue({ ...base, waiting: 1, firstWaitingAt: 0, lastPublishAt: base.now })).toBe(
      base.now + MIN_PUBLISH_INTERVAL_MS,
    );
  });
});

describe("webhook answers", () => {
  const answer = (eventId: string, answeredAt: number, attempts = 1): DeliveryAnswer => ({
    eventId,
    attempts,
    outcome: "delivered",
    status: 200,
    error: null,
    answeredAt,
  });

  it("keeps each event's last answer by time, not by attempt (a replayed dead letter counts from 1 again)", () => {
    const merged = mergeAnswers({}, [answer("e1", 10, 5), answer("e1", 20, 1), answer("e1", 15, 6), answer("e2", 1)]);
    expect(merged.e1).toMatchObject({ answeredAt: 20, attempts: 1 });
    expect(Object.keys(merged).sort()).toEqual(["e1", "e2"]);
  });

  it("holds an answer for the row's next write while the row does not show the state its event announced", () => {
    expect(waitsForRow(null, "confirmed")).toBe(true);
    expect(waitsForRow({ state: "created" }, "confirmed")).toBe(true);
    expect(waitsForRow({ state: "confirmed" }, "successful")).toBe(true);
    expect(waitsForRow({ state: "successful" }, "confirmed")).toBe(false);
    expect(waitsForRow({ state: "failed" }, "failed")).toBe(false);
  });
});

describe("retention", () => {
  it("keeps everything unless set, and a setting keeps at least a month", () => {
    expect(isRetention(null)).toBe(true);
    expect(isRetention(31)).toBe(true);
    expect(isRetention(365)).toBe(true);
    expect([30, 0, -1, 31.5, 36_501].some(isRetention)).toBe(false);
  });

  it("drops the days before the first one kept: today and the days before it, `days` in all", () => {
    const now = 100 * DAY_MS + 5;
    expect(firstKeptDay(now, null)).toBeNull();
    expect(firstKeptDay(now, 31)).toBe(70);
  });
});
