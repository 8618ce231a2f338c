/**
 * The index flow: a change to a state the order index holds (order-index.ts) writes the order's row just
 * before the change is stored. Should the object die between the two, the row is ahead of the order until
 * the flow that was storing the change runs again and stores it (its own timer retries it) and writes the
 * row again; a later write of the same order always wins. Should the write fail, the change is stored with
 * the `index` timer, which writes the row from the stored order until D1 takes it.
 */
import { logFailure } from "../kernel/log";
import { indexRowOf, isIndexed, writeIndexRow } from "./order-index";
import type { OrderRecord } from "./order-record";
import type { OrderStore } from "./order-store";
import { ORDER_SEAMS, type OrderSeam } from "./seams";

/** The part of the order's host (order-host.ts, which calls this module from its `save`) the flow uses. */
export interface IndexHost {
  readonly db: D1Database;
  io<T>(seam: OrderSeam, call: () => Promise<T>): Promise<T>;
}

/** Writes the row of `order` ahead of storing it; answers false when it did not, for the timer to retry. */
export async function indexAhead(host: IndexHost, order: OrderRecord): Promise<boolean> {
  try {
    await host.io(ORDER_SEAMS.indexWrite, () => writeIndexRow(host.db, indexRowOf(order)));
    return true;
  } catch (error) {
    logFailure(error, { step: "order.index", orderId: order.id, clientId: order.clientId });
    return false;
  }
}

/** The `index` timer: writes the row of the order as stored (a throw leaves the timer to retry). */
export async function writeIndex(host: IndexHost & { readonly store: OrderStore }): Promise<void> {
  const order = host.store.load();
  if (order === null || !isIndexed(order.state)) return;
  await host.io(ORDER_SEAMS.indexWrite, () => writeIndexRow(host.db, indexRowOf(order)));
}
