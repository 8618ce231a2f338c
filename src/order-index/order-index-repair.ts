/**
 * The repair pass (POST /admin/orders/index/run): asks each order the books hold as still open to write its
 * row again from its own record (OrderObject.writeIndex). Every order writes its row itself after each
 * change (src/orders/index-flow.ts); the pass is for what that cannot cover, and for an operator who wants
 * to see an open order's row checked now.
 *
 * It finds them through the books' directory: the shards of the last REPAIR_DAYS days whose published
 * figures count open orders (a shard publishes within the hour of a change), read through the directory's
 * day index, and in each of those shards its open orders. Its cost follows the days kept in that window
 * and the orders open in them, never the wallets or the orders of other days. A run asks at most
 * REPAIR_BATCH open orders; one that reaches that bound stores where it stopped (the shard and the last
 * order asked in it), and the next run resumes there (a run that dies midway stored nothing and starts
 * again where the last one stopped: every write takes only a newer version).
 */
import { shardOf } from "../books/books-writer";
import { openOrdersSince, shardsWithOpenOrders } from "../books/directory-store";
import { dayOf, type BooksCursor, type ShardAddress } from "../books/shard-rules";
import { objectIdOf } from "../orders/order-id";
import { repairCursor, saveRepairCursor } from "./order-index-store";

/** Open orders one run asks at most. */
export const REPAIR_BATCH = 2_000;
/** The days the pass looks at: an order stays open minutes, not a month. */
export const REPAIR_DAYS = 31;
/** Shards with open orders one run reads from the directory at most. */
const SHARDS_PER_RUN = 200;
/** Order objects asked at once. */
const ASK_AT_ONCE = 16;

export interface RepairRun {
  /** Open orders asked to write their row. */
  orders: number;
  /** Rows the orders wrote to their books (0: the books had every one already). */
  rowsWritten: number;
  /** D1 rows the run read to find them (its stored cursor and the directory's rows). */
  rowsRead: number;
  /** Open orders in the window's published figures after the run. */
  open: number;
  /** Whether the run stopped at its bound: the next run resumes after the last order it asked. */
  more: boolean;
}

type RepairEnv = Pick<Env, "DB" | "ORDERS" | "BOOKS">;

/** Where a run stopped: a shard, and the last order asked in it (newest first). */
interface Stop {
  shard: ShardAddress;
  after: BooksCursor | null;
}

function stopOf(text: string): Stop | null {
  if (text === "") return null;
  try {
    return JSON.parse(text) as Stop;
  } catch {
    return null;
  }
}

async function ask(env: RepairEnv, ids: string[]): Promise<number> {
  let written = 0;
  for (let start = 0; start < ids.length; start += ASK_AT_ONCE) {
    const asked = ids.slice(start, start + ASK_AT_ONCE).map(async (orderId) => {
      const id = objectIdOf(env.ORDERS, orderId);
      return id === null ? 0 : env.ORDERS.get(id).writeIndex();
    });
    for (const rows of await Promise.all(asked)) written += rows;
  }
  return written;
}

/** One run of the repair pass, from where the last run that reached its bound stopped. */
export async function repairIndex(env: RepairEnv, batch = REPAIR_BATCH, now = Date.now()): Promise<RepairRun> {
  const cursor = await repairCursor(env.DB);
  const stop = stopOf(cursor.afterId);
  const fromDay = dayOf(now) - REPAIR_DAYS + 1;
  const found = await shardsWithOpenOrders(env.DB, fromDay, stop?.shard ?? null, SHARDS_PER_RUN);
  const run: RepairRun = {
    orders: 0,
    rowsWritten: 0,
    rowsRead: cursor.rowsRead + found.rowsRead,
    open: 0,
    more: false,
  };
  let next: Stop | null = null;
  for (const shard of found.shards) {
    const same = stop !== null && JSON.stringify(stop.shard) === JSON.stringify(shard);
    const after = same ? stop.after : null;
    const rows = await shardOf(env.BOOKS, shard).page({ open: true, after, limit: batch - run.orders + 1 });
    const asked = rows.slice(0, batch - run.orders);
    run.orders += asked.length;
    run.rowsWritten += await ask(
      env,
      asked.map((row) => row.id),
    );
    if (rows.length > asked.length || run.orders >= batch) {
      const last = asked[asked.length - 1];
      next = { shard, after: last === undefined ? after : { createdAt: last.createdAt, id: last.id } };
      break;
    }
  }
  // A directory read cut at its bound goes on from its last shard.
  if (next === null && found.shards.length === SHARDS_PER_RUN)
    next = { shard: found.shards[found.shards.length - 1]!, after: null };
  run.more = next !== null;
  const text = next === null ? "" : JSON.stringify(next);
  // Written only when it moves: a run with nothing open, after one that finished, writes nothing.
  if (text !== cursor.afterId) await saveRepairCursor(env.DB, text);
  run.open = run.orders === 0 ? 0 : await openOrdersSince(env.DB, fromDay);
  return run;
}
