-- The rows already in order_index move into the client's books (docs/books.md, "The order of work"): a
-- backfill walks order_index by its key (client_id, created_at, id) in bounded steps, from the scheduled
-- job, and asks each order to write its own row to its books (the repair pass's write: from the order's
-- own record, taking only a newer version, so a step repeated after a crash writes nothing twice). This
-- row is where it stands; the service keeps answering meanwhile. It starts with this migration and is
-- finished once a step finds nothing after its cursor.
CREATE TABLE order_index_backfill (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  after_client TEXT NOT NULL DEFAULT '',
  after_created INTEGER NOT NULL DEFAULT -1,
  after_id TEXT NOT NULL DEFAULT '',
  orders INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  finished_at INTEGER
);
INSERT INTO order_index_backfill (id, started_at)
  VALUES (1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
