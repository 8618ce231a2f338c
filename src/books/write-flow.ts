/**
 * The write flow: an order's row written to its shard, with its wallet's counters in the same transaction
 * (docs/books.md, "Writing an order"). What must reach D1 first (the day in the directory, the order among
 * the exceptions) is written before the shard's own step, each idempotent: a failure throws, the order's
 * timer retries, and nothing is half done. The shard's step reads, computes and writes with nothing awaited
 * in between, so two writes never interleave inside it.
 */
import { afterWrite, emptyCounters } from "./counters-rules";
import { registerDay } from "./directory-store";
import { isException, recordException } from "./exception-store";
import { flushAnswers } from "./answer-flow";
import { mergeAnswers } from "./answer-rules";
import { hashedRow, isNewer, type BookRow, type BookWrite } from "./row-rules";
import { BOOKS_SEAMS } from "./seams";
import type { ShardHost } from "./shard-host";
import { dayOf, partOf, type ShardAddress } from "./shard-rules";
import type { StoredCounters } from "./shard-store";

export type WriteHost = Pick<
  ShardHost,
  "store" | "db" | "now" | "io" | "parts" | "waiting" | "publishing" | "armAlarm"
>;

/**
 * What a write answers: the rows it wrote (0: the shard had this version or a newer one) and the day's
 * parts, or that the order belongs to another part of the day (nothing written), with the day's parts.
 */
export type WriteAnswer = { written: number; parts: number } | { misrouted: true; parts: number };

/**
 * Writes `sent` to the shard at `address`, taking only a newer version. Its members of the day's sets are
 * hashed here, from what was sent (set-hash-rules.ts), before the shard's synchronous step.
 */
export async function writeRow(host: WriteHost, address: ShardAddress, sent: BookWrite): Promise<WriteAnswer> {
  if (sent.clientId !== address.clientId || dayOf(sent.createdAt) !== address.day)
    throw new Error(`order ${sent.id} is not of the books of ${address.clientId} on day ${address.day}`);
  const parts = await host.parts(address);
  if (partOf(sent.id, parts) !== address.part) return { misrouted: true, parts };
  if (!isNewer(sent, host.store.row(sent.createdAt, sent.id))) return { written: 0, parts };
  const row = await hashedRow(sent);
  const stored = host.store.row(row.createdAt, row.id);
  const now = host.now();
  if (host.store.counters(row.wallet) === null)
    await host.io(BOOKS_SEAMS.register, () => registerDay(host.db, address, row.wallet, now));
  if (isException(row.state) && (stored === null || !isException(stored.state)))
    await host.io(BOOKS_SEAMS.exception, () => recordException(host.db, address.clientId, row, now));
  const written = storeRow(host, address, row, now) + flushAnswers(host);
  if (written > 0) await host.armAlarm();
  return { written, parts };
}

/** The shard's step: the row, its waiting answers and its wallet's counters, read and written at once. */
function storeRow(host: WriteHost, address: ShardAddress, row: BookRow, now: number): number {
  // Read again: a write of the same order may have been stored while this one was writing to D1.
  const stored = host.store.row(row.createdAt, row.id);
  if (!isNewer(row, stored)) return 0;
  const counters: StoredCounters = host.store.counters(row.wallet) ?? {
    wallet: row.wallet,
    counters: emptyCounters(),
    changes: 0,
    changedAt: 0,
  };
  const waiting = host.waiting.get(row.id);
  const deliveries = mergeAnswers(stored?.deliveries ?? {}, waiting?.answers ?? []);
  const written = host.store.write(address, row, deliveries, {
    wallet: row.wallet,
    counters: afterWrite(counters.counters, stored, row),
    changes: counters.changes + 1,
    changedAt: now,
  });
  host.waiting.delete(row.id);
  host.publishing.firstWaitingAt ??= now;
  return written;
}
