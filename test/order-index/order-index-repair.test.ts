/**
 * The order index's repair pass (POST /admin/orders/index/run): it asks the orders the index holds as open
 * to write their row again, resumes where a bounded run stopped, and with nothing open costs the same
 * however many wallets there are; only the operator role and above may run it.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { repairIndex } from "../../src/order-index/order-index-repair";
import { admin } from "../admin-helpers";
import { confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { ended, expectOk, freshClient, indexNow, indexRow, uid } from "../order-helpers";

beforeAll(seedDemo);

/** A successful order whose row reads as the ledger indexer of release 1.2 left it: processing, version 0. */
async function staleOpenRow(key: string): Promise<string> {
  const created = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("rep") }, key),
  );
  expectOk(await confirmOrder(created.id, key));
  await ended(created.id);
  await indexNow(created.id);
  await env.DB.prepare(`UPDATE order_index SET state = 'processing', stage = 1, version = 0 WHERE id = ?1`)
    .bind(created.id)
    .run();
  return created.id;
}

/** Runs the pass until it has read every open order (a run of another test's may have stopped midway). */
async function repairAll(): Promise<void> {
  for (let run = 0; run < 20; run += 1) if (!(await repairIndex(env)).more) return;
}

describe("the repair pass", () => {
  it("has each order the index holds as open write its row again from its own record", async () => {
    const { key } = await freshClient();
    const id = await staleOpenRow(key);
    expect(await indexRow(id)).toMatchObject({ state: "processing", stage: 1 });
    await repairAll();
    expect(await indexRow(id)).toMatchObject({ state: "successful", stage: 2 });
    // Nothing is left to write: a further run writes no row.
    expect(await repairIndex(env)).toMatchObject({ rowsWritten: 0, more: false });
  });

  it("stops at its bound, stores where, and the next run resumes there", async () => {
    const { key } = await freshClient();
    const ids = [await staleOpenRow(key), await staleOpenRow(key), await staleOpenRow(key)].sort();
    await env.DB.prepare(`DELETE FROM order_index_repair`).run();
    // Only these three are open (the others have ended), so a bound of 2 stops after the first two.
    const open = (await env.DB.prepare(`SELECT id FROM order_index WHERE stage < 2 ORDER BY id`).all<{ id: string }>())
      .results;
    expect(open.map((row) => row.id)).toEqual(ids);
    const first = await repairIndex(env, 2);
    expect(first).toMatchObject({ orders: 2, more: true });
    expect(await env.DB.prepare(`SELECT after_id FROM order_index_repair`).first()).toEqual({ after_id: ids[1] });
    expect(await indexRow(ids[2]!)).toMatchObject({ stage: 1 });
    const second = await repairIndex(env, 2);
    expect(second).toMatchObject({ orders: 1, more: false, open: 0 });
    for (const id of ids) expect(await indexRow(id)).toMatchObject({ state: "successful", stage: 2 });
    expect(await env.DB.prepare(`SELECT after_id FROM order_index_repair`).first()).toBeNull();
  });

  it("with nothing open reads as much with 2,000 more idle wallets as without them", async () => {
    await repairAll();
    const idle = await repairIndex(env);
    expect(idle).toMatchObject({ orders: 0, rowsWritten: 0, more: false });
    const now = Date.now();
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < 2_000; i += 1) {
      const id = `idle-${i}-${uid("w")}`;
      statements.push(
        env.DB.prepare(
          `INSERT INTO clients (id, name, webhook_secret, created_at) VALUES (?1, ?1, 'whsec_x', ?2)`,
        ).bind(id, now),
        env.DB.prepare(`INSERT INTO wallets (client_id, currency, created_at) VALUES (?1, 'USD', ?2)`).bind(id, now),
      );
    }
    for (let start = 0; start < statements.length; start += 500)
      await env.DB.batch(statements.slice(start, start + 500));
    const withMore = await repairIndex(env);
    expect(withMore).toEqual(idle);
    // What it read: its stored cursor (none) and the empty partial index of open orders, no wallet.
    expect(idle.rowsRead).toBeLessThanOrEqual(2);
  });

  it("is the operator's: a viewer is refused, an operator runs it", async () => {
    const tokenOf = async (role: string) =>
      (await admin("POST", "/admin/operators", { name: uid("op"), role })).body.data.token as string;
    const viewer = await admin("POST", "/admin/orders/index/run", undefined, { token: await tokenOf("viewer") });
    expect(viewer.status).toBe(403);
    const operator = await admin("POST", "/admin/orders/index/run", undefined, { token: await tokenOf("operator") });
    expect(operator.status).toBe(200);
    expect(operator.body.data).toMatchObject({ orders: expect.any(Number), more: false });
  });
});
