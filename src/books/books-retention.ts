/**
 * Retention of the client's books (docs/books.md, "Retention"; retention-rules.ts): the days older than the
 * operator's setting are dropped by the scheduled job, from the directory's day index, a bounded number of
 * shards a run. Each shard deletes its rows first, then its directory rows go, so a run cut off between
 * the two leaves a directory row for an empty shard, which the next run drops again (a drop is
 * idempotent). With no setting everything is kept, and a run reads one row.
 */
import { io } from "../kernel/faults";
import { forgetShard, retentionOf, shardsBefore } from "./directory-store";
import { firstKeptDay } from "./retention-rules";
import { BOOKS_SEAMS } from "./seams";
import { shardOf } from "./books-writer";

/** Shards one run drops at most, and how many at once. */
export const DROPS_PER_RUN = 4_000;
const DROP_AT_ONCE = 32;
/** How long a run goes on dropping (the scheduled job's CPU limit is 30 s). */
const RETENTION_RUN_MS = 20_000;

/** Drops the shards of the days past retention at `now`; answers how many it dropped. */
export async function dropExpiredDays(
  env: Pick<Env, "DB" | "BOOKS">,
  now: number,
  limit = DROPS_PER_RUN,
  budgetMs = RETENTION_RUN_MS,
): Promise<number> {
  const cutoff = firstKeptDay(now, await retentionOf(env.DB));
  if (cutoff === null) return 0;
  const shards = await shardsBefore(env.DB, cutoff, limit);
  const until = Date.now() + budgetMs;
  let dropped = 0;
  for (let start = 0; start < shards.length && Date.now() < until; start += DROP_AT_ONCE)
    await Promise.all(
      shards.slice(start, start + DROP_AT_ONCE).map(async (address) => {
        await io(BOOKS_SEAMS.drop, () => shardOf(env.BOOKS, address).drop());
        await io(BOOKS_SEAMS.forget, () => forgetShard(env.DB, address));
        dropped += 1;
      }),
    );
  return dropped;
}
