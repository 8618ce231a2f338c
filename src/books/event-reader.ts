/**
 * Reading a client's events (docs/books.md, "Events"): a page newest first across its days with events and
 * their parts. The days come from D1's directory of event days, so a day without events is never opened;
 * a day's parts are asked at once and merged by (at, id). The cursor `<at>.<eventId>` carries a walk on
 * strictly after the last event shown, so it neither repeats nor skips one while events are being added
 * (newer ones come before its first page). Nothing older than the retention is listed.
 */
import { shardOf } from "./books-writer";
import { layoutsOf } from "./directory-store";
import { eventDays } from "./event-day-store";
import { EVENT_RETENTION_DAYS, newestEventFirst, oldestKept, type BookEvent, type EventCursor } from "./event-rules";
import type { EventQuery } from "./event-store";
import { dayOf, partsOn, type Layout } from "./shard-rules";

export type EventsEnv = Pick<Env, "DB" | "BOOKS">;

/** What a list of a client's events is filtered by. */
export interface EventFilter {
  types?: readonly string[];
  /** Unix ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
}

/** Every day the retention keeps, today included: a page never needs more. */
const DAYS_KEPT = EVENT_RETENTION_DAYS + 2;
/** Days opened at once. */
const DAYS_AT_ONCE = 4;

function cursorOf(event: BookEvent): EventCursor {
  return { at: event.createdAt, id: event.id };
}

async function dayEvents(
  env: EventsEnv,
  clientId: string,
  day: number,
  layouts: readonly Layout[],
  query: EventQuery,
): Promise<BookEvent[]> {
  const parts = partsOn(layouts, day);
  const lists = (await Promise.all(
    Array.from({ length: parts }, (_, part) => shardOf(env.BOOKS, { clientId, day, part }).eventPage(query)),
  )) as BookEvent[][];
  return lists
    .flat()
    .sort((a, b) => newestEventFirst(cursorOf(a), cursorOf(b)))
    .slice(0, query.limit);
}

/** Up to `limit` of the client's events after `after`, newest first, and the cursor of the next page (null: none). */
export async function clientEvents(
  env: EventsEnv,
  clientId: string,
  { filter, after, limit, now }: { filter: EventFilter; after: EventCursor | null; limit: number; now: number },
): Promise<{ events: BookEvent[]; next: EventCursor | null }> {
  const from = Math.max(filter.createdFrom ?? 0, oldestKept(now));
  const upper = Math.min(after?.at ?? Infinity, filter.createdTo ?? Infinity, now + 86_400_000);
  if (upper < from) return { events: [], next: null };
  const [days, layouts] = await Promise.all([
    eventDays(env.DB, clientId, dayOf(from), dayOf(upper), DAYS_KEPT),
    layoutsOf(env.DB, clientId),
  ]);
  const events: BookEvent[] = [];
  for (let start = 0; start < days.length; start += DAYS_AT_ONCE) {
    const query: EventQuery = {
      after,
      from,
      ...(filter.createdTo !== undefined ? { to: filter.createdTo } : {}),
      ...(filter.types !== undefined ? { types: filter.types } : {}),
      limit: limit + 1 - events.length,
    };
    const pages = await Promise.all(
      days.slice(start, start + DAYS_AT_ONCE).map((day) => dayEvents(env, clientId, day, layouts, query)),
    );
    for (const page of pages) events.push(...page.slice(0, limit + 1 - events.length));
    if (events.length > limit) {
      const shown = events.slice(0, limit);
      return { events: shown, next: cursorOf(shown[shown.length - 1]!) };
    }
  }
  return { events, next: null };
}
