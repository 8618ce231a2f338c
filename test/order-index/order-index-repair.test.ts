/**
 * The repair pass (POST /admin/orders/index/run): it asks the orders the books hold as open (found through
 * the directory's published figures of the last days) to write their row again, resumes where a bounded
 * run stopped, and with nothing open costs the same however many wallets there are; only the operator role
 * and above may run it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { bookedRow } from "../../src/books/books-reader";
import { shardOf } from "../../src/books/books-writer";
import { dayOf } from "../../src/books/shard-rules";
import { repairIndex } from "../../src/order-index/order-index-repair";
import { admin } from "../admin-helpers";
import { confirmOrder, createOrder, line, seedDemo } from "../helpers";
import { ended, expectOk, freshClient, indexNow, storedOrder, uid } from "../order-helpers";

beforeAll(seedDemo);

/**
 * A successful order whose row in its books reads as a lost write left it: processing, version 0, and its
 * day's published figures counting it open.
 */
async function staleOpenRow(key: string): Promise<string> {
  const created = expectOk(
    await createOrder({ productList: [line("DEMO-US-RANGE", 5, 1)], wallet: "USD", reference: uid("rep") }, key),
  );
  expectOk(await confirmOrder(created.id, key));
  await ended(created.id);
  await indexNow(created.id);
  const order = await storedOrder(created.id);
  const shard = shardOf(env.BOOKS, { clientId: order.clientId, day: dayOf(order.createdAt), part: 0 });
  await runInDurableObject(shard, (_instance, state) => {
    state.storage.sql.exec(`UPDATE orders SET state = 'processing', version = 0 WHERE id = ?1`, order.id);
  });
  await env.DB.prepare(`UPDATE books_days SET open = open + 1 WHERE client_id = ?1`).bind(order.clientId).run();
  return created.id;
}

async function bookedState(orderId: string): Promise<string | undefined> {
  return (await bookedRow(env, await storedOrder(orderId)))?.state;
}

/** Runs the pass until it has read every open order (a run of another test's may have stopped midway). */
async function repairAll(): Promise<void> {
  for (let run = 0; run < 20; run += 1) if (!(await repairIndex(env)).more) return;
}

describe("the repair pass", () => {
  it("has each order the books hold as open write its row again from its own record", async () => {
    const { key } = await freshClient();
    const id = await staleOpenRow(key);
    expect(await bookedState(id)).toBe("processing");
    await repairAll();
    expect(await bookedState(id)).toBe("successful");
    // Nothing is left to write: a further run writes no row.
    expect(await repairIndex(env)).toMatchObject({ rowsWritten: 0, more: false });
  });

  it("stops at its bound, stores where, and the next run resumes there", async () => {
    const { key } = await freshClient();
    const ids = [await staleOpenRow(key), await staleOpenRow(key), await staleOpenRow(key)];
    await env.DB.prepare(`DELETE FROM order_index_repair`).run();
    // Only these three are open (the others have been repaired), so a bound of 2 stops after two of them.
    const first = await repairIndex(env, 2);
    expect(first).toMatchObject({ orders: 2, more: true });
    expect(await env.DB.prepare(`SELECT after_id FROM order_index_repair`).first()).toEqual({
      after_id: expect.stringContaining('"after":{"createdAt"'),
    });
    const states = await Promise.all(ids.map(bookedState));
    expect(states.filter((state) => state === "processing")).toHaveLength(1);
    const second = await repairIndex(env, 2);
    expect(second).toMatchObject({ orders: 1, more: false });
    for (const id of ids) expect(await bookedState(id)).toBe("successful");
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
    // What it read: its stored cursor (none) and the directory's rows of the window (each through its day
    // index entry), no wallet.
    const directory = await env.DB.prepare(`SELECT COUNT(*) AS n FROM books_days`).first<{ n: number }>();
    expect(idle.rowsRead).toBeLessThanOrEqual(1 + 2 * directory!.n);
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
