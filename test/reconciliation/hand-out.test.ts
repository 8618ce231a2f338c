/**
 * The hand-out (docs/operator-api.md, Reconciliation, "The queue"): a pass reads the due wallet-days in
 * keyset pages and hands them to the queue up to its budget; each day once a pass, across pages and kinds;
 * a lost message's days handed out again by a later pass, and a late duplicate checked once; one client's
 * many days capped, the others' taken, the client named; a budget smaller than the days due taking the next
 * ones each pass, round to the start; messages and sendBatch calls within the platform's bounds.
 *
 * Days are made in D1 as the books publish them (`books_days`) or as earlier checks left them
 * (`reconciliation_days`); the pass checks none itself (`days: 0`), so no object is opened for them.
 */
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { dayOf } from "../../src/books/shard-rules";
import {
  checkHandedOut,
  DAYS_A_MESSAGE,
  MESSAGES_A_SEND,
  messagesOf,
  SEND_BYTES,
  sendsOf,
  type DaysMessage,
} from "../../src/reconciliation/day-queue";
import type { DueDay } from "../../src/reconciliation/day-store";
import { BUDGET, maxPages, runAndStore } from "../../src/reconciliation/reconciliation";
import { line, seedDemo } from "../helpers";
import { drainTimers, uid } from "../order-helpers";
import { auditedClient, freshCheckpoint, order } from "./reconciliation-helpers";

beforeAll(seedDemo);
beforeEach(freshCheckpoint);

const today = () => dayOf(Date.now());
const keyOf = (day: { clientId: string; currency: string; day: number }) =>
  `${day.clientId}/${day.currency}/${day.day}`;

/** A queue that keeps what is sent and delivers nothing (every message lost), counting its calls. */
function lostQueue() {
  const sent: DaysMessage[] = [];
  let calls = 0;
  const queue = {
    async sendBatch(messages: Iterable<MessageSendRequest<DaysMessage>>) {
      calls += 1;
      const batch = [...messages];
      expect(batch.length).toBeLessThanOrEqual(MESSAGES_A_SEND);
      sent.push(...batch.map((message) => message.body));
    },
  } as unknown as Queue;
  return {
    queue,
    sent,
    calls: () => calls,
    keys: () => sent.flatMap((message) => message.days.map(keyOf)),
  };
}

/** D1 statements made through `db`, by a word of their SQL. */
function counted(db: D1Database) {
  const statements: string[] = [];
  const proxy = new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name === "prepare")
        return (sql: string) => {
          statements.push(sql);
          return target.prepare(sql);
        };
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    db: proxy,
    count: (word: string) => statements.filter((sql) => sql.includes(word)).length,
    distinct: (word: string) => [...new Set(statements.filter((sql) => sql.includes(word)))],
  };
}

/** `count` clients' days of books published today, one each (a wallet-day whose books changed, never checked). */
async function changedDays(prefix: string, count: number, day = today()): Promise<string[]> {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?2)
     INSERT INTO books_days (client_id, day, currency, part, orders, open, successful, partial, failed, rejected,
                             total, charged, refunded, lines, changes, published_at)
     SELECT ?1 || '-' || printf('%05d', i), ?3, 'USD', 0, 1, 0, 1, 0, 0, 0, 5, 5, 0, '{}', 1, ?4 FROM n`,
  )
    .bind(prefix, count, day, Date.now())
    .run();
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, "0")}/USD/${day}`);
}

/** Days of one client left by earlier checks: `due_at` (settling) or `verify_at` (sealed) come. */
async function timedDays(clientId: string, count: number, column: "due_at" | "verify_at"): Promise<string[]> {
  const now = Date.now();
  const state = column === "due_at" ? "open" : "sealed";
  for (let i = 0; i < count; i += 1)
    await env.DB.prepare(
      `INSERT INTO reconciliation_days (client_id, currency, day, state, books_changes, first_seen_at, checked_at, ${column}, seal)
       VALUES (?1, 'USD', ?2, ?3, 0, ?4, ?4, ?5, ?6)`,
    )
      .bind(clientId, today() - 10 - i, state, now - 1000, now - 1000 + i, state === "sealed" ? "{}" : null)
      .run();
  return Array.from({ length: count }, (_, i) => `${clientId}/USD/${today() - 10 - i}`);
}

const handOnly = (handOut: number, page: number, perClient = 8) => ({ ...BUDGET, days: 0, handOut, page, perClient });

describe("the hand-out in pages", () => {
  it("hands out every due day exactly once a pass, across pages and kinds", async () => {
    const prefix = uid("pages");
    const changed = await changedDays(prefix, 25);
    const settling = await timedDays(uid("settling"), 5, "due_at");
    const verifying = await timedDays(uid("verify"), 5, "verify_at");
    // One day both changed and left settling: one day, once.
    await env.DB.prepare(
      `INSERT INTO reconciliation_days (client_id, currency, day, state, books_changes, first_seen_at, checked_at, due_at)
       VALUES (?1, 'USD', ?2, 'open', 0, 0, 0, 0)`,
    )
      .bind(`${prefix}-00003`, today())
      .run();
    const { db, count, distinct } = counted(env.DB);
    const lost = lostQueue();
    const pass = await runAndStore({ ...env, DB: db, RECONCILE: lost.queue }, Date.now(), {
      budget: handOnly(1_000, 4, 100),
      graceSeconds: 0,
    });
    const handed = lost.keys();
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed.sort()).toEqual([...changed, ...settling, ...verifying].sort());
    expect(pass.checked.handedOut).toBe(35);
    expect(pass.checked.days).toBe(0);
    expect(pass.complete).toBe(true);
    expect(pass.alerts).toEqual([]);
    // Pages of 4: the 25 changed days (and the one also settling) in 7 statements, each starting after the last.
    expect(count("FROM books_days")).toBe(7);
    expect(count("due_at <=")).toBe(2);
    expect(count("verify_at <=")).toBe(2);
    expect(count("OFFSET")).toBe(0);
    // Each page is one range of its index read in order, stopping at its limit: no sort of what it read.
    for (const sql of [...distinct("FROM books_days"), ...distinct("due_at <="), ...distinct("verify_at <=")]) {
      const parameters = Math.max(...[...sql.matchAll(/\?(\d+)/g)].map((match) => Number(match[1])));
      const plan = (
        await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...Array.from({ length: parameters }, () => 0))
          .all<{ detail: string }>()
      ).results;
      const details = plan.map((step) => step.detail).join("; ");
      expect(details).toMatch(/USING (COVERING )?INDEX \w+ \(\(\w+,client_id,currency(,day)?\)>\(\?,\?,\?(,\?)?\)/);
      expect(details).not.toContain("TEMP B-TREE");
    }
    expect(lost.sent.every((message) => message.days.length <= DAYS_A_MESSAGE)).toBe(true);
    // No message carries a seal: the consumer reads it.
    expect(JSON.stringify(lost.sent)).not.toContain("seal");
  });

  it("hands a lost message's days out again at a later pass, and checks a late duplicate once", async () => {
    const a = await auditedClient();
    const b = await auditedClient();
    // Their timers run now, not while the file's environment closes.
    await drainTimers(await order(a.key, [line("DEMO-US-RANGE", 5, 1)]));
    await drainTimers(await order(b.key, [line("DEMO-US-RANGE", 5, 1)]));
    const ours = (keys: string[]) => keys.filter((key) => key.startsWith(a.id) || key.startsWith(b.id)).sort();
    const expected = [`${a.id}/USD/${today()}`, `${b.id}/USD/${today()}`].sort();
    const now = Date.now();
    const first = lostQueue();
    await runAndStore({ ...env, RECONCILE: first.queue }, now, { budget: handOnly(10, 10), graceSeconds: 0 });
    expect(ours(first.keys())).toEqual(expected);

    // Every message lost: the days are still due, and the next pass hands them out again.
    const second = lostQueue();
    await runAndStore({ ...env, RECONCILE: second.queue }, now + 60_000, {
      budget: handOnly(10, 10),
      graceSeconds: 0,
    });
    expect(ours(second.keys())).toEqual(expected);
    await deliver(second.sent);
    const stored = async () =>
      (
        await env.DB.prepare(
          `SELECT client_id, state, checked_at FROM reconciliation_days WHERE client_id IN (?1, ?2) ORDER BY client_id`,
        )
          .bind(a.id, b.id)
          .all<{ client_id: string; state: string; checked_at: number }>()
      ).results;
    expect((await stored()).map((row) => [row.state, row.checked_at])).toEqual([
      ["sealed", now + 60_000],
      ["sealed", now + 60_000],
    ]);

    // Checked: the next pass hands out nothing of theirs.
    const third = lostQueue();
    await runAndStore({ ...env, RECONCILE: third.queue }, now + 120_000, {
      budget: handOnly(10, 10),
      graceSeconds: 0,
    });
    expect(ours(third.keys())).toEqual([]);
    // The first pass's messages arrive late after all: a check stored since they were sent, so none is made.
    const before = await stored();
    await deliver(first.sent);
    expect(await stored()).toEqual(before);
  });

  it("retries a message whose check could not be stored, and stores it when delivered again", async () => {
    const { id: clientId, key } = await auditedClient();
    await drainTimers(await order(key, [line("DEMO-US-RANGE", 5, 1)]));
    const lost = lostQueue();
    const now = Date.now();
    await runAndStore({ ...env, RECONCILE: lost.queue }, now, { budget: handOnly(10, 10), graceSeconds: 0 });
    const mine = lost.sent.filter((message) => message.days.some((day) => day.clientId === clientId));
    expect(mine).toHaveLength(1);
    const stored = () =>
      env.DB.prepare(`SELECT state FROM reconciliation_days WHERE client_id = ?1`).bind(clientId).first();
    // D1 fails as the consumer stores its decisions (the invocation dies there): the message is retried.
    const failing = new Proxy(env.DB, {
      get(target, name) {
        if (name === "batch") return () => Promise.reject(new Error("D1 is unavailable"));
        const value = Reflect.get(target, name) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await deliver(mine, { ...env, DB: failing }, "retry");
    expect(await stored()).toBeNull();
    await deliver(mine);
    expect(await stored()).toEqual({ state: "sealed" });
  });

  it("caps one client's days a pass, takes the others', and names the client left behind", async () => {
    const storm = uid("storm");
    const stormDays = await timedDays(storm, 30, "due_at");
    const others = await changedDays(uid("quiet"), 3);
    const lost = lostQueue();
    const pass = await runAndStore({ ...env, RECONCILE: lost.queue }, Date.now(), {
      budget: handOnly(100, 5, 8),
      graceSeconds: 0,
    });
    const handed = lost.keys();
    expect(handed.filter((key) => others.includes(key)).sort()).toEqual(others.sort());
    // The longest waiting first: its 8 oldest.
    expect(handed.filter((key) => key.startsWith(storm))).toEqual(stormDays.slice(0, 8));
    expect(pass.alerts).toEqual([`22 wallet-days due were left to the next pass (clients ${storm} 22)`]);
    expect(pass.complete).toBe(false);
  });

  it("takes the next days each pass when fewer can be handed out than are due, round to the start", async () => {
    const prefix = uid("round");
    const days = await changedDays(prefix, 6);
    const passes: string[][] = [];
    const now = Date.now();
    for (let pass = 0; pass < 4; pass += 1) {
      const lost = lostQueue();
      const run = await runAndStore({ ...env, RECONCILE: lost.queue }, now + pass * 300_000, {
        budget: handOnly(2, 2),
        graceSeconds: 0,
      });
      expect(run.alerts).toEqual([
        "the pass took its budget of 2 wallet-days; the days due past it were left to the next pass",
      ]);
      passes.push(lost.keys());
    }
    // Every message lost, so every day stays due: still, three passes hand out all six, each once.
    expect(passes.slice(0, 3)).toEqual([days.slice(0, 2), days.slice(2, 4), days.slice(4, 6)]);
    expect(passes[3]).toEqual(days.slice(0, 2));
  });
});

describe("the hand-out's bounds", () => {
  it("sends the projection's 100,000 days as 1,000 messages, each call within 100 messages and 256 KB", () => {
    const longest = "c".repeat(64);
    const days: DueDay[] = Array.from({ length: BUDGET.handOut }, (_, at) => ({
      clientId: `${longest.slice(0, 58)}${String(at).padStart(6, "0")}`,
      currency: "USD",
      day: 20_500 - (at % 40),
      booksChanges: 1_000_000 + at,
      state: "sealed",
      seal: null,
      firstSeenAt: Date.now(),
      verified: 2,
      why: "verify",
    }));
    const messages = messagesOf(days, { now: Date.now(), settledBy: Date.now() - 600_000 });
    expect(messages).toHaveLength(1_000);
    const sends = sendsOf(messages);
    expect(sends.flat()).toEqual(messages);
    const bytes = (body: unknown) => new TextEncoder().encode(JSON.stringify(body)).length;
    for (const send of sends) {
      expect(send.length).toBeLessThanOrEqual(MESSAGES_A_SEND);
      // The platform counts about 100 bytes of its own a message.
      expect(send.reduce((sum, message) => sum + bytes(message) + 100, 0)).toBeLessThanOrEqual(256_000);
    }
    expect(Math.max(...messages.map(bytes))).toBeLessThan(128_000);
    expect(SEND_BYTES).toBeLessThan(256_000 - MESSAGES_A_SEND * 100);
    console.log(
      `100,000 days handed out: ${messages.length} messages of at most ${Math.max(...messages.map(bytes))} bytes, ` +
        `${sends.length} sendBatch calls; at most ${maxPages(BUDGET)} pages of ${BUDGET.page} read a pass`,
    );
    // A pass's D1 reads of due days stay far under the 1,000 queries one invocation may make.
    expect(maxPages(BUDGET)).toBeLessThanOrEqual(40);
  });
});

/** Delivers `messages` to the queue's consumer as one batch; each is acked (or as `expected` says). */
async function deliver(
  messages: readonly DaysMessage[],
  consumerEnv: typeof env = env,
  expected: "ack" | "retry" = "ack",
): Promise<void> {
  const outcomes: string[] = [];
  const batch = {
    queue: "order-reconciliation",
    messages: messages.map((body, at) => ({
      id: `m${at}`,
      timestamp: new Date(),
      attempts: 1,
      body,
      ack: () => outcomes.push("ack"),
      retry: () => outcomes.push("retry"),
    })),
    ackAll: () => undefined,
    retryAll: () => undefined,
  } as unknown as MessageBatch;
  await checkHandedOut(batch, consumerEnv);
  expect(outcomes).toEqual(messages.map(() => expected));
}
