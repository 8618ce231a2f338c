/**
 * The reconciliation of orders, ledgers and codes (GET /admin/reconciliation): no mismatch for orders of
 * every kind, each check finding a planted mismatch, an open order counted and not a mismatch, bad
 * periods refused; the hourly run of the scheduled job and its stored result.
 */
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { chargeKey } from "../../src/wallets/ledger-keys";
import { reconcile } from "../../src/reconciliation/reconciliation";
import {
  DEFAULT_GRACE_SECONDS,
  isHourlyRun,
  ledgerProblems,
  emptyMoney,
  addLine,
} from "../../src/reconciliation/reconciliation-rules";
import { lastRun } from "../../src/reconciliation/reconciliation-store";
import { admin, auditActions, snapshot } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { fetchConsole, signedIn } from "../console/console-helpers";
import { confirmOrder, createOrder, line, seedDemo, wallet } from "../helpers";
import { ended, expectError, expectOk, expireByAlarm, freshClient, indexNow, storedOrder, uid } from "../order-helpers";

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
  if (options.confirm === false) return created.id;
  expectOk(await confirmOrder(created.id, key));
  await ended(created.id);
  // As the order's `index` timer would have by the time the reconciliation runs.
  await indexNow(created.id);
  return created.id;
}

/** The reconciliation from the file's start to now, with no grace (nothing here is left to a later run). */
async function reconcileNow(): Promise<ReturnType<typeof reconcile>> {
  return reconcile(env, { createdFrom: start, createdTo: Date.now(), grace: 0 });
}

const mismatchesOf = async (orderId: string) =>
  (await reconcileNow()).mismatches.filter((mismatch) => mismatch.orderId === orderId);

describe("GET /admin/reconciliation", () => {
  it("finds nothing wrong with successful, partial, failed, rejected and inventory orders", async () => {
    const usd = await freshClient({ USD: "1000" });
    const eur = await freshClient({ EUR: "1000" });
    const successful = await order(usd.key, [line("DEMO-US-RANGE", 5, 2)]);
    const partial = await order(usd.key, [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)]);
    const failed = await order(usd.key, [line("DEMO-US-FAILING", 7, 1)]);
    const rejected = await order(usd.key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    expect(await expireByAlarm(rejected)).toBe(true);
    const inventory = await order(eur.key, [line("DEMO-EU-FIXED", 10, 2)], { wallet: "EUR" });
    expect([
      await ended(successful),
      await ended(partial),
      await ended(failed),
      await ended(rejected),
      await ended(inventory),
    ]).toEqual(["successful", "partial", "failed", "rejected", "successful"]);

    const answer = await admin("GET", `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}&grace=0`);
    await expectConforms("GET", "/admin/reconciliation", answer);
    const data = expectOk(answer);
    expect(answer.body.message).toBe("Reconciliation");
    expect(data.mismatches).toEqual([]);
    // The order that expired unconfirmed moved no money: it is not in the index.
    // The rejected order (expired unconfirmed) is in the index too.
    expect(data.checked.indexedOrders).toBe(5);
    expect(data.checked.endedOrders).toBe(5);
    // Charge of each charged order, refunds of the partial and failed ones.
    expect(data.checked.ledgerMovements).toBe(6);
    expect(data.checked.ordersOfMovements).toBe(4);
    expect(data.checked.soldCodes).toBe(2);
    expect(data.checked.leftToNextRun).toBe(0);

    // With the default grace, everything just made is left to the next run.
    const graced = expectOk(await admin("GET", `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}`));
    expect(graced.mismatches).toEqual([]);
    expect(graced.checked.endedOrders).toBe(0);
    expect(graced.checked.leftToNextRun).toBeGreaterThan(0);
  });

  it("counts a movement of an order still open, and does not call it a mismatch", async () => {
    const { id: clientId, key } = await freshClient();
    const open = await order(key, [line("DEMO-US-RANGE", 5, 1)], { confirm: false });
    // A confirm cut off after the wallet took the charge: the order is still `created`.
    const charged = await wallet(clientId, "USD").post({
      key: chargeKey(open),
      kind: "order_charge",
      amount: "5",
      orderId: open,
    });
    expect(charged.ok).toBe(true);
    const before = await reconcileNow();
    expect(before.mismatches.filter((mismatch) => mismatch.orderId === open)).toEqual([]);
    expect(before.checked.openOrders).toBe(1);
  });

  it("check 1: finds a ledger movement that does not match its order, or names no order", async () => {
    const { id: clientId, key } = await freshClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    expect(await mismatchesOf(done)).toEqual([]);
    const stray = await wallet(clientId, "USD").post({
      key: `stray:${uid()}`,
      kind: "order_refund",
      amount: "2",
      orderId: done,
      reason: "planted",
    });
    expect(stray.ok).toBe(true);
    const found = await mismatchesOf(done);
    expect(found.filter((mismatch) => mismatch.check === "ledger_matches_index")).toEqual([
      {
        check: "ledger_matches_index",
        orderId: done,
        clientId,
        problem: "the ledger refunded 2, the index says 0 (successful)",
        lookAt: [`/admin/orders/${done}`, `/admin/wallets/${clientId}/USD/ledger`],
      },
      {
        check: "ledger_matches_index",
        orderId: done,
        clientId,
        problem: "the index says successful, the ledger kept a charge of 5 and refunded 2",
        lookAt: [`/admin/orders/${done}`, `/admin/wallets/${clientId}/USD/ledger`],
      },
    ]);

    const nobody = `ord_${"0".repeat(64)}`;
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: nobody });
    expect((await mismatchesOf(nobody)).map((mismatch) => [mismatch.check, mismatch.problem])).toEqual([
      ["ledger_matches_index", `the USD ledger names ${nobody}, which is no order of this service`],
    ]);
  });

  it("check 1 and 2: find an index row whose state or amounts were rewritten", async () => {
    const { id: clientId, key } = await freshClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 2)]);
    const reference = (await storedOrder(done)).reference;
    const rewrite = (set: string) =>
      env.DB.prepare(`UPDATE order_index SET ${set} WHERE client_id = ?1 AND reference = ?2`)
        .bind(clientId, reference)
        .run();

    await rewrite(`state = 'failed'`);
    expect((await mismatchesOf(done)).map((mismatch) => [mismatch.check, mismatch.problem])).toEqual([
      ["ledger_matches_index", "the index says failed, the ledger kept a charge of 10 and refunded 0"],
    ]);

    await rewrite(`state = 'successful', charged = '12'`);
    expect((await mismatchesOf(done)).map((mismatch) => [mismatch.check, mismatch.problem])).toEqual([
      ["ledger_matches_index", "the ledger charged 10 (after voids), the index says 12 (successful)"],
      ["index_matches_ledger", "successful: the index's charge minus refunds is 12, the ledger lines net 10"],
    ]);
  });

  it("compares an order charged before the period with all of its lines, when only its refund is in it", async () => {
    const { id: clientId, key } = await freshClient();
    const partial = await order(key, [line("DEMO-US-FAILING", 7, 1), line("DEMO-US-RANGE", 5, 1)]);
    const lines = (await wallet(clientId, "USD").entries(0, 100)).filter((entry) => entry.orderId === partial);
    const charge = lines.find((entry) => entry.kind === "order_charge")!;
    const refund = lines.find((entry) => entry.kind === "order_refund")!;
    expect(refund.createdAt).toBeGreaterThan(charge.createdAt);
    // A period that starts after the charge, with no TTL before it: only the refund is read from the window.
    const result = await reconcile(
      { ...env, ORDER_TTL_SECONDS: "0" },
      { createdFrom: charge.createdAt + 1, createdTo: Date.now(), grace: 0 },
    );
    expect(result.mismatches.filter((mismatch) => mismatch.orderId === partial)).toEqual([]);
  });

  it("check 2: finds an indexed order the ledger never charged", async () => {
    const { id: clientId, key } = await freshClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const row = await env.DB.prepare(`SELECT * FROM order_index WHERE id = ?1`)
      .bind(done)
      .first<Record<string, unknown>>();
    // The same order under another reference: a row no ledger line backs.
    const ghost = `ord_${"a".repeat(64)}`;
    await env.DB.prepare(
      `INSERT INTO order_index (client_id, reference, id, state, wallet, total, charged, refunded, skus, lines, created_at, modified_at, expires_at, stage, version)
       VALUES (?1, ?2, ?3, 'successful', 'USD', '5', '5', '0', ',DEMO-US-RANGE,', '[]', ?4, ?4, ?5, 2, 1)`,
    )
      .bind(clientId, uid("ghost"), ghost, row!.created_at, row!.expires_at)
      .run();
    expect((await mismatchesOf(ghost)).map((mismatch) => [mismatch.check, mismatch.problem])).toEqual([
      ["index_matches_ledger", "successful: the index's charge minus refunds is 5, the ledger lines net 0"],
    ]);
  });

  it("check 3: finds a code sold to the wrong order, and a sold code of no order", async () => {
    const { key } = await freshClient({ EUR: "1000" });
    const first = await order(key, [line("DEMO-EU-FIXED", 25, 1)], { wallet: "EUR" });
    const second = await order(key, [line("DEMO-EU-FIXED", 25, 1)], { wallet: "EUR" });
    expect(await mismatchesOf(first)).toEqual([]);
    const code = await env.DB.prepare(`SELECT id FROM codes WHERE order_id = ?1`).bind(first).first<{ id: number }>();
    await env.DB.prepare(`UPDATE codes SET order_id = ?1 WHERE id = ?2`).bind(second, code!.id).run();
    const codeChecks = (mismatches: Awaited<ReturnType<typeof mismatchesOf>>) =>
      mismatches.filter((mismatch) => mismatch.check === "codes_match_redeem").map((mismatch) => mismatch.problem);
    expect(codeChecks(await mismatchesOf(second))).toEqual([
      `code #${code!.id} (DEMO-EU-FIXED) is sold to the order but is not in its redeem`,
    ]);
    // The first order is read through the code it lost only when it has another; its row alone does not
    // say which SKUs are inventory. Give it back and plant a code of no order instead.
    await env.DB.prepare(`UPDATE codes SET order_id = ?1 WHERE id = ?2`).bind(first, code!.id).run();
    expect(codeChecks(await mismatchesOf(second))).toEqual([]);
    const nobody = `ord_${"b".repeat(64)}`;
    const spare = await env.DB.prepare(
      `UPDATE codes SET status = 'sold', order_id = ?1, sold_at = ?2 WHERE id = (SELECT id FROM codes WHERE sku = 'DEMO-EU-FIXED' AND status = 'available' LIMIT 1) RETURNING id`,
    )
      .bind(nobody, Date.now())
      .first<{ id: number }>();
    const all = (await reconcileNow()).mismatches;
    expect(all.filter((mismatch) => mismatch.problem.includes(nobody))).toEqual([
      {
        check: "codes_match_redeem",
        orderId: null,
        clientId: null,
        problem: `code #${spare!.id} (DEMO-EU-FIXED) is sold to ${nobody}, which is no order of this service`,
        lookAt: [],
      },
    ]);
    await env.DB.prepare(`UPDATE codes SET status = 'available', order_id = NULL, sold_at = NULL WHERE id = ?1`)
      .bind(spare!.id)
      .run();
  });

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
    expect(await lastRun(env.DB)).toBeNull();
  });

  it("is a viewer's to read", async () => {
    const created = await admin("POST", "/admin/operators", { name: "Val Viewer", role: "viewer" });
    expect(created.status).toBe(201);
    const viewer = created.body.data;
    const answer = await admin("GET", `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}`, undefined, {
      token: viewer.token,
    });
    expect(answer.status).toBe(200);
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
      "the USD ledger names the order, whose index row says it is paid in EUR",
    ]);
  });
});

describe("the hourly run", () => {
  it("runs on the hour, logs and stores its result, and the attention list and home page show it", async () => {
    const { id: clientId, key } = await freshClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await wallet(clientId, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "1", orderId: done });

    const notOnTheHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * 60_000;
    await worker.scheduled(createScheduledController({ scheduledTime: notOnTheHour, cron: "*/5 * * * *" }), env);
    expect(await lastRun(env.DB)).toBeNull();

    // Grace: the stray movement must be older than the default grace when the run starts.
    const onTheHour = Date.now() + (DEFAULT_GRACE_SECONDS + 100) * 1000;
    const { runAndStore } = await import("../../src/reconciliation/reconciliation");
    await runAndStore(env, onTheHour);
    const stored = await lastRun(env.DB);
    expect(stored!.ranAt).toBe(onTheHour);
    expect(stored!.mismatches.map((mismatch) => mismatch.orderId)).toContain(done);

    const attention = expectOk(await admin("GET", "/admin/attention"));
    await expectConforms("GET", "/admin/attention", await admin("GET", "/admin/attention"));
    expect(attention.reconciliation.ranAt).toBe(onTheHour);
    expect(attention.reconciliation.mismatchCount).toBe(stored!.mismatchCount);
    expect(attention.reconciliation.mismatches.map((mismatch: { orderId: string }) => mismatch.orderId)).toContain(
      done,
    );

    // The console's home page lists them, each linking to its order's page, and says when the run was.
    const viewer = await signedIn("viewer");
    const home = await fetchConsole("GET", "/console", { cookie: viewer });
    expect(home.status).toBe(200);
    expect(home.text).toContain(`Reconciliation mismatches (${stored!.mismatchCount})`);
    expect(home.text).toContain(`href="/console/orders/${done}"`);
    expect(home.text).toContain(new Date(onTheHour).toISOString().slice(0, 19).replace("T", " "));

    // A viewer runs it now from the console: it is stored as the last run and shown.
    const ran = await fetchConsole("POST", "/console/reconciliation", { cookie: viewer });
    expect(ran.status).toBe(303);
    expect(ran.headers.get("location")).toBe("/console/reconciliation?done=run");
    const now = await lastRun(env.DB);
    expect(now!.ranAt).toBeGreaterThan(Date.now() - 60_000);
    expect(now!.ranAt).toBeLessThan(onTheHour);
    const shown = await fetchConsole("GET", "/console/reconciliation?done=run", { cookie: viewer });
    expect(shown.text).toContain("Reconciliation run over the last day.");
    expect(shown.text).toContain(`Mismatches (${now!.mismatchCount})`);

    // The scheduled handler on the hour stores a run of its own.
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await worker.scheduled(createScheduledController({ scheduledTime: hour, cron: "*/5 * * * *" }), env);
    const scheduled = await lastRun(env.DB);
    expect(scheduled!.ranAt).toBeGreaterThanOrEqual(Date.now() - 60_000);
    expect(scheduled!.createdTo - scheduled!.createdFrom).toBe(86_400_000);
  });
});

describe("who brings the index up to date", () => {
  it("neither a viewer's run nor an operator's writes an ended order's row: the order writes its own", async () => {
    const { id: clientId, key } = await freshClient();
    const reference = uid("rec");
    const created = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference }, key),
    );
    expectOk(await confirmOrder(created.id, key));
    await ended(created.id);
    const row = () =>
      env.DB.prepare(`SELECT state FROM order_index WHERE client_id = ?1 AND reference = ?2`)
        .bind(clientId, reference)
        .first();
    const asViewer = await fetchConsole("POST", "/console/reconciliation", { cookie: await signedIn("viewer") });
    expect(asViewer.status).toBe(303);
    expect(await row()).toBeNull();
    const asOperator = await fetchConsole("POST", "/console/reconciliation", { cookie: await signedIn("operator") });
    expect(asOperator.status).toBe(303);
    // The operator's run repairs the rows of open orders only; this one's own `index` timer writes it.
    expect(await row()).toBeNull();
    await indexNow(created.id);
    expect(await row()).toEqual({ state: "successful" });
  });
});
