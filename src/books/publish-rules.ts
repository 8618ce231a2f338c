/**
 * When a shard publishes its counters to D1 (docs/books.md, "Counters and publishing them to D1"): a
 * publish costs a D1 row per wallet that changed and an alarm run, so a quiet shard publishes within the
 * hour (a client of 100 orders a day pays at most about 24 rows for its day, not one an order) and a busy
 * one once a minute (a sixtieth of a row an order or less). Pure.
 */

/** A shard with changes waiting publishes at the latest this long after the first of them. */
export const QUIET_PUBLISH_MS = 3_600_000;
/** Changes waiting that make a shard publish as soon as the minute since its last publish has passed. */
export const BUSY_CHANGES = 60;
/** Never more often than this. */
export const MIN_PUBLISH_INTERVAL_MS = 60_000;

export interface PublishState {
  now: number;
  /** Changes of the counters not yet published. */
  waiting: number;
  /** When the first of them was made (unix ms). */
  firstWaitingAt: number;
  /** When the shard last published (0: not since its instance started). */
  lastPublishAt: number;
}

/** When the shard should publish next; null when nothing waits. */
export function publishDue(state: PublishState): number | null {
  if (state.waiting <= 0) return null;
  const earliest = state.lastPublishAt + MIN_PUBLISH_INTERVAL_MS;
  if (state.waiting >= BUSY_CHANGES) return Math.max(state.now, earliest);
  return Math.max(state.firstWaitingAt + QUIET_PUBLISH_MS, earliest);
}

/** The alarm a shard should have: the earliest of what is due (null: none). */
export function earliest(...times: (number | null)[]): number | null {
  let first: number | null = null;
  for (const time of times) if (time !== null && (first === null || time < first)) first = time;
  return first;
}
