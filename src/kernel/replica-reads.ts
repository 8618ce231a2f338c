/**
 * Reads of reference data that a D1 read replica near this Worker may answer (a "first-unconstrained"
 * session), going to the primary ("first-primary") only when the answer lacks what was asked for.
 *
 * Why this shape: the reads on the request path (an API key on a cache miss, the catalogue for a create on
 * a cache miss) are the only D1 calls a client waits for, and on a database whose primary is on another
 * continent each is a long round trip. A replica may lag the primary, so what it lacks is never taken as
 * an answer: a key issued or a SKU added a moment ago is not on the replica yet, and the primary decides.
 * What a lagging replica can still show is a change or a removal (a disabled SKU, a new rate or deal) for
 * as long as it lags, on top of the catalogue cache's own staleness, which its caller accepts; a reader
 * that promises a flat bound (a revoked key) uses readNoOlderThan below instead. Writes (code reservations) never use this: they go to the primary as before. Without
 * read replication enabled on the database, both sessions are the primary and a miss costs one more read.
 */
export async function readNearestThenPrimary<T>(
  db: Pick<D1Database, "withSession">,
  read: (session: D1DatabaseSession) => Promise<T>,
  complete: (answer: T) => boolean,
): Promise<T> {
  const nearest = await read(db.withSession("first-unconstrained"));
  if (complete(nearest)) return nearest;
  return read(db.withSession("first-primary"));
}

/**
 * A bookmark the primary gave this isolate (for the Worker's one D1 database) and the time, by this
 * isolate's clock, just before the read that gave it: a session started from the bookmark sees the database
 * as it was at `asOf` or later, wherever D1 serves it (a replica behind the bookmark waits or hands over).
 */
let primaryMark: { bookmark: string; asOf: number } | null = null;

/** Forgets the bookmark: the next dated read goes to the primary. For a write this isolate just made. */
export function forgetPrimaryMark(): void {
  primaryMark = null;
}

/** An answer and the time (this isolate's clock) at which the database was at least as new as it says. */
export interface DatedAnswer<T> {
  answer: T;
  asOf: number;
}

/**
 * A read whose answer is dated: it shows the database as it was at `asOf` or later, and `asOf` is at most
 * `maxAgeMs` old when the read starts. So a caller that keeps the answer until `asOf` plus a bound keeps
 * nothing longer than that bound after the change that made it stale, however far a replica lags.
 *
 * Cheap on the request path: the read starts from the isolate's last primary bookmark while that is
 * young enough, so the nearest replica that has caught up with it answers; the primary is read (and the
 * bookmark renewed) only when there is no such bookmark, when it is older than `maxAgeMs` (once per
 * `maxAgeMs` per isolate, whatever the number of reads), and, as readNearestThenPrimary does, when the
 * answer lacks what was asked for (a row added since the bookmark).
 */
export async function readNoOlderThan<T>(
  db: Pick<D1Database, "withSession">,
  maxAgeMs: number,
  read: (session: D1DatabaseSession) => Promise<T>,
  complete: (answer: T) => boolean,
): Promise<DatedAnswer<T>> {
  const mark = primaryMark;
  if (mark !== null && Date.now() - mark.asOf <= maxAgeMs) {
    const answer = await read(db.withSession(mark.bookmark));
    if (complete(answer)) return { answer, asOf: mark.asOf };
  }
  // Taken before the read: the primary answers with what it has at that moment or later.
  const asOf = Date.now();
  const session = db.withSession("first-primary");
  const answer = await read(session);
  const bookmark = session.getBookmark();
  if (bookmark !== null && (primaryMark === null || primaryMark.asOf <= asOf)) primaryMark = { bookmark, asOf };
  return { answer, asOf };
}
