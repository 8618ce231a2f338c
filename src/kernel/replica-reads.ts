/**
 * Reads of reference data that a D1 read replica near this Worker may answer (a "first-unconstrained"
 * session), going to the primary ("first-primary") only when the answer lacks what was asked for.
 *
 * Why this shape: the reads on the request path (an API key on a cache miss, the catalogue for a create on
 * a cache miss) are the only D1 calls a client waits for, and on a database whose primary is on another
 * continent each is a long round trip. A replica may lag the primary, so what it lacks is never taken as
 * an answer: a key issued or a SKU added a moment ago is not on the replica yet, and the primary decides.
 * What a lagging replica can still show is a change or a removal (a revoked key, a disabled SKU, a new
 * rate or deal) for as long as it lags, on top of the isolate caches' own staleness, which the callers
 * already accept. Writes (code reservations) never use this: they go to the primary as before. Without
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
