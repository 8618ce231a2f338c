/**
 * Writing a client's events to its books from outside its shards (docs/books.md, "Events"): the events of
 * a day go to part 0 of that day (a list asks every part of a day, so any part may hold a day's events;
 * an order's events of its own day ride with its row to the order's part instead). One request per day.
 */
import { shardOf, writeToBooks, type BooksNamespace } from "./books-writer";
import { eventsByDay, type BookEvent } from "./event-rules";
import type { BookWrite } from "./row-rules";
import { dayOf } from "./shard-rules";

/** Stores each event in the shard of its day (a repeat writes nothing); answers the rows written. */
export async function recordClientEvents(
  namespace: BooksNamespace,
  clientId: string,
  events: readonly BookEvent[],
): Promise<number> {
  const written = await Promise.all(
    [...eventsByDay(events)].map(async ([day, ofDay]) => {
      const address = { clientId, day, part: 0 };
      return (await shardOf(namespace, address).recordEvents(address, ofDay)) as number;
    }),
  );
  return written.reduce((sum, rows) => sum + rows, 0);
}

/**
 * An order's books write: its row with its events of the row's day in one request, then its events of
 * another day (an order created before midnight and ended after) to that day's shard, a request a day;
 * answers the rows written. A failure of either throws and the order's timer writes both again (repeats
 * write nothing).
 */
export async function writeOrderBooks(
  namespace: BooksNamespace,
  row: BookWrite,
  events: readonly BookEvent[],
): Promise<number> {
  const day = dayOf(row.createdAt);
  const written = await writeToBooks(namespace, row, events);
  const later = events.filter((event) => dayOf(event.createdAt) !== day);
  return written + (later.length === 0 ? 0 : await recordClientEvents(namespace, row.clientId, later));
}
