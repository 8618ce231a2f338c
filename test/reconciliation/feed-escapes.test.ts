/**
 * The reconciliation's feed by creation, at its edges: the trigger of migration 0022 as the order's upsert
 * meets it; the wallets a run did not read to their end (migration 0023); an order named by a ledger that no
 * object holds, however it was left over; new orders beyond the feed's budget; migration 0021 on an empty
 * store. Each of these was seen failing before its fix: nothing may escape every run for more than an hour
 * without an alert line.
 */
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUDGET, runAndStore, type Mismatch } from "../../src/reconciliation/reconciliation";
import { DEFERRAL_BOUND_MS, INDEX_SETTLED_MS } from "../../src/reconciliation/reconciliation-rules";
import { walletName } from "../../src/wallets/ledger";
import type { IndexRow } from "../../src/order-index/order-index-store";
import { confirmOrder, createOrder, line, seedDemo, wallet } from "../helpers";
import { bareIndexRow, ended, expectOk, indexNow, uid, writeIndexRow } from "../order-helpers";
import { auditedClient, deferred, freshCheckpoint } from "./reconciliation-helpers";
import migration0021 from "../../schema/migrations/0021_reconciliation_by_creation.sql?raw";

beforeAll(seedDemo);

const deferredIds = async () => [...(await deferred()).keys()];

const problems = (runs: { mismatches: readonly Mismatch[] }[]) =>
  runs.flatMap((run) => run.mismatches.map((mismatch) => mismatch.problem));

describe("migration 0022's trigger and the order's upsert", () => {
  beforeEach(freshCheckpoint);
  const row = (createdAt: number, overrides: Partial<IndexRow> = {}): IndexRow =>
    bareIndexRow({
      clientId: "esc-trigger",
      reference: uid("trg"),
      state: "processing",
      total: "10",
      charged: "10",
      createdAt,
      modifiedAt: createdAt + 1,
      stage: 1,
      ...overrides,
    });

  it("its clock is unix ms", async () => {
    const before = Date.now();
    const { ms } = (await env.DB.prepare(
      `SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS ms`,
    ).first<{ ms: number }>())!;
    expect(Math.abs(ms - before)).toBeLessThan(2_000);
  });

  it("fires on the insert path only, for a late row of version > 0, and costs an on-time row nothing", async () => {
    const now = Date.now();
    const onTime = row(now - 10_000);
    const late = row(now - 120_000);
    const legacy = row(now - 120_000, { version: 0 });
    // A first row of the client's day writes its day entry (migration 0020): written first, so that both
    // counts below are of a later row of that day.
    await writeIndexRow(env.DB, row(now - 5_000));
    const onTimeWritten = await writeIndexRow(env.DB, onTime);
    const lateWritten = await writeIndexRow(env.DB, late);
    await writeIndexRow(env.DB, legacy);
    expect(await deferredIds()).toEqual([late.id]);
    // The late row costs one row more (its deferral); an on-time row the same as without the trigger.
    expect(lateWritten).toBe(onTimeWritten + 1);
    await env.DB.prepare(`DELETE FROM reconciliation_deferred`).run();
    // The update path (a newer version, an older one refused) of a row created long ago: nothing.
    await writeIndexRow(env.DB, { ...late, state: "successful", stage: 2, modifiedAt: now, version: 2 });
    await writeIndexRow(env.DB, { ...late, version: 1 });
    await writeIndexRow(env.DB, { ...legacy, version: 3, modifiedAt: now });
    expect(await deferredIds()).toEqual([]);
  });
});

describe("a wallet a run did not read to its end", () => {
  beforeEach(freshCheckpoint);

  // The default grace (600 s): a named wallet's entries of the last 10 minutes are not checked, and its cursor
  // stays before them. Nothing else names the wallet again (its order ended before the run, the client is
  // quiet for the next hours): the run leaves the wallet over to the next (migration 0023).
  it("checks a posting that landed in a named wallet within the grace before a run, at a later run", async () => {
    const a = await auditedClient();
    const done = expectOk(
      await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("esc") }, a.key),
    ).id as string;
    expectOk(await confirmOrder(done, a.key));
    expect(await ended(done)).toBe("successful");
    await indexNow(done);
    const sneaked = await wallet(a.id, "USD").post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    const now = Date.now() + INDEX_SETTLED_MS;
    const runs = [];
    for (let hour = 0; hour <= 3; hour += 1) runs.push(await runAndStore(env, now + hour * DEFERRAL_BOUND_MS));
    const alerts = runs.flatMap((run) => run.alerts);
    // The order itself is checked and let go; its wallet's ledger past the cursor is read at a later run.
    expect(await deferredIds()).toEqual([]);
    expect(
      problems(runs).includes(`top_up #${seq} of 50 in ${walletName(a.id, "USD")} has no audit row`) ||
        alerts.length > 0,
    ).toBe(true);
  });

  // The budget of ledger pages: a run out of them says complete: false, and leaves the wallet over to the
  // next run, which reads the rest of its ledger though nothing else names it.
  it("reads the rest of a ledger a run had no pages left for, or says so in an alert line", async () => {
    const a = await auditedClient();
    const stub = wallet(a.id, "USD");
    for (let count = 0; count < 500; count += 1)
      await stub.post({ key: `sandbox-top-up:${uid()}`, kind: "top_up", amount: "1" });
    const sneaked = await stub.post({ key: `top-up:${uid()}`, kind: "top_up", amount: "50" });
    const seq = sneaked.ok ? sneaked.entry.seq : 0;
    const budget = { ...BUDGET, ledgerPages: 0 };
    const now = Date.now() + INDEX_SETTLED_MS;
    const runs = [];
    for (let hour = 0; hour <= 2; hour += 1)
      runs.push(await runAndStore(env, now + hour * DEFERRAL_BOUND_MS, { budget, graceSeconds: 0 }));
    expect(runs[0]!.complete).toBe(false);
    const alerts = runs.flatMap((run) => run.alerts);
    expect(
      problems(runs).includes(`top_up #${seq} of 50 in ${walletName(a.id, "USD")} has no audit row`) ||
        alerts.length > 0,
    ).toBe(true);
  });
});

describe("a mismatch standing", () => {
  beforeEach(freshCheckpoint);

  // A credit to a wallet naming no order of this service is found once; the next run checks the order again
  // by its id alone (no ledger names it now: the cursor has moved past the entry), finds no order object, and
  // keeps the mismatch standing.
  it("keeps a ledger entry naming no order standing until it is put right", async () => {
    const a = await auditedClient();
    const ghost = `ord_${"ab".repeat(32)}`;
    await wallet(a.id, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "40", orderId: ghost });
    const now = Date.now() + INDEX_SETTLED_MS;
    const first = await runAndStore(env, now, { graceSeconds: 0 });
    expect(first.mismatches.filter((mismatch) => mismatch.orderId === ghost).map((m) => m.check)).toEqual([
      "unknown_order",
    ]);
    await runAndStore(env, now + DEFERRAL_BOUND_MS, { graceSeconds: 0 });
    const standing = await env.DB.prepare(`SELECT COUNT(*) AS n FROM reconciliation_findings WHERE order_id = ?1`)
      .bind(ghost)
      .first<{ n: number }>();
    expect(standing!.n).toBe(1);
  });
});

describe("an order named by a ledger beyond the budget of orders checked", () => {
  beforeEach(freshCheckpoint);

  // Left over by id alone, it is checked at the next run with nothing to say who named it: no order object
  // holds it, which is reported all the same.
  it("reports a ledger entry naming no order, though the run that read it had no budget left for it", async () => {
    const a = await auditedClient();
    await order(a.key);
    const ghost = `ord_${"cd".repeat(32)}`;
    await wallet(a.id, "USD").post({ key: `stray:${uid()}`, kind: "order_refund", amount: "40", orderId: ghost });
    const budget = { ...BUDGET, checkedOrders: 1 };
    const now = Date.now() + INDEX_SETTLED_MS;
    const runs = [];
    for (let hour = 0; hour <= 2; hour += 1)
      runs.push(await runAndStore(env, now + hour * DEFERRAL_BOUND_MS, { budget, graceSeconds: 0 }));
    expect(runs[0]!.complete).toBe(false);
    expect(await deferredIds()).toEqual([]);
    expect(runs.flatMap((run) => run.mismatches).filter((mismatch) => mismatch.orderId === ghost)).not.toEqual([]);
  });
});

async function order(key: string): Promise<string> {
  const created = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("esc") }, key),
  );
  expectOk(await confirmOrder(created.id, key));
  await ended(created.id);
  await indexNow(created.id);
  return created.id;
}

describe("the feed of new orders beyond its budget", () => {
  beforeEach(freshCheckpoint);

  // A burst of new orders larger than a run reads is read over the next runs, each saying complete: false;
  // the count left over falls at each run, so the rising alert never fires: the overdue alert counts the
  // orders the feed has yet to read that were created more than the bound ago, too.
  it("checks each new order within an hour and 5 minutes of its creation, or says so in an alert line", async () => {
    const clients = [await auditedClient(), await auditedClient(), await auditedClient()];
    const top = await env.DB.prepare(`SELECT max(id) AS id FROM audit_log`).first<{ id: number }>();
    await env.DB.prepare(`UPDATE reconciliation_checkpoint SET audit_id = ?1`).bind(top!.id).run();
    const created = Date.now();
    for (const { key } of clients) await order(key);
    const budget = { ...BUDGET, orders: 1 };
    const now = Date.now() + INDEX_SETTLED_MS;
    const runs = [];
    for (const at of [now, now + DEFERRAL_BOUND_MS + 600_000, now + 2 * DEFERRAL_BOUND_MS + 1_200_000])
      runs.push(await runAndStore(env, at, { budget, graceSeconds: 0 }));
    // The second run, 70 minutes after the orders were created, reads the second; the third waits for the
    // run after it, 2 h 20 min after its creation: the second run says so.
    expect(runs.map((run) => run.checked.orders)).toEqual([1, 1, 1]);
    expect(now + DEFERRAL_BOUND_MS + 600_000 - created).toBeGreaterThan(DEFERRAL_BOUND_MS + 5 * 60_000);
    expect(runs[1]!.alerts).not.toEqual([]);
  });
});

describe("migration 0021 on the edges", () => {
  const statements = migration0021
    .replace(/--.*$/gm, "")
    .split(";")
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
  const migrate = async () => {
    await env.DB.prepare(`CREATE INDEX order_index_changed ON order_index (modified_at, id)`).run();
    await env.DB.batch(statements.map((statement) => env.DB.prepare(statement)));
  };

  it("runs with no checkpoint row, and with an empty index, leaving nothing over", async () => {
    await env.DB.batch([
      env.DB.prepare(`DELETE FROM reconciliation_checkpoint`),
      env.DB.prepare(`DELETE FROM reconciliation_deferred`),
      env.DB.prepare(
        `INSERT INTO order_index (client_id, created_at, id, reference, state, wallet, total, charged, refunded,
           skus, lines, modified_at, expires_at, stage, version)
         VALUES ('mig-edge', 10, 'ord_edge', 'r', 'processing', 'USD', '1', '1', '0', ',,', '[]', 20, 0, 1, 0)`,
      ),
    ]);
    await migrate();
    expect(await deferredIds()).toEqual([]);
    await env.DB.batch([
      env.DB.prepare(`DELETE FROM order_index`),
      env.DB.prepare(`INSERT INTO reconciliation_checkpoint (id, orders_at, orders_id) VALUES (1, 100, 'ord_x')`),
    ]);
    await migrate();
    expect(await deferredIds()).toEqual([]);
    // With a row of each kind: changed after the checkpoint (created before it), open, and neither.
    await env.DB.batch(
      [
        ["ord_m1", 50, 150, 2],
        ["ord_m2", 60, 90, 1],
        ["ord_m3", 70, 90, 2],
        ["ord_m4", 100, 100, 2],
        ["ord_z9", 100, 100, 2],
        ["ord_m5", 120, 130, 1],
      ].map(([id, createdAt, modifiedAt, stage]) =>
        env.DB.prepare(
          `INSERT INTO order_index (client_id, created_at, id, reference, state, wallet, total, charged, refunded,
             skus, lines, modified_at, expires_at, stage, version)
           VALUES ('mig-edge', ?2, ?1, ?1, 'processing', 'USD', '1', '1', '0', ',,', '[]', ?3, 0, ?4, 0)`,
        ).bind(id, createdAt, modifiedAt, stage),
      ),
    );
    await migrate();
    // m1 changed since; m2 open; m3 read and ended; m4 read (its (modified_at, id) is not after the
    // checkpoint); z9 created at the checkpoint after its id (the feed by creation reads it: left over too,
    // harmlessly); m5 created after (the feed reads it).
    expect((await deferredIds()).sort()).toEqual(["ord_m1", "ord_m2", "ord_z9"]);
  });
});
