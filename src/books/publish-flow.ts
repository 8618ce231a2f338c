/**
 * The publish flow, run by the shard's alarm (docs/books.md, "Counters and publishing them to D1"): each
 * wallet's counters that changed since the last publish replace its D1 row, which takes only more changes,
 * so a publish repeated after a crash or a lost answer writes nothing. A part whose day runs faster than
 * its share sets more parts for tomorrow (shard-rules.ts, partsWanted).
 */
import { layoutsOf, publishStatement, setLayout } from "./directory-store";
import { publishDue } from "./publish-rules";
import { BOOKS_SEAMS } from "./seams";
import type { ShardHost } from "./shard-host";
import { dayOf, firstLayoutDay, partsOn, partsWanted } from "./shard-rules";

export type PublishHost = Pick<ShardHost, "store" | "db" | "now" | "io" | "parts" | "publishing">;

/** Changes of the counters not yet published by this instance (every one, after a restart). */
export function waitingChanges(host: Pick<ShardHost, "store" | "publishing">): number {
  let waiting = 0;
  for (const stored of host.store.allCounters())
    waiting += stored.changes - (host.publishing.published.get(stored.wallet) ?? 0);
  return waiting;
}

/** When the shard should publish next, or null. */
export function nextPublish(host: Pick<ShardHost, "store" | "publishing" | "now">): number | null {
  const { publishing } = host;
  return publishDue({
    now: host.now(),
    waiting: waitingChanges(host),
    firstWaitingAt: publishing.firstWaitingAt ?? host.now(),
    lastPublishAt: publishing.lastPublishAt,
  });
}

/** Publishes every wallet whose counters changed; answers the D1 rows written. */
export async function publish(host: PublishHost): Promise<number> {
  const address = host.store.address();
  if (address === null) return 0;
  const now = host.now();
  const due = host.store
    .allCounters()
    .filter((stored) => stored.changes > (host.publishing.published.get(stored.wallet) ?? 0));
  let written = 0;
  if (due.length > 0) {
    const results = await host.io(BOOKS_SEAMS.publish, () =>
      host.db.batch(due.map((stored) => publishStatement(host.db, address, stored, now))),
    );
    for (const result of results) written += result.meta.rows_written ?? 0;
    for (const stored of due) host.publishing.published.set(stored.wallet, stored.changes);
  }
  host.publishing.firstWaitingAt = null;
  host.publishing.lastPublishAt = now;
  if (address.day === dayOf(now)) await splitTomorrow(host, now);
  return written;
}

/** Sets tomorrow's parts when this part's day has run faster than a part should. */
async function splitTomorrow(host: PublishHost, now: number): Promise<void> {
  const address = host.store.address()!;
  const since = host.store.firstCreatedAt();
  if (since === null) return;
  const orders = host.store.allCounters().reduce((sum, stored) => sum + stored.counters.orders, 0);
  const wanted = partsWanted(orders, since, now, await host.parts(address));
  if (wanted === null) return;
  await host.io(BOOKS_SEAMS.publish, async () => {
    const fromDay = firstLayoutDay(now);
    if (partsOn(await layoutsOf(host.db, address.clientId), fromDay) >= wanted) return;
    await setLayout(host.db, { clientId: address.clientId, fromDay, parts: wanted, setBy: "books" }, now);
  });
}
