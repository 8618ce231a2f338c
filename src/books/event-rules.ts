/**
 * The client's events as its books keep them (docs/books.md, "Events"): each event in the shard of the day
 * it happened, one row keyed by (at, event id), its payload exactly as a webhook receiver gets it. Pure.
 * The books do not know what an event means: the contract is src/webhooks/events.ts (which the books may
 * not import); they read its id, type and time.
 */
import { DAY_MS, dayOf } from "./shard-rules";

/** An event as stored and listed: the webhook's body. */
export interface BookEvent {
  id: string;
  type: string;
  /** When it happened (unix ms): its day is its shard's. */
  createdAt: number;
  data: Record<string, unknown>;
  livemode: boolean;
}

/** How long a shard keeps its events: a list reaches no further back. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * DAY_MS;

/** The list's cursor `<at>.<eventId>` of the event a page ended on. */
export interface EventCursor {
  at: number;
  id: string;
}

/** The events of `events` that belong to the books of `day`. */
export function eventsOfDay<Event extends Pick<BookEvent, "createdAt">>(
  events: readonly Event[],
  day: number,
): Event[] {
  return events.filter((event) => dayOf(event.createdAt) === day);
}

/** The events grouped by the day they happened, in the order given. */
export function eventsByDay<Event extends Pick<BookEvent, "createdAt">>(
  events: readonly Event[],
): Map<number, Event[]> {
  const byDay = new Map<number, Event[]>();
  for (const event of events) {
    const day = dayOf(event.createdAt);
    byDay.set(day, [...(byDay.get(day) ?? []), event]);
  }
  return byDay;
}

/** Newest first: by time, then id, both descending. */
export function newestEventFirst(a: EventCursor, b: EventCursor): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function cursorText(cursor: EventCursor): string {
  return `${cursor.at}.${cursor.id}`;
}

/** The cursor a list gave, or null for text that is not one. */
export function parseEventCursor(text: string): EventCursor | null {
  const match = /^(\d{1,16})\.(evt_[A-Za-z0-9_]{1,100})$/.exec(text);
  if (match === null) return null;
  const at = Number(match[1]);
  return Number.isSafeInteger(at) ? { at, id: match[2]! } : null;
}

/** The earliest time a list shows at `now`: older events are past retention, whether or not deleted yet. */
export function oldestKept(now: number): number {
  return now - EVENT_RETENTION_MS;
}

/** When a shard of `day` deletes its events: once its last one is past retention. */
export function eventsExpireAt(day: number): number {
  return (day + 1) * DAY_MS + EVENT_RETENTION_MS;
}
