/**
 * The reconciliation by wallet and day: nothing wrong found with orders of every kind; each tampering of
 * persisted state (a wallet object's SQLite, a books shard's rows, the codes and audit tables in D1) named
 * by the order or wallet concerned; GET /admin/reconciliation, its rate limit and the console's runs (a
 * viewer's stores nothing). The pass from a checkpoint is in pass.test.ts, the storm in storm.test.ts.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { dayOf } from "../../src/books/shard-rules";
import { writeToBooks } from "../../src/books/books-writer";
import { reconcile, runAndStore, type Mismatch } from "../../src/reconciliation/reconciliation";
import { addLine, emptyMoney, ledgerProblems } from "../../src/reconciliation/reconciliation-rules";
import { lastRun } from "../../src/reconciliation/reconciliation-store";
import { walletName } from "../../src/wallets/ledger";
import { chargeKey, moveKey } from "../../src/wallets/ledger-keys";
import { admin, snapshot } from "../admin-helpers";
import { expectConforms } from "../openapi/conformance";
import { line, seedDemo, wallet } from "../helpers";
import { ended, expectError, expectOk, expireByAlarm, indexNow, uid } from "../order-helpers";
import { auditedClient, freshCheckpoint, order, tamperBooks, tamperWallet } from "./reconciliation-helpers";

const start = Date.now() - 1_000;

beforeAll(seedDemo);

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
    expect(data.mismatches.filter((mismatch: Mismatch) => [usd.id, eur.id].includes(mismatch.clientId!))).toEqual([]);
    expect(data.complete).toBe(true);
    // Every day of the span agrees: sealed without a drill.
    expect(data.checked.sealedDays).toBe(data.checked.days);
    expect(data.checked.orders).toBe(0);
    expect(data.checked.leftToNextRun).toBe(0);

    // With the default grace, nothing just made that agrees is held back or called a mismatch.
    const graced = await reconcile(env, { createdFrom: start, createdTo: Date.now() });
    expect(graced.mismatches.filter((mismatch) => [usd.id, eur.id].includes(mismatch.clientId!))).toEqual([]);
  });

  it("pairs the ledger and the books by the order's creation day, whatever the day of its charge", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const [charge] = await wallet(clientId, "USD").orderEntries(done);
    const day = dayOf(Date.now());
    // The entry keeps the order's day; its own time is the wallet's.
    const page = await wallet(clientId, "USD").ledgerDay(day);
    expect(Object.keys(page.orders)).toEqual([done]);
    expect(page.orders[done]!.seqs).toEqual([charge!.seq]);
    // Stamped with the next day, as a charge after midnight of an order of today: today's window still
    // holds it, and tomorrow's does not.
    await tamperWallet(
      wallet(clientId, "USD"),
      `UPDATE ledger SET order_day = ?1 WHERE seq = ?2`,
      day - 1,
      charge!.seq,
    );
    expect(Object.keys((await wallet(clientId, "USD").ledgerDay(day)).orders)).toEqual([]);
    expect(Object.keys((await wallet(clientId, "USD").ledgerDay(day - 1)).orders)).toEqual([done]);
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

  it("an entry's amount changed at rest: its balance no longer follows", async () => {
    const { id: clientId, key } = await auditedClient();
    const first = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const [charge] = await wallet(clientId, "USD").orderEntries(first);
    await tamperWallet(wallet(clientId, "USD"), `UPDATE ledger SET amount = '-4' WHERE seq = ?1`, charge!.seq);
    const problems = await ofClient(clientId);
    expect(problems).toContainEqual([
      "balance_matches_ledger",
      `${walletName(clientId, "USD")}: entry #${charge!.seq} leaves a balance of 995, its amount and the balance before it make 996`,
    ]);
    expect(problems).toContainEqual([
      "ledger_matches_order",
      "the ledger charged 4 (after voids), the order says 5 (successful)",
    ]);
  });

  it("a balance changed at rest, unequal to its ledger's sum", async () => {
    const { id: clientId, key } = await auditedClient();
    await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    const last = await tamperLastBalance(clientId, "1995");
    const problems = await ofClient(clientId);
    expect(problems).toContainEqual([
      "balance_matches_ledger",
      `${walletName(clientId, "USD")}: entry #${last} leaves a balance of 1995, its amount and the balance before it make 995`,
    ]);
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

  it("a books row's total, charge or state changed", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 2)]);
    const rewrite = (set: string) => tamperBooks(clientId, `UPDATE orders SET ${set} WHERE id = ?1`, done);
    expect(await ofOrder(done)).toEqual([]);
    await rewrite(`total = '12'`);
    expect(await ofOrder(done)).toEqual([["index_matches_order", "the index says total 12, the order 10"]]);
    await rewrite(`total = '10', charged = '12', state = 'failed'`);
    expect(await ofOrder(done)).toEqual([
      ["index_matches_order", "the index says failed, the order is successful"],
      ["index_matches_order", "the index says charged 12, the order 10"],
    ]);
  });

  it("a books row's state alone changed, its amounts left as they were", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await tamperBooks(clientId, `UPDATE orders SET state = 'partial' WHERE id = ?1`, done);
    expect(await ofOrder(done)).toEqual([["index_matches_order", "the index says partial, the order is successful"]]);
  });

  it("a books row removed", async () => {
    const { id: clientId, key } = await auditedClient();
    const done = await order(key, [line("DEMO-US-RANGE", 5, 1)]);
    await tamperBooks(clientId, `DELETE FROM orders WHERE id = ?1`, done);
    expect(await ofOrder(done)).toEqual([
      ["index_matches_order", "the order is successful but has no row in the index"],
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

  it("a books row of no order of this service", async () => {
    const nobody = `ord_${"1".repeat(64)}`;
    const at = Date.now() - 500;
    await writeToBooks(env.BOOKS, {
      id: nobody,
      clientId: "rec-ghost",
      reference: uid("ghost"),
      state: "successful",
      wallet: "USD",
      total: "5",
      charged: "5",
      refunded: "0",
      skus: ["DEMO-US-RANGE"],
      lines: [{ sku: "DEMO-US-RANGE", supplier: "sandbox", quantity: 1, amount: "5", outcome: "delivered" }],
      createdAt: at,
      modifiedAt: at + 10,
      expiresAt: at + 600_000,
      version: 2,
      deliveredCodes: [],
    });
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
    const now = Date.now();
    await runAndStore(env, now, { graceSeconds: 0 });
    // The next pass has nothing new of that day: the finding stands.
    await runAndStore(env, now + 1, { graceSeconds: 0 });
    expect((await lastRun(env.DB))!.mismatches.map((mismatch) => mismatch.problem)).toContain(problem);
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

/** Sets the balance the wallet's last entry leaves (the wallet's balance) at rest; answers that entry's seq. */
async function tamperLastBalance(clientId: string, balance: string): Promise<number> {
  const entries = await wallet(clientId, "USD").entries(0, 1_000);
  const last = entries[entries.length - 1]!.seq;
  await tamperWallet(wallet(clientId, "USD"), `UPDATE ledger SET balance_after = ?1 WHERE seq = ?2`, balance, last);
  return last;
}

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
    const days = await env.DB.prepare(`SELECT COUNT(*) AS n FROM reconciliation_days`).first();
    const query = `/admin/reconciliation?createdFrom=${start}&createdTo=${Date.now()}`;
    for (let count = 0; count < 3; count += 1)
      expect((await admin("GET", query, undefined, { token: viewer.token })).status).toBe(200);
    const refused = await admin("GET", query, undefined, { token: viewer.token });
    expectError(refused, 429, "Too many requests", "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("60");
    // Another operator has runs of their own.
    expect((await admin("GET", query)).status).toBe(200);
    expect(await lastRun(env.DB)).toEqual(stored);
    expect(await env.DB.prepare(`SELECT COUNT(*) AS n FROM reconciliation_days`).first()).toEqual(days);
  });
});

describe("the rules", () => {
  it("accepts a rejected order whose cut-off charge was voided back", () => {
    let lines = addLine(emptyMoney("c", "USD"), "order_charge", "-5", 1, true);
    lines = addLine(lines, "order_void", "5", 2, true);
    expect(ledgerProblems({ state: "rejected", wallet: "USD", charged: "0", refunded: "0" }, lines)).toEqual([]);
    expect(ledgerProblems({ state: "rejected", wallet: "EUR", charged: "0", refunded: "0" }, lines)).toEqual([
      "the USD ledger names the order, which says it is paid in EUR",
    ]);
  });
});
