/**
 * The repair pass (POST /admin/orders/index/run): asks each order the index holds as still open to write
 * its row again from its own record (OrderObject.writeIndex). Every order writes its row itself after each
 * change (src/orders/index-flow.ts); the pass is for what that cannot cover, such as the rows the ledger
 * indexer of release 1.2 left open, and for an operator who wants to see an open order's row checked now.
 *
 * Its cost follows the orders still open, never the orders or wallets there have ever been: it reads the
 * partial index of open rows, and with none it is one read of the stored cursor and one empty read of that
 * index, whatever the number of wallets (test/order-index/order-index-repair.test.ts). A run reads at most
 * REPAIR_BATCH open orders; one that reaches that bound stores where it stopped, and the next run resumes
 * there (a run that dies midway stored nothing and starts again where the last one stopped: every write is
 * an upsert that takes only a newer version).
 */
import { objectIdOf } from "../orders/order-id";
import { openOrderCount, openOrderIds, repairCursor, saveRepairCursor } from "./order-index-store";

/** Open orders one run asks at most. */
export const REPAIR_BATCH = 2_000;
/** Order objects asked at once. */
const ASK_AT_ONCE = 16;

export interface RepairRun {
  /** Open orders asked to write their row. */
  orders: number;
  /** D1 rows the orders wrote, index entries included (0: the index had every one already). */
  rowsWritten: number;
  /** D1 rows the run read to find them (its stored cursor and the open orders). */
  rowsRead: number;
  /** Orders still open after the run. */
  open: number;
  /** Whether the run stopped at its bound: the next run resumes after the last order it asked. */
  more: boolean;
}

type RepairEnv = Pick<Env, "DB" | "ORDERS">;

/** One run of the repair pass, from where the last run that reached its bound stopped. */
export async function repairIndex(env: RepairEnv, batch = REPAIR_BATCH): Promise<RepairRun> {
  const cursor = await repairCursor(env.DB);
  const after = cursor.afterId;
  const open = await openOrderIds(env.DB, after, batch);
  const ids = open.ids;
  const rowsRead = cursor.rowsRead + open.rowsRead;
  let rowsWritten = 0;
  for (let start = 0; start < ids.length; start += ASK_AT_ONCE) {
    const asked = ids.slice(start, start + ASK_AT_ONCE).map(async (orderId) => {
      const id = objectIdOf(env.ORDERS, orderId);
      return id === null ? 0 : env.ORDERS.get(id).writeIndex();
    });
    for (const written of await Promise.all(asked)) rowsWritten += written;
  }
  const more = ids.length === batch;
  const next = more ? ids[ids.length - 1]! : "";
  // Written only when it moves: a run with nothing open, after one that finished, writes nothing.
  if (next !== after) await saveRepairCursor(env.DB, next);
  return { orders: ids.length, rowsWritten, rowsRead, open: ids.length === 0 ? 0 : await openOrderCount(env.DB), more };
}
