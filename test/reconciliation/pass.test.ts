/**
 * The reconciliation's pass (every 5 minutes, and an operator's run from the console): it follows the
 * books' changes by wallet and day, seals what agrees and leaves it alone until it changes or its
 * re-verification comes, reopens only the day a late change touches, waits for a day still settling up to
 * the bound, keeps a mismatch standing until it is put right, says when it did not finish or left days to
 * the next pass (naming the clients), and opens no wallet that did nothing.
 */
import { createScheduledController, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { dayOf, shardName } from "../../src/books/shard-rules";
import { DAY_MS, nextVerification, SETTLE_BOUND_MS, SETTLE_RECHECK_MS } from "../../src/reconciliation/day-rules";
import { BUDGET, runAndStore, type Mismatch } from "../../src/reconciliation/reconciliation";
import { lastRun, markStarted } from "../../src/reconciliation/reconciliation-store";
import { walletName } from "../../src/wallets/ledger";
import { chargeKey } from "../../src/wallets/ledger-keys";
import { admin } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { fetchConsole, signedIn } from "../console/console-helpers";
import { line, seedDemo, wallet } from "../helpers";
import { expectOk, runIndexTimer, uid } from "../order-helpers";
import { auditedClient, freshCheckpoint, order, publish, tamperWallet } from "./reconciliation-helpers";

beforeAll(seedDemo);
beforeEach(freshCheckpoint);

const problemsOf = (mismatches: readonly Mismatch[], filter: (mismatch: Mismatch) => boolean) =>
  mismatches.filter(filter).map((mismatch) => [mismatch.check, mismatch.problem]);

async function dayRow(clientId: string, currency = "USD") {
  return env.DB.prepare(
    `SELECT state, books_changes, checked_at, due_at, verify_at, verified FROM reconciliation_days
      WHERE client_id = ?1 AND currency = ?2 AND day = ?3`,
  )
    .bind(clientId, currency, dayOf(Date.now()))
    .first<{
      state: string;
      books_changes: number;
      checked_at: number;
      due_at: number | null;
      verify_at: number | null;
      verified: number;
    }>();
}

describe("the pass by wallet and day", () => {
  it("seals a day that agrees, leaves it alone, and re-verifies it a day later, finding a tampering", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const now = Date.now();
    const first = await runAndStore(env, now, { graceSeconds: 0 });
    expect(first.mismatches).toEqual([]);
    expect(first.checked.days).toBe(1);
    expect(first.checked.sealedDays).toBe(1);
    expect(await dayRow(clientId)).toMatchObject({ state: "sealed", checked_at: now, due_at: null });
    expect((await dayRow(clientId))!.verify_at).toBe(nextVerification(now, 0));

    // Nothing changed: the next pass reads no day at all.
    await tamperWallet(wallet(clientId, "USD"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(done));
    const idle = await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect(idle.checked.days).toBe(0);
    expect(idle.mismatches).toEqual([]);

    // A day later, its re-verification finds what changed since its seal.
    const verified = await runAndStore(env, now + DAY_MS, { graceSeconds: 0 });
    expect(verified.checked.days).toBe(1);
    expect(problemsOf(verified.mismatches, (mismatch) => mismatch.orderId === done)).toContainEqual([
      "charge_for_delivery",
      "successful: 1 line delivered, but the ledger holds no charge for the order",
    ]);
    expect((await dayRow(clientId))!.state).toBe("mismatch");
  });

  it("re-verifies a sealed day 1, 7 and 30 days after its seal, then no more", async () => {
    const { id: clientId, key } = await auditedClient();
    await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const now = Date.now();
    await runAndStore(env, now, { graceSeconds: 0 });
    let at = now;
    for (const days of [1, 7, 30]) {
      at = now + days * DAY_MS;
      expect((await dayRow(clientId))!.verify_at).toBe(at);
      const pass = await runAndStore(env, at, { graceSeconds: 0 });
      expect(pass.checked.days).toBe(1);
      expect(pass.checked.sealedDays).toBe(1);
    }
    expect(await dayRow(clientId)).toMatchObject({ state: "sealed", verified: 3, verify_at: null });
    expect((await runAndStore(env, at + 365 * DAY_MS, { graceSeconds: 0 })).checked.days).toBe(0);
  });

  it("ends a sealed day's re-verifications once its books are dropped by their retention", async () => {
    const { id: clientId, key } = await auditedClient();
    await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const now = Date.now();
    await runAndStore(env, now, { graceSeconds: 0 });
    // Kept 31 days (the least), and its next re-verification due 32 days on (held up, say): past retention
    // by then, its books dropped by the scheduled job.
    await env.DB.prepare(`INSERT OR REPLACE INTO books_retention (id, days, set_at, set_by) VALUES (1, 31, ?1, 'test')`)
      .bind(now)
      .run();
    await env.DB.prepare(`UPDATE reconciliation_days SET verify_at = ?2 WHERE client_id = ?1`)
      .bind(clientId, now + 32 * DAY_MS)
      .run();
    try {
      const pass = await runAndStore(env, now + 32 * DAY_MS, { graceSeconds: 0 });
      expect(pass.checked.days).toBe(0);
      expect(pass.mismatches).toEqual([]);
      expect(await dayRow(clientId)).toMatchObject({ state: "sealed", verify_at: null });
    } finally {
      await env.DB.prepare(`DELETE FROM books_retention`).run();
    }
  });

  it("reopens only the day a late change touches", async () => {
    const a = await auditedClient();
    const b = await auditedClient();
    await order(a.key, [line("DEMO-US-RANGE", 5, 1)]);
    await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
    const now = Date.now();
    await runAndStore(env, now, { graceSeconds: 0 });
    const bBefore = await dayRow(b.id);

    // A's day changes (a late order, as a late refund or row would): its shard publishes the change.
    await order(a.key, [line("DEMO-US-RANGE", 5, 1)]);
    await publish(a.id);
    const later = await runAndStore(env, now + 60_000, { graceSeconds: 0 });
    expect(later.checked.days).toBe(1);
    expect(later.mismatches).toEqual([]);
    expect((await dayRow(a.id))!.checked_at).toBe(now + 60_000);
    expect((await dayRow(a.id))!.books_changes).toBeGreaterThan(0);
    expect(await dayRow(b.id)).toEqual(bBefore);
  });

  it("waits for a day still settling up to the bound, then drills it, saying so with the client's name", async () => {
    const { id: clientId, key } = await auditedClient();
    const busy = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: busy });
    // A grace of two hours: the refund reads as still on its way (an upstream line retried for a while).
    const graceSeconds = 7_200;
    const now = Date.now();
    const first = await runAndStore(env, now, { graceSeconds });
    expect(first.mismatches).toEqual([]);
    expect(first.checked.leftToNextRun).toBe(1);
    expect(await dayRow(clientId)).toMatchObject({ state: "open", due_at: now + SETTLE_RECHECK_MS });
    const within = await runAndStore(env, now + SETTLE_BOUND_MS - 1, { graceSeconds });
    expect(within.mismatches).toEqual([]);
    expect(within.checked.days).toBe(1);
    // Due again 5 minutes after that check, past the bound.
    const past = await runAndStore(env, now + SETTLE_BOUND_MS - 1 + SETTLE_RECHECK_MS, { graceSeconds });
    expect(problemsOf(past.mismatches, (mismatch) => mismatch.orderId === busy)).toEqual([
      ["ledger_matches_order", "the ledger refunded 1, the order says 0 (successful)"],
      ["ledger_matches_order", "the order says successful, the ledger kept a charge of 5 and refunded 1"],
    ]);
    expect(past.checked.ordersPastBound).toBe(1);
    expect(past.alerts).toContainEqual(
      expect.stringMatching(new RegExp(`^client ${clientId}: its USD day .* has not settled for 65 minutes`)),
    );
  });

  it("keeps a mismatch standing until a check of its day finds it put right", async () => {
    const { id: clientId } = await auditedClient();
    const sneaked = await wallet(clientId, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    const now = Date.now();
    await runAndStore(env, now, { graceSeconds: 0 });
    const problem = `top_up #${seq} of 50 in ${walletName(clientId, "USD")} has no audit row`;
    expect((await lastRun(env.DB))!.mismatches.map((mismatch) => mismatch.problem)).toEqual([problem]);
    // A pass before the day is due again: still standing.
    await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(1);
    // Its audit row put back: the next check of the day (due again while it disagrees) clears it.
    await env.DB.prepare(
      `INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, 'admin', 'wallet.top_up', ?2, 'r', ?3)`,
    )
      .bind(now - 1, `wallet:${clientId}:USD`, JSON.stringify({ seq, amount: "50" }))
      .run();
    await runAndStore(env, now + SETTLE_RECHECK_MS, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(0);
    expect((await dayRow(clientId))!.state).toBe("sealed");
  });

  it("says when a pass did not finish, and when it left days to the next, naming their clients", async () => {
    const a = await auditedClient();
    const b = await auditedClient();
    await order(a.key, [line("DEMO-US-RANGE", 5, 1)]);
    await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
    const now = Date.now();
    const small = { ...BUDGET, days: 1, handOut: 0 };
    const first = await runAndStore(env, now, { budget: small, graceSeconds: 0 });
    expect(first.checked.days).toBe(1);
    expect(first.complete).toBe(false);
    // It stops at its budget, the other day unread or left: the clients it knows behind are named, with their days.
    expect(first.alerts).toEqual([
      expect.stringMatching(
        new RegExp(
          `^the pass took its budget of 1 wallet-days; the days due past it were left to the next pass( \\(clients (${a.id}|${b.id}) 1\\))?$`,
        ),
      ),
    ]);
    const second = await runAndStore(env, now + 1, { budget: small, graceSeconds: 0 });
    expect(second.checked.days).toBe(1);
    expect(second.alerts).toEqual([]);
    expect(second.complete).toBe(true);
    expect((await dayRow(a.id))!.state).toBe("sealed");
    expect((await dayRow(b.id))!.state).toBe("sealed");

    await markStarted(env.DB, now + 2);
    const resumed = await runAndStore(env, now + 3, { graceSeconds: 0 });
    expect(resumed.alerts).toEqual([
      `the run started at ${new Date(now + 2).toISOString()} did not finish; this one resumed from its checkpoint`,
    ]);
    expect((await lastRun(env.DB))!.alerts).toEqual(resumed.alerts);
  });
});

describe("the queue", () => {
  it("hands the days beyond the pass's own to the queue, whose consumer checks and stores them", async () => {
    const a = await auditedClient();
    const b = await auditedClient();
    await order(a.key, [line("DEMO-US-RANGE", 5, 1)]);
    const victim = await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
    await tamperWallet(wallet(b.id, "USD"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(victim));
    const pass = await runAndStore(env, Date.now(), { budget: { ...BUDGET, days: 1, handOut: 10 }, graceSeconds: 0 });
    expect(pass.checked.days).toBe(1);
    expect(pass.checked.handedOut).toBe(1);
    expect(pass.alerts).toEqual([]);
    // The consumer's check of the other day is stored within seconds, as the pass's own is.
    const rows = async () =>
      (
        await env.DB.prepare(
          `SELECT client_id, state FROM reconciliation_days WHERE client_id IN (?1, ?2) ORDER BY client_id`,
        )
          .bind(a.id, b.id)
          .all<{ client_id: string; state: string }>()
      ).results;
    for (let wait = 0; wait < 100 && (await rows()).length < 2; wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Object.fromEntries((await rows()).map((row) => [row.client_id, row.state]))).toEqual({
      [a.id]: "sealed",
      [b.id]: "mismatch",
    });
    const found = await env.DB.prepare(`SELECT check_name FROM reconciliation_findings WHERE order_id = ?1`)
      .bind(victim)
      .all<{ check_name: string }>();
    expect(found.results.map((row) => row.check_name)).toContain("charge_for_delivery");
  });
});

describe("the scheduled pass and the console", () => {
  it("runs at every firing of the cron, stores what it found, and the attention list and home page show it", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: done });

    const notOnTheHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * 60_000;
    await worker.scheduled(createScheduledController({ scheduledTime: notOnTheHour, cron: "*/5 * * * *" }), env);
    const scheduled = await lastRun(env.DB);
    expect(scheduled!.ranAt).toBeGreaterThanOrEqual(Date.now() - 60_000);
    // Just made: the day settles first.
    expect(scheduled!.checked.leftToNextRun).toBeGreaterThan(0);

    await runAndStore(env, Date.now() + SETTLE_RECHECK_MS, { graceSeconds: 0 });
    const stored = await lastRun(env.DB);
    expect(stored!.mismatches.map((mismatch) => mismatch.orderId)).toContain(done);

    const attention = await admin("GET", "/admin/attention");
    await expectConforms("GET", "/admin/attention", attention);
    expect(expectOk(attention).reconciliation.mismatchCount).toBe(stored!.mismatchCount);

    const viewer = await signedIn("viewer");
    const home = await fetchConsole("GET", "/console", { cookie: viewer });
    expect(home.text).toContain(`Reconciliation mismatches (${stored!.mismatchCount})`);
    expect(home.text).toContain(`href="/console/orders/${done}"`);
  });

  it("a viewer's run from the console is shown, not stored; an operator's is stored; both are rate-limited", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: done });
    const before = await env.DB.prepare(`SELECT COUNT(*) AS n FROM reconciliation_findings`).first();

    const viewer = await signedIn("viewer");
    const viewed = await fetchConsole("POST", "/console/reconciliation", { cookie: viewer });
    expect(viewed.status).toBe(200);
    expect(viewed.text).toContain("nothing was stored");
    expect(await lastRun(env.DB)).toBeNull();
    expect(await env.DB.prepare(`SELECT COUNT(*) AS n FROM reconciliation_findings`).first()).toEqual(before);
    await fetchConsole("POST", "/console/reconciliation", { cookie: viewer });
    await fetchConsole("POST", "/console/reconciliation", { cookie: viewer });
    const limited = await fetchConsole("POST", "/console/reconciliation", { cookie: viewer });
    expect(limited.status).toBe(429);
    expect(limited.text).toContain("wait a minute");

    const operator = await signedIn("operator");
    const ran = await fetchConsole("POST", "/console/reconciliation", { cookie: operator });
    expect(ran.status).toBe(303);
    expect(ran.headers.get("location")).toBe("/console/reconciliation?notice=run");
    expect((await lastRun(env.DB))!.ranAt).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("what a pass costs", () => {
  it("reads only the days that changed: no idle wallet or order is opened", async () => {
    const idle = await auditedClient();
    const orderIds = [await order(idle.key, [line("DEMO-US-RANGE", 5, 1)])];
    await freshCheckpoint();
    const busy = await auditedClient();
    const changed = 10;
    for (let count = 0; count < changed; count += 1)
      orderIds.push(await order(busy.key, [line("DEMO-US-RANGE", 5, 1)]));
    // The orders' own `index` timers run now, not during the pass: on a loaded machine a timer due 2 s after
    // its order would otherwise open its shard (the idle client's too) while the pass is being watched.
    for (const orderId of orderIds) await runIndexTimer(orderId);
    // So do the wallets' alarms, which hand their events (the opening top-up's wallet.funded) to the books.
    for (const clientId of [idle.id, busy.id])
      await runDurableObjectAlarm(env.WALLETS.get(env.WALLETS.idFromName(walletName(clientId, "USD"))));

    const opened: string[] = [];
    // Every namespace shares one prototype: its `get` is watched once, each call named by its namespace.
    const prototype = Object.getPrototypeOf(env.WALLETS) as {
      get: (id: DurableObjectId, ...rest: unknown[]) => unknown;
    };
    const original = prototype.get;
    const kinds = new Map<unknown, string>([
      [env.WALLETS, "wallet"],
      [env.ORDERS, "order"],
      [env.BOOKS, "books"],
    ]);
    prototype.get = function (this: unknown, id: DurableObjectId, ...rest: unknown[]) {
      opened.push(`${kinds.get(this) ?? "other"}:${id.toString()}`);
      return original.call(this, id, ...rest);
    };
    let statements = 0;
    const db = new Proxy(env.DB, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        if (name === "prepare")
          return (sql: string) => {
            statements += 1;
            return target.prepare(sql);
          };
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const began = performance.now();
    let run;
    try {
      run = await runAndStore({ ...env, DB: db }, Date.now(), { graceSeconds: 0 });
    } finally {
      prototype.get = original;
    }
    const took = performance.now() - began;
    expect(run.mismatches).toEqual([]);
    const idleWallet = env.WALLETS.idFromName(walletName(idle.id, "USD")).toString();
    expect(opened).not.toContain(`wallet:${idleWallet}`);
    // One day of one wallet: its books (one part), its ledger (one object; and its opening top-up's entry,
    // which the audit row's feed reads), and no order drilled into.
    expect(run.checked.days).toBe(1);
    const calls = (kind: string) => opened.filter((call) => call.startsWith(`${kind}:`)).length;
    // Only the changed day's objects (an order's own timer running meanwhile may open its shard too).
    const busyShard = env.BOOKS.idFromName(
      shardName({ clientId: busy.id, day: dayOf(Date.now()), part: 0 }),
    ).toString();
    const busyWallet = env.WALLETS.idFromName(walletName(busy.id, "USD")).toString();
    expect([...new Set(opened)].sort()).toEqual([`books:${busyShard}`, `wallet:${busyWallet}`].sort());
    expect(calls("order")).toBe(0);
    console.log(
      `reconciliation pass over 1 wallet-day of ${changed} orders: ${calls("books")} books, ${calls("wallet")} wallet ` +
        `and ${calls("order")} order calls, ${statements} D1 statements, ${took.toFixed(0)} ms`,
    );
  });
});
