/**
 * The reconciliation: nothing wrong found with orders of every kind; each tampering of persisted state
 * (a wallet object's SQLite, D1 rows, an order's storage) named by the order or wallet concerned; the run
 * from a checkpoint that resumes, leaves still-changing orders over for at most an hour, and says when a
 * run did not finish; GET /admin/reconciliation, its rate limit and the console's runs (a viewer's stores
 * nothing); the hourly run and the home page.
 */
import { createScheduledController, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BUDGET, reconcile, runAndStore, type Mismatch } from "../../src/reconciliation/reconciliation";
import {
  DEFERRAL_BOUND_MS,
  INDEX_SETTLED_MS,
  isHourlyRun,
  ledgerProblems,
  emptyMoney,
  addLine,
  risingAlert,
  RISING_RUNS,
  RUN_SLACK_MS,
} from "../../src/reconciliation/reconciliation-rules";
import { lastRun, markStarted } from "../../src/reconciliation/reconciliation-store";
import migration0021 from "../../schema/migrations/0021_reconciliation_by_creation.sql?raw";
import { walletName } from "../../src/wallets/ledger";
import { auditedClient, deferred, freshCheckpoint } from "./reconciliation-helpers";
import { chargeKey, moveKey } from "../../src/wallets/ledger-keys";
import type { WalletObject } from "../../src/wallets/wallet-object";
import { admin, snapshot } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { fetchConsole, signedIn } from "../console/console-helpers";
import { confirmOrder, createOrder, line, orderStub, seedDemo, wallet } from "../helpers";
import { OrderStore } from "../../src/orders/order-store";
import {
  ended,
  expectError,
  expectOk,
  expireByAlarm,
  indexNow,
  indexRow,
  rewriteStoredOrder,
  runIndexTimer,
  storedOrder,
  bareIndexRow,
  uid,
  writeIndexRow,
} from "../order-helpers";

const start = Date.now() - 1_000;

beforeAll(seedDemo);

/** Creates (and, unless told otherwise, confirms) an order and waits for its end state. */
async function order(
  key: string,
  productList: unknown[],
  options: { wallet?: string; confirm?: boolean } = {},
): Promise<string> {
  const created = expectOk(
    await createOrder({ productList, wallet: options.wallet ?? "USD", reference: uid("rec") }, key),
  );
  if (options.confirm === false) {
    await indexNow(created.id);
    return created.id;
  }
  expectOk(await confirmOrder(created.id, key));
  await ended(created.id);
  // As the order's `index` timer would have by the time the reconciliation runs.
  await indexNow(created.id);
  return created.id;
}

/** The read-only run over the file's span, with no grace (nothing here is still changing). */
async function reconcileNow(): Promise<Awaited<ReturnType<typeof reconcile>>> {
  return reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 });
}

const problemsOf = (mismatches: readonly Mismatch[], filter: (mismatch: Mismatch) => boolean) =>
  mismatches.filter(filter).map((mismatch) => [mismatch.check, mismatch.problem]);

const ofOrder = async (orderId: string) =>
  problemsOf((await reconcileNow()).mismatches, (mismatch) => mismatch.orderId === orderId);

const ofClient = async (clientId: string) =>
  problemsOf((await reconcileNow()).mismatches, (mismatch) => mismatch.clientId === clientId);

/** Runs SQL inside a wallet object's own SQLite, its append-only triggers dropped: tampering at rest. */
async function tamperWallet(stub: DurableObjectStub<WalletObject>, sql: string, ...bindings: unknown[]) {
  await runInDurableObject(stub, (_instance: WalletObject, state) => {
    state.storage.sql.exec(`DROP TRIGGER IF EXISTS ledger_no_delete`);
    state.storage.sql.exec(`DROP TRIGGER IF EXISTS ledger_no_update`);
    state.storage.sql.exec(sql, ...bindings);
  });
}

describe("orders of every kind", () => {
  it("finds nothing wrong with successful, partial, failed, rejected and inventory orders", async () => {
    const usd = await auditedClient({ USD: "1000" });
    const eur = await auditedClient({ EUR: "1000" });
    const orders = [
      await order(usd.key, [line("DEMO-US-RANGE", 5, 2)]),
      await order(usd.key, [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)]),
      await order(usd.key, [line("DEMO-US-FAILING", 7, 1)]),
      await order(eur.key, [line("DEMO-EU-FIXED", 10, 2)], { wallet: "EUR" }),
    ];
    const rejected = await order(usd.key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    expect(await expireByAlarm(rejected)).toBe(true);
    expect(await Promise.all([...orders, rejected].map(ended))).toEqual([
      "successful",
      "partial",
      "failed",
      "successful",
      "rejected",
    ]);
    await indexNow(rejected);

    const answer = await admin("GET", `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}&grace=0`);
    await expectConforms("GET", "/admin/reconciliation", answer);
    const data = expectOk(answer);
    expect(answer.body.message).toBe("Reconciliation");
    expect(data.mismatches).toEqual([]);
    expect(data.complete).toBe(true);
    expect(data.checked.orders).toBe(5);
    expect(data.checked.wallets).toBe(2);
    // Two top-ups, each with its audit row, and the inventory order's two codes.
    expect(data.checked.postingAudits).toBe(2);
    expect(data.checked.soldCodes).toBe(2);
    expect(data.checked.leftToNextRun).toBe(0);

    // With the default grace, the orders just made are left over, and nothing is called a mismatch.
    const graced = await reconcile(env, { createdFrom: start, createdTo: Date.now() });
    expect(graced.mismatches).toEqual([]);
    expect(graced.checked.leftToNextRun).toBe(5);
  });
});

describe("each tampering names the order or wallet concerned", () => {
  it("an inventory order that delivered its code, with its charge row removed from the ledger", async () => {
    const { id: clientId, key } = await auditedClient({ EUR: "1000" });
    const delivered = await order(key, [line("DEMO-EU-FIXED", 25, 1)], { wallet: "EUR" });
    expect(await ofOrder(delivered)).toEqual([]);
    await tamperWallet(wallet(clientId, "EUR"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(delivered));
    expect(await ofOrder(delivered)).toContainEqual([
      "charge_for_delivery",
      "successful: 1 line delivered, but the ledger holds no charge for the order",
    ]);
    // The wallet's balance no longer sums its ledger either.
    expect(
      (await reconcileNow()).mismatches.filter(
        (mismatch) => mismatch.clientId === clientId && mismatch.check === "balance_matches_ledger",
      ),
    ).not.toEqual([]);
  });

  it("an order's only code moved to another order, or to no order", async () => {
    const { key } = await auditedClient({ EUR: "1000" });
    const first = await order(key, [line("DEMO-EU-FIXED", 25, 1)], { wallet: "EUR" });
    const second = await order(key, [line("DEMO-EU-FIXED", 25, 1)], { wallet: "EUR" });
    expect([...(await ofOrder(first)), ...(await ofOrder(second))]).toEqual([]);
    const code = await env.DB.prepare(`SELECT id FROM codes WHERE order_id = ?1`).bind(first).first<{ id: number }>();

    await env.DB.prepare(`UPDATE codes SET order_id = ?1 WHERE id = ?2`).bind(second, code!.id).run();
    expect(await ofOrder(first)).toEqual([
      ["codes_match_redeem", `code #${code!.id} (DEMO-EU-FIXED) of the order's redeem is sold to ${second}`],
    ]);
    expect(await ofOrder(second)).toEqual([
      ["codes_match_redeem", `code #${code!.id} (DEMO-EU-FIXED) is sold to the order but is not in its redeem`],
    ]);

    await env.DB.prepare(`UPDATE codes SET status = 'available', order_id = NULL, sold_at = NULL WHERE id = ?1`)
      .bind(code!.id)
      .run();
    expect(await ofOrder(first)).toEqual([
      ["codes_match_redeem", `code #${code!.id} (DEMO-EU-FIXED) of the order's redeem is available, sold to no order`],
    ]);
  });

  it("a code sold to no order of this service", async () => {
    const nobody = `ord_${"b".repeat(64)}`;
    const spare = await env.DB.prepare(
      `UPDATE codes SET status = 'sold', order_id = ?1, sold_at = ?2
        WHERE id = (SELECT id FROM codes WHERE sku = 'DEMO-EU-FIXED' AND status = 'available' LIMIT 1) RETURNING id`,
    )
      .bind(nobody, Date.now())
      .first<{ id: number }>();
    expect((await reconcileNow()).mismatches.filter((mismatch) => mismatch.problem.includes(nobody))).toEqual([
      {
        check: "unknown_order",
        orderId: null,
        clientId: null,
        problem: `code #${spare!.id} (DEMO-EU-FIXED) is sold to ${nobody}, which is no order of this service`,
        lookAt: [],
      },
    ]);
  });

  it("an indexed total, charge or state changed", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 2)]);
    const reference = (await storedOrder(done)).reference;
    const rewrite = (set: string) =>
      env.DB.prepare(`UPDATE order_index SET ${set} WHERE client_id = ?1 AND reference = ?2`)
        .bind(clientId, reference)
        .run();
    expect(await ofOrder(done)).toEqual([]);
    await rewrite(`total = '12'`);
    expect(await ofOrder(done)).toEqual([["index_matches_order", "the index says total 12, the order 10"]]);
    await rewrite(`total = '10', charged = '12', state = 'failed'`);
    expect(await ofOrder(done)).toEqual([
      ["index_matches_order", "the index says failed, the order is successful"],
      ["index_matches_order", "the index says charged 12, the order 10"],
    ]);
  });

  it("a sandbox order that delivered, with its charge row removed from the ledger", async () => {
    const { id: clientId, key } = await auditedClient();
    const delivered = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    expect(await ofOrder(delivered)).toEqual([]);
    await tamperWallet(wallet(clientId, "USD"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(delivered));
    expect(await ofOrder(delivered)).toContainEqual([
      "charge_for_delivery",
      "successful: 1 line delivered, but the ledger holds no charge for the order",
    ]);
  });

  it("a move transfer without its pair, and a moved wallet's balance left behind", async () => {
    const { id: clientId, key } = await auditedClient();
    await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    expect((await admin("POST", `/admin/clients/${clientId}/region`, { region: "weur" })).status).toBe(200);
    expect(await ofClient(clientId)).toEqual([]);
    const moved = wallet(clientId, "USD", 1, "weur");
    const move = moveKey(clientId, "USD", 1);
    expect((await moved.entry(move))?.kind).toBe("move_in");

    await tamperWallet(moved, `DELETE FROM ledger WHERE entry_key = ?`, move);
    const problems = await ofClient(clientId);
    expect(problems).toContainEqual([
      "transfer_paired",
      `move_out ${move} of 995 has no move_in in ${walletName(clientId, "USD", 1, "weur")}`,
    ]);
    expect(problems.some(([check]) => check === "balance_matches_ledger")).toBe(true);
  });

  it("a top-up without its audit row, and an audit row without its top-up", async () => {
    const { id: clientId } = await auditedClient();
    const sneaked = await wallet(clientId, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    expect(sneaked.ok).toBe(true);
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    expect(await ofClient(clientId)).toEqual([
      ["posting_audited", `top_up #${seq} of 50 in ${walletName(clientId, "USD")} has no audit row`],
    ]);

    const other = await auditedClient();
    await env.DB.prepare(
      `INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, 'admin', 'wallet.top_up', ?2, 'r', ?3)`,
    )
      .bind(Date.now(), `wallet:${other.id}:USD`, JSON.stringify({ seq: 7, amount: "70" }))
      .run();
    expect(await ofClient(other.id)).toEqual([
      [
        "audit_has_posting",
        expect.stringMatching(
          /^audit row #\d+ \(wallet.top_up of 70\) names entry #7, which the ledger does not hold$/,
        ),
      ],
    ]);
  });

  it("an index row of no order of this service", async () => {
    const nobody = `ord_${"1".repeat(64)}`;
    const at = Date.now() - 500;
    await writeIndexRow(env.DB, bareIndexRow({ id: nobody, clientId: "rec-ghost", createdAt: at, modifiedAt: at }));
    expect(await ofOrder(nobody)).toEqual([
      ["unknown_order", `the index holds a row of rec-ghost for ${nobody}, which is no order of this service`],
    ]);
  });

  it("a ledger movement naming another client's order, standing though nothing names that entry again", async () => {
    await freshCheckpoint();
    const { id: clientId } = await auditedClient();
    const other = await auditedClient();
    const theirs = await order(other.key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: theirs });
    const problem = `the ${clientId} USD ledger names an order of ${other.id} paid in USD`;
    expect(await ofClient(clientId)).toEqual([["ledger_matches_order", problem]]);
    const now = Date.now() + INDEX_SETTLED_MS;
    await runAndStore(env, now, { graceSeconds: 0 });
    // Checked again (its mismatch stands), the order is named by its id alone: the finding stays.
    await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatches.map((mismatch) => mismatch.problem)).toEqual([problem]);
  });

  it("a ledger movement naming no order of this service", async () => {
    const { id: clientId } = await auditedClient();
    const nobody = `ord_${"0".repeat(64)}`;
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: nobody });
    expect(await ofOrder(nobody)).toEqual([
      ["unknown_order", `the ${clientId} USD ledger names ${nobody}, which is no order of this service`],
    ]);
  });
});

describe("the run from a checkpoint", () => {
  beforeEach(freshCheckpoint);

  it("resumes where the last run stopped, within its budget, and says when a run did not finish", async () => {
    const { key } = await auditedClient();
    for (let count = 0; count < 3; count += 1) await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    // A run reads the orders created at least INDEX_SETTLED_MS before it.
    const later = Date.now() + INDEX_SETTLED_MS;
    const small = { ...BUDGET, orders: 2, checkedOrders: 2 };
    const first = await runAndStore(env, later, { budget: small, graceSeconds: 0 });
    expect(first.complete).toBe(false);
    // Two rows of the index read; the third order, named by its charge in the wallet's ledger, is over the
    // budget of orders checked: left over, as the third row is.
    expect(first.checked.orders).toBe(2);
    expect(first.checked.leftToNextRun).toBe(2);
    const second = await runAndStore(env, later + 1, { budget: small, graceSeconds: 0 });
    expect(second.checked.orders).toBe(1);
    expect(second.complete).toBe(true);
    expect(second.alerts).toEqual([]);
    const third = await runAndStore(env, later + 2, { budget: small, graceSeconds: 0 });
    expect(third.checked.orders).toBe(0);

    // A run that died after it started: the next says so.
    await markStarted(env.DB, later + 3);
    const resumed = await runAndStore(env, later + 4, { graceSeconds: 0 });
    expect(resumed.alerts).toEqual([
      `the run started at ${new Date(later + 3).toISOString()} did not finish; this one resumed from its checkpoint`,
    ]);
    expect((await lastRun(env.DB))!.alerts).toEqual(resumed.alerts);
  });

  it("leaves an order still changing to the next run for at most the bound, then checks it", async () => {
    const { id: clientId, key } = await auditedClient();
    const busy = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: busy });
    // A grace of two hours: the order reads as still changing (an upstream line retried every few minutes).
    const graceSeconds = 7_200;
    const now = Date.now();
    const first = await runAndStore(env, now, { graceSeconds });
    expect(first.checked.leftToNextRun).toBe(1);
    expect(first.mismatches.filter((mismatch) => mismatch.orderId === busy)).toEqual([]);
    // Due a little before the hour: the hourly runs come a little more or less than an hour apart.
    const within = await runAndStore(env, now + DEFERRAL_BOUND_MS - RUN_SLACK_MS - 1, { graceSeconds });
    expect(within.checked.ordersPastBound).toBe(0);
    expect(within.mismatches.filter((mismatch) => mismatch.orderId === busy)).toEqual([]);
    const past = await runAndStore(env, now + DEFERRAL_BOUND_MS - RUN_SLACK_MS, { graceSeconds });
    expect(past.checked.ordersPastBound).toBe(1);
    expect(problemsOf(past.mismatches, (mismatch) => mismatch.orderId === busy)).toEqual([
      ["ledger_matches_order", "the ledger refunded 1, the order says 0 (successful)"],
      ["ledger_matches_order", "the order says successful, the ledger kept a charge of 5 and refunded 1"],
    ]);
    expect(past.checked.leftToNextRun).toBe(0);
  });

  it("checks a ledger entry with a mismatch standing again, and clears it once put right", async () => {
    const { id: clientId } = await auditedClient();
    const sneaked = await wallet(clientId, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    const now = Date.now() + INDEX_SETTLED_MS;
    await runAndStore(env, now, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatches.map((mismatch) => mismatch.problem)).toEqual([
      `top_up #${seq} of 50 in ${walletName(clientId, "USD")} has no audit row`,
    ]);
    // Nothing new, past the ledger's cursor: still standing.
    await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(1);
    // Its audit row put back (as a restore would cover it): the next run clears it.
    await env.DB.prepare(
      `INSERT INTO audit_log (at, actor, action, target, request_id, details) VALUES (?1, 'admin', 'wallet.top_up', ?2, 'r', ?3)`,
    )
      .bind(now - 1, `wallet:${clientId}:USD`, JSON.stringify({ seq, amount: "50" }))
      .run();
    await runAndStore(env, now + 2, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(0);
  });

  it("keeps an order still open until it ends, and checks what it did after the feed passed it", async () => {
    const { id: clientId, key } = await auditedClient();
    const open = await order(key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    const first = await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 0 });
    expect(first.mismatches).toEqual([]);
    expect([...(await deferred()).keys()]).toEqual([open]);

    // It expires, unconfirmed: no money moves, so no ledger names it. Its row is then changed at rest.
    expect(await expireByAlarm(open)).toBe(true);
    await indexNow(open);
    const reference = (await storedOrder(open)).reference;
    await env.DB.prepare(`UPDATE order_index SET total = '7' WHERE client_id = ?1 AND reference = ?2`)
      .bind(clientId, reference)
      .run();
    const second = await runAndStore(env, Date.now() + INDEX_SETTLED_MS + 1, { graceSeconds: 0 });
    expect(problemsOf(second.mismatches, (mismatch) => mismatch.orderId === open)).toEqual([
      ["index_matches_order", "the index says total 7, the order 5"],
    ]);
    // Ended and checked: let go.
    expect([...(await deferred()).keys()]).toEqual([]);
  });

  it("checks an order open past the bound in full, and keeps it with its wait counted again", async () => {
    const { key } = await auditedClient();
    const open = await order(key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    const now = Date.now() + INDEX_SETTLED_MS;
    await runAndStore(env, now, { graceSeconds: 0 });
    expect((await deferred()).get(open)).toBe(now);
    const within = await runAndStore(env, now + DEFERRAL_BOUND_MS - RUN_SLACK_MS - 1, { graceSeconds: 0 });
    expect(within.checked.ordersPastBound).toBe(0);
    const past = await runAndStore(env, now + DEFERRAL_BOUND_MS - RUN_SLACK_MS, { graceSeconds: 0 });
    expect(past.checked.ordersPastBound).toBe(1);
    expect(past.checked.leftToNextRun).toBe(1);
    expect((await deferred()).get(open)).toBe(now + DEFERRAL_BOUND_MS - RUN_SLACK_MS);
  });

  it("says so when the count left to the next run has grown three runs in a row", async () => {
    const { key } = await auditedClient();
    const alerts: string[][] = [];
    for (let run = 1; run <= RISING_RUNS; run += 1) {
      await order(key, [line("DEMO-US-RANGE", 5, 1)]);
      // A grace of an hour: every order just made is still changing, left to the next run.
      const result = await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 3_600 });
      expect(result.checked.leftToNextRun).toBe(run);
      alerts.push(result.alerts);
    }
    expect(alerts.slice(0, -1)).toEqual(alerts.slice(0, -1).map(() => []));
    expect(alerts.at(-1)).toEqual([risingAlert(RISING_RUNS, RISING_RUNS)]);
  });

  it("keeps a mismatch standing until a run finds it put right", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const reference = (await storedOrder(done)).reference;
    const setTotal = (total: string) =>
      env.DB.prepare(`UPDATE order_index SET total = ?3 WHERE client_id = ?1 AND reference = ?2`)
        .bind(clientId, reference, total)
        .run();
    await setTotal("7");
    const now = Date.now() + INDEX_SETTLED_MS;
    await runAndStore(env, now, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatches.map((mismatch) => mismatch.orderId)).toEqual([done]);
    // A run with nothing new still shows it.
    await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(1);
    await setTotal("5");
    await runAndStore(env, now + 2, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatchCount).toBe(0);
  });
});

describe("GET /admin/reconciliation", () => {
  it("refuses a bad period with 400, changing nothing", async () => {
    const before = await snapshot();
    const now = Date.now();
    for (const query of [
      `createdFrom=${now}&createdTo=${now - 1}`,
      `createdFrom=${now - 32 * 86_400_000}&createdTo=${now}`,
      `createdFrom=yesterday&createdTo=${now}`,
      `createdFrom=${now}`,
      `createdFrom=${now - 1000}&createdTo=${now}&grace=-1`,
      `createdFrom=${now - 1000}&createdTo=${now}&grace=soon`,
    ]) {
      const answer = await admin("GET", `/admin/reconciliation?${query}`);
      expectError(answer, 400, "Invalid path or query parameters", "invalid_parameters");
    }
    expect(await snapshot()).toEqual(before);
  });

  it("is a viewer's to read, 3 times a minute, and stores nothing", async () => {
    const created = await admin("POST", "/admin/operators", { name: "Val Viewer", role: "viewer" });
    const viewer = created.body.data;
    const stored = await lastRun(env.DB);
    const query = `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}`;
    for (let count = 0; count < 3; count += 1)
      expect((await admin("GET", query, undefined, { token: viewer.token })).status).toBe(200);
    const refused = await admin("GET", query, undefined, { token: viewer.token });
    expectError(refused, 429, "Too many requests", "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("60");
    // Another operator has runs of their own.
    expect((await admin("GET", query)).status).toBe(200);
    expect(await lastRun(env.DB)).toEqual(stored);
  });
});

describe("the rules", () => {
  it("runs hourly: the cron firing due in the first 5 minutes of an hour", () => {
    const hour = Date.UTC(2026, 10, 25, 14);
    expect(isHourlyRun(hour)).toBe(true);
    expect(isHourlyRun(hour + 4 * 60_000 + 59_999)).toBe(true);
    expect(isHourlyRun(hour + 5 * 60_000)).toBe(false);
    expect(isHourlyRun(hour + 55 * 60_000)).toBe(false);
    expect(isHourlyRun(hour - 1)).toBe(false);
  });

  it("accepts a rejected order whose cut-off charge was voided back", () => {
    let lines = addLine(emptyMoney("c", "USD"), "order_charge", "-5", 1, true);
    lines = addLine(lines, "order_void", "5", 2, true);
    expect(ledgerProblems({ state: "rejected", wallet: "USD", charged: "0", refunded: "0" }, lines)).toEqual([]);
    expect(ledgerProblems({ state: "rejected", wallet: "EUR", charged: "0", refunded: "0" }, lines)).toEqual([
      "the USD ledger names the order, which says it is paid in EUR",
    ]);
  });

  it("alerts when the count left to the next run has grown several runs in a row", () => {
    expect(risingAlert(RISING_RUNS - 1, 40)).toBeNull();
    expect(risingAlert(RISING_RUNS, 40)).toBe(
      `the count left to the next run has grown ${RISING_RUNS} runs in a row: 40 now; the runs are not keeping up`,
    );
  });
});

describe("the hourly run and the console", () => {
  beforeEach(freshCheckpoint);

  it("runs on the hour, stores what it found, and the attention list and home page show it", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: done });

    const notOnTheHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * 60_000;
    await worker.scheduled(createScheduledController({ scheduledTime: notOnTheHour, cron: "*/5 * * * *" }), env);
    expect(await lastRun(env.DB)).toBeNull();

    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await worker.scheduled(createScheduledController({ scheduledTime: hour, cron: "*/5 * * * *" }), env);
    const scheduled = await lastRun(env.DB);
    expect(scheduled!.ranAt).toBeGreaterThanOrEqual(Date.now() - 60_000);
    // Just made: left to the next run.
    expect(scheduled!.checked.leftToNextRun).toBeGreaterThan(0);

    await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 0 });
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
    expect(limited.text).toContain("wait a minute");

    const operator = await signedIn("operator");
    const ran = await fetchConsole("POST", "/console/reconciliation", { cookie: operator });
    expect(ran.status).toBe(303);
    expect(ran.headers.get("location")).toBe("/console/reconciliation?done=run");
    expect((await lastRun(env.DB))!.ranAt).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("what a run costs", () => {
  beforeEach(freshCheckpoint);

  it("reads only what changed: no idle wallet is opened, and the calls grow with the changes", async () => {
    const idle = await auditedClient();
    await order(idle.key, [line("DEMO-US-RANGE", 5, 1)]);
    await freshCheckpoint();
    const busy = await auditedClient();
    const changed = 10;
    for (let count = 0; count < changed; count += 1) await order(busy.key, [line("DEMO-US-RANGE", 5, 1)]);

    const opened: string[] = [];
    const watch = (namespace: object, kind: string) => {
      const prototype = Object.getPrototypeOf(namespace) as {
        get: (id: DurableObjectId, ...rest: unknown[]) => unknown;
      };
      const original = prototype.get;
      prototype.get = function (this: unknown, id: DurableObjectId, ...rest: unknown[]) {
        opened.push(`${kind}:${id.toString()}`);
        return original.call(this, id, ...rest);
      };
      return () => (prototype.get = original);
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
    const unwatch = [watch(env.WALLETS, "wallet"), watch(env.ORDERS, "order")];
    const began = performance.now();
    let run;
    try {
      run = await runAndStore({ ...env, DB: db }, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 0 });
    } finally {
      for (const undo of unwatch) undo();
    }
    const took = performance.now() - began;
    const idleWallet = env.WALLETS.idFromName(walletName(idle.id, "USD")).toString();
    expect(opened).not.toContain(`wallet:${idleWallet}`);
    // The changed orders (and any order of an earlier test that changed since: timers still run).
    expect(run.checked.orders).toBeGreaterThanOrEqual(changed);
    const orderCalls = opened.filter((call) => call.startsWith("order:")).length;
    const walletCalls = opened.filter((call) => call.startsWith("wallet:")).length;
    // Each order checked: its record once, and its lines from each object of its wallet.
    expect(orderCalls).toBeGreaterThanOrEqual(run.checked.orders);
    expect(walletCalls).toBeGreaterThanOrEqual(run.checked.orders);
    console.log(
      `reconciliation run over ${run.checked.orders} orders and ${run.checked.wallets} wallets: ${orderCalls} order calls, ` +
        `${walletCalls} wallet calls, ${statements} D1 statements, ${took.toFixed(0)} ms`,
    );
  });
});

describe("migration 0021: the feed of orders by creation", () => {
  it("keeps the checkpoint, and leaves over the orders changed since it that it passed", async () => {
    const statements = migration0021
      .replace(/--.*$/gm, "")
      .split(";")
      .map((statement) => statement.trim())
      .filter((statement) => statement !== "");
    const client = uid("mig");
    // Orders the old feed read (changed by 200), and one created at 50 and changed at 300, after it; rows
    // of version 0, as the ledger indexer wrote them, which migration 0022's trigger leaves alone.
    const rows: [string, number, number][] = [
      ["ord_mig_a", 100, 100],
      ["ord_mig_b", 50, 300],
      ["ord_mig_c", 200, 200],
    ];
    await env.DB.batch([
      env.DB.prepare(`CREATE INDEX order_index_changed ON order_index (modified_at, id)`),
      env.DB.prepare(`DELETE FROM reconciliation_checkpoint`),
      env.DB.prepare(`INSERT INTO reconciliation_checkpoint (id, orders_at, orders_id) VALUES (1, 200, 'ord_mig_c')`),
      ...rows.map(([id, createdAt, modifiedAt]) =>
        env.DB.prepare(
          `INSERT INTO order_index (client_id, created_at, id, reference, state, wallet, total, charged, refunded,
             skus, lines, modified_at, expires_at, stage, version)
           VALUES (?1, ?2, ?3, ?3, 'successful', 'USD', '1', '1', '0', '[]', '[]', ?4, 0, 2, 0)`,
        ).bind(client, createdAt, id, modifiedAt),
      ),
    ]);
    await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
    // The checkpoint stays; the order changed since it (created before it) is left over to the next run.
    expect(await env.DB.prepare(`SELECT orders_at, orders_id FROM reconciliation_checkpoint`).first()).toEqual({
      orders_at: 200,
      orders_id: "ord_mig_c",
    });
    expect([...(await deferred()).keys()].filter((id) => id.startsWith("ord_mig_"))).toEqual(["ord_mig_b"]);
    await env.DB.prepare(`DELETE FROM reconciliation_deferred WHERE order_id LIKE 'ord_mig_%'`).run();
    expect(
      await env.DB.prepare(`SELECT name FROM sqlite_master WHERE name = 'order_index_changed'`).first(),
    ).toBeNull();
    await env.DB.prepare(`DELETE FROM order_index WHERE client_id = ?1`).bind(client).run();
  });
});

/**
 * What the feed by creation could let escape, and does not: a row written late, a deferred order's wallet,
 * more orders left over than a run reads, runs a little under an hour apart, the budget of ledger pages, an
 * order open across migration 0021.
 */
describe("nothing escapes the feed by creation", () => {
  beforeEach(freshCheckpoint);

  it("checks an order whose first index write landed after a run passed its creation, once it changes", async () => {
    const a = await auditedClient();
    const b = await auditedClient();
    const late = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("rec") }, a.key),
    ).id as string;
    // Its index writes fail for two minutes (D1 overloaded at a peak: the timer retries after 2 s, 4 s,
    // 8 s, … up to 5 min): as if created two minutes ago and not yet in the index.
    await rewriteStoredOrder(late, (doc) => {
      doc.createdAt -= 120_000;
    });
    await runInDurableObject(orderStub(late), (_instance, state) => new OrderStore(state.storage).clearTimer("index"));
    await order(b.key, [line("DEMO-US-RANGE", 5, 1)]);
    // A run reads the orders created up to a minute ago, `other` among them: the checkpoint passes `late`.
    const first = await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 0 });
    expect(first.checked.orders).toBeGreaterThanOrEqual(1);
    expect(await indexRow(late)).toBeNull();
    // The write lands (still open); the order is then confirmed and delivers; its charge goes from the ledger.
    await indexNow(late);
    expectOk(await confirmOrder(late, a.key));
    expect(await ended(late)).toBe("successful");
    await indexNow(late);
    await tamperWallet(wallet(a.id, "USD"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(late));
    const runs = [];
    for (let hour = 1; hour <= 3; hour += 1)
      runs.push(await runAndStore(env, Date.now() + INDEX_SETTLED_MS + hour * DEFERRAL_BOUND_MS, { graceSeconds: 0 }));
    // Its late first row put it among the orders left over (migration 0022), read until it ends.
    expect(runs.flatMap((run) => problemsOf(run.mismatches, (mismatch) => mismatch.orderId === late))).toContainEqual([
      "charge_for_delivery",
      "successful: 1 line delivered, but the ledger holds no charge for the order",
    ]);
  });

  it("reads the wallet of a deferred order that moved money when it ended", async () => {
    const a = await auditedClient();
    const open = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("rec") }, a.key),
    ).id as string;
    // Created two minutes ago (so that runs at the present read it), indexed in time.
    const { createdAt } = await rewriteStoredOrder(open, (doc) => {
      doc.createdAt -= 120_000;
    });
    await runInDurableObject(orderStub(open), (_instance, state) => new OrderStore(state.storage).clearTimer("index"));
    await indexNow(open);
    await env.DB.prepare(`UPDATE reconciliation_checkpoint SET orders_at = ?1, orders_id = ''`)
      .bind(createdAt - 1)
      .run();
    await runAndStore(env, Date.now(), { graceSeconds: 0 });
    expect((await deferred()).has(open)).toBe(true);
    // A top-up without its audit row lands in the wallet; then the order is confirmed (charged) and ends.
    const sneaked = await wallet(a.id, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    expectOk(await confirmOrder(open, a.key));
    expect(await ended(open)).toBe("successful");
    await indexNow(open);
    const second = await runAndStore(env, Date.now(), { graceSeconds: 0 });
    // The order was checked (it was deferred), and let go...
    expect((await deferred()).has(open)).toBe(false);
    // ...and its wallet, whose ledger holds its charge and the sneaked top-up, was read.
    expect(second.mismatches.map((mismatch) => mismatch.problem)).toContain(
      `top_up #${seq} of 50 in ${walletName(a.id, "USD")} has no audit row`,
    );
  });

  it("checks each order kept open within the bound, or says it cannot (deferred beyond the budget)", async () => {
    const { key } = await auditedClient();
    // Three orders that stay open (as upstream lines of unknown outcome do: retried for good).
    const open = [];
    for (let count = 0; count < 3; count += 1)
      open.push(await order(key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false }));
    const budget = { ...BUDGET, deferred: 1 };
    const base = Date.now() + INDEX_SETTLED_MS;
    const runs = [];
    for (let hour = 0; hour <= 3; hour += 1) {
      const before = new Map(await deferred());
      const run = await runAndStore(env, base + hour * DEFERRAL_BOUND_MS, { budget, graceSeconds: 0 });
      runs.push({ run, before, after: await deferred() });
    }
    // After the first run all three are kept; each later run reads one of them (the budget), so one of
    // them waits longer than the bound between checks, while the count left over stays at 3: an alert says so.
    const lastChecked = new Map(open.map((id) => [id, base]));
    let longest = 0;
    for (const [hour, { before, after }] of runs.entries()) {
      if (hour === 0) continue;
      const at = base + hour * DEFERRAL_BOUND_MS;
      for (const id of open) if (after.get(id) !== before.get(id)) lastChecked.set(id, at);
      for (const id of open) longest = Math.max(longest, at - lastChecked.get(id)!);
    }
    const alerts = runs.flatMap(({ run }) => run.alerts);
    expect(longest <= DEFERRAL_BOUND_MS || alerts.length > 0).toBe(true);
  });

  it("checks an order open and still changing in full at each hourly run (runs a little under an hour apart)", async () => {
    const { key } = await auditedClient();
    await order(key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    // A grace of two hours: the order reads as still changing (an upstream line retried every 5 minutes).
    const graceSeconds = 7_200;
    const base = Date.now() + INDEX_SETTLED_MS;
    // The hourly runs take Date.now() after the inventory sweep: a few ms either side of an hour apart.
    const times = [
      base,
      base + DEFERRAL_BOUND_MS,
      base + 2 * DEFERRAL_BOUND_MS - 50,
      base + 3 * DEFERRAL_BOUND_MS - 100,
    ];
    const past = [];
    for (const at of times) past.push((await runAndStore(env, at, { graceSeconds })).checked.ordersPastBound);
    // Checked in full at every run after the first, though the third comes 59:59.95 after the second.
    expect(past).toEqual([0, 1, 1, 1]);
  });

  it("reads every named wallet's ledger, or says the run is incomplete (the budget of ledger pages)", async () => {
    // The budget counts the pages after each object's first: a named wallet's ledger is always read.
    const budget = { ...BUDGET, ledgerPages: 1 };
    const clients = [await auditedClient(), await auditedClient()];
    const problems = [];
    for (const { id } of clients) {
      const sneaked = await wallet(id, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
      problems.push(`top_up #${sneaked.ok ? sneaked.entry.seq : 0} of 50 in ${walletName(id, "USD")} has no audit row`);
    }
    const run = await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { budget, graceSeconds: 0 });
    const found = run.mismatches.map((mismatch) => mismatch.problem);
    expect(problems.every((problem) => found.includes(problem)) || !run.complete).toBe(true);
  });

  it("migration 0021: carries the orders open at the migration into the deferred orders", async () => {
    const statements = migration0021
      .replace(/--.*$/gm, "")
      .split(";")
      .map((statement) => statement.trim())
      .filter((statement) => statement !== "");
    const { id: clientId, key } = await auditedClient();
    // An order the feed by change time read while open (its last write before the checkpoint).
    const open = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("rec") }, key),
    ).id as string;
    await runIndexTimer(open);
    const row = (await indexRow(open))!;
    await env.DB.batch([
      env.DB.prepare(`CREATE INDEX order_index_changed ON order_index (modified_at, id)`),
      env.DB.prepare(`UPDATE reconciliation_checkpoint SET orders_at = ?1, orders_id = 'ord_~'`).bind(
        (row.modified_at as number) + 1,
      ),
    ]);
    await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
    // Delivered after the migration, its charge then removed.
    expectOk(await confirmOrder(open, key));
    expect(await ended(open)).toBe("successful");
    await indexNow(open);
    await tamperWallet(wallet(clientId, "USD"), `DELETE FROM ledger WHERE entry_key = ?`, chargeKey(open));
    const run = await runAndStore(env, Date.now() + INDEX_SETTLED_MS, { graceSeconds: 0 });
    expect(problemsOf(run.mismatches, (mismatch) => mismatch.orderId === open)).toContainEqual([
      "charge_for_delivery",
      "successful: 1 line delivered, but the ledger holds no charge for the order",
    ]);
  });
});
