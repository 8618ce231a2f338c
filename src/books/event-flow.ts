/**
 * The event flow (docs/books.md, "Events"): a client's events stored in the shard of the day they happened.
 * An order's events ride with its row's write; a wallet's, a delivery's failure and an order's event of
 * another day come in a request of their own (BooksObject.events). Before the shard's synchronous step,
 * each idempotent and each through its fault seam: the day's first event registers the day in D1's
 * directory of event days, and the events the shard does not hold yet are announced to the client's
 * account webhook endpoints (the announcer src/index.ts hands the books: webhooks, which the books may not
 * import, turn each into a delivery on the queue). A failure throws and the sender retries; an event
 * announced and not stored (a crash between the two) is announced again by the retry, with the same id:
 * a receiver may get it twice and tells by its `webhook-id`. A stored event is never announced again.
 */
import { registerEventDay } from "./event-day-store";
import { eventsOfDay, eventsExpireAt, oldestKept, type BookEvent } from "./event-rules";
import type { EventStore } from "./event-store";
import { BOOKS_SEAMS, type BooksSeam } from "./seams";
import { dayOf, type ShardAddress } from "./shard-rules";

/** Hands new events of a client to its account webhook endpoints (set by src/index.ts). */
export type EventAnnouncer = (clientId: string, events: readonly BookEvent[]) => Promise<void>;

export interface EventHost {
  readonly events: EventStore;
  readonly db: D1Database;
  now(): number;
  io<T>(seam: BooksSeam, call: () => Promise<T>): Promise<T>;
  announce: EventAnnouncer;
  armAlarm(): Promise<void>;
}

/**
 * Stores the events of the shard's day it does not hold yet (others are not this shard's and are left
 * out); answers the rows written (0: all repeats).
 */
export async function recordEvents(
  host: EventHost,
  address: ShardAddress,
  events: readonly BookEvent[],
): Promise<number> {
  const missing = host.events.missing(eventsOfDay(events, address.day));
  if (missing.length === 0) return 0;
  if (!host.events.any()) await host.io(BOOKS_SEAMS.eventDay, () => registerEventDay(host.db, address));
  await host.io(BOOKS_SEAMS.announce, () => host.announce(address.clientId, missing));
  const written = host.events.store(missing);
  await host.armAlarm();
  return written;
}

/** When the shard's alarm must delete its events (null: it holds none). */
export function eventsDue(events: EventStore): number | null {
  const oldest = events.oldest();
  return oldest === null ? null : eventsExpireAt(dayOf(oldest));
}

/** Deletes the events past retention at `now`; answers the rows deleted. */
export function expireEvents(events: EventStore, now: number): number {
  const due = eventsDue(events);
  if (due === null || due > now) return 0;
  return events.deleteBefore(oldestKept(now));
}
