/**
 * The fault seams of the books: every I/O call a shard makes between two of its writes goes through `io()`
 * (src/kernel/faults.ts) under one of these names; the fault-injection suite (test/crash) has a case for
 * each. The order's own write to its shard is the order's seam `order.books-write` (src/orders/seams.ts).
 */
export const BOOKS_SEAMS = {
  /** write: the day registered in D1's directory before the shard's first row of a wallet. */
  register: "books.register",
  /** write: an order that ended failed or partial added to D1's exceptions before its row is stored. */
  exception: "books.exception",
  /** a shard's instance reads its day's parts from D1 before its first write. */
  layout: "books.layout",
  /** alarm: the counters published to D1. */
  publish: "books.publish",
  /** events: the day registered in D1's directory of event days before the shard's first event. */
  eventDay: "books.event-day",
  /** events: new events handed to the client's account webhook endpoints before they are stored. */
  announce: "books.announce",
  /** retention: a shard of a day past it deletes its rows. */
  drop: "books.drop",
  /** retention: then the day's directory rows of that shard go. */
  forget: "books.forget",
} as const;

export type BooksSeam = (typeof BOOKS_SEAMS)[keyof typeof BOOKS_SEAMS];
