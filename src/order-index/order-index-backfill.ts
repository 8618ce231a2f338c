/**
 * The backfill of the client's books (docs/books.md, "The order of work"; migration 0031): the orders
 * already in D1's order index, each asked to write its own row to its books from its own record (the
 * repair pass's write, OrderObject.writeIndex), in bounded steps that walk the index by its key. A step
 * moves the cursor only after its orders have written; one cut off (a crash, a failed call) leaves the
 * cursor where it was, and the next step asks the same orders again, whose writes are repeats (the books
 * take only a newer version). The scheduled job runs steps for a bounded time each run until a step finds
 * nothing more; the service keeps answering meanwhile. The step that finds nothing more drops the order
 * index (nothing writes or reads it any more) before it saves the backfill finished: cut off between the
 * two, the next step finds no table, nothing after its cursor, and finishes again.
 */
import { io } from "../kernel/faults";
import { objectIdOf } from "../orders/order-id";
import { backfillState, dropOrderIndex, indexKeysAfter, saveBackfill } from "./order-index-store";
import { ORDER_INDEX_SEAMS } from "./seams";

/** Orders one step asks at most. */
export const BACKFILL_STEP = 200;
/** Order objects asked at once. */
const ASK_AT_ONCE = 16;
/** How long a scheduled run goes on stepping (its CPU limit is 30 s). */
export const BACKFILL_RUN_MS = 20_000;

export interface BackfillStep {
  /** Orders asked to write their books. */
  asked: number;
  /** Whether orders are left after this step. */
  more: boolean;
}

type BackfillEnv = Pick<Env, "DB" | "ORDERS">;

/** One step of the backfill, from its cursor; nothing when it has finished (or was never started). */
export async function backfillStep(env: BackfillEnv, limit = BACKFILL_STEP): Promise<BackfillStep> {
  const state = await backfillState(env.DB);
  if (state === null || state.finishedAt !== null) return { asked: 0, more: false };
  const keys = await indexKeysAfter(env.DB, state.after, limit);
  for (let start = 0; start < keys.length; start += ASK_AT_ONCE)
    await Promise.all(
      keys.slice(start, start + ASK_AT_ONCE).map(async (key) => {
        const id = objectIdOf(env.ORDERS, key.id);
        if (id !== null) await io(ORDER_INDEX_SEAMS.backfillAsk, () => env.ORDERS.get(id).writeIndex());
      }),
    );
  // Finished only by a step that finds nothing: the one before it has saved every order it asked.
  const more = keys.length > 0;
  if (!more) await io(ORDER_INDEX_SEAMS.backfillDrop, () => dropOrderIndex(env.DB));
  const after = keys[keys.length - 1] ?? state.after;
  await io(ORDER_INDEX_SEAMS.backfillSave, () =>
    saveBackfill(env.DB, after, state.orders + keys.length, more ? null : Date.now()),
  );
  return { asked: keys.length, more };
}

/** Steps of the backfill for up to `budgetMs` (the scheduled job's run); answers the orders asked. */
export async function runBackfill(
  env: BackfillEnv,
  budgetMs = BACKFILL_RUN_MS,
  limit = BACKFILL_STEP,
): Promise<number> {
  const until = Date.now() + budgetMs;
  let asked = 0;
  for (;;) {
    const step = await backfillStep(env, limit);
    asked += step.asked;
    if (!step.more || Date.now() >= until) return asked;
  }
}
