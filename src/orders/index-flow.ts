/**
 * The index flow: the order writes its own row to its client's books (src/books/, its shard) from its
 * `index` timer, which a change the books show sets INDEX_DELAY_MS ahead in the same write as the change
 * (order-store.ts). It runs after the client has its answer, never inside a request; a failed write is
 * retried by the timer with capped backoff like every other timer, and the books take only a newer
 * version, so a write repeated after a crash, or one overtaken by a later one, changes nothing. (D1's
 * order index is no longer written: it is only the backfill's source until the backfill drops it.)
 */
import type { OrderHost } from "./order-host";
import { INDEX_DELAY_MS } from "./order-timers";
import { ORDER_SEAMS } from "./seams";

export type IndexHost = Pick<OrderHost, "store" | "io" | "now" | "writeBooks">;

/**
 * Writes the stored order's row at its index version to its books; answers the rows the shard wrote. When
 * the order changed while the write was on its way, answers the time to write again instead (the change
 * found the timer already set and left it).
 */
export async function writeOrderIndex(host: IndexHost): Promise<{ booksRowsWritten: number; again: number | null }> {
  const order = host.store.load();
  if (order === null) return { booksRowsWritten: 0, again: null };
  const version = host.store.indexVersion();
  const booksRowsWritten = await host.io(ORDER_SEAMS.booksWrite, () => host.writeBooks(order, version));
  return { booksRowsWritten, again: host.store.indexVersion() === version ? null : host.now() + INDEX_DELAY_MS };
}

/** The `index` timer's run: null once the row shows the order as stored, else when to write again. */
export async function indexOrder(host: IndexHost): Promise<number | null> {
  return (await writeOrderIndex(host)).again;
}
