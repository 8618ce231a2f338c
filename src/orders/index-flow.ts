/**
 * The index flow: the order writes its own row to the order index (src/order-index/), from its `index`
 * timer, which a change the index shows sets INDEX_DELAY_MS ahead in the same write as the change
 * (order-store.ts). It runs after the client has its answer, never inside a request; a failed write is
 * retried by the timer with capped backoff like every other timer, and the index takes only a newer
 * version, so a write repeated after a crash, or one overtaken by a later one, changes nothing.
 */
import type { OrderHost } from "./order-host";
import { INDEX_DELAY_MS } from "./order-timers";
import { ORDER_SEAMS } from "./seams";

export type IndexHost = Pick<OrderHost, "store" | "io" | "now" | "writeIndexRow">;

/**
 * Writes the stored order's row at its index version; answers the D1 rows written. When the order changed
 * while the write was on its way, answers the time to write again instead (the change found the timer
 * already set and left it).
 */
export async function writeOrderIndex(host: IndexHost): Promise<{ rowsWritten: number; again: number | null }> {
  const order = host.store.load();
  if (order === null) return { rowsWritten: 0, again: null };
  const version = host.store.indexVersion();
  const rowsWritten = await host.io(ORDER_SEAMS.indexWrite, () => host.writeIndexRow(order, version));
  return { rowsWritten, again: host.store.indexVersion() === version ? null : host.now() + INDEX_DELAY_MS };
}

/** The `index` timer's run: null once the row shows the order as stored, else when to write again. */
export async function indexOrder(host: IndexHost): Promise<number | null> {
  return (await writeOrderIndex(host)).again;
}
