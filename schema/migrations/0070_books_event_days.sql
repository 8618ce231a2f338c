-- The days a client has events on (docs/books.md, "Events"): one row per (client, day) with at least one
-- event, written by the day's shard before it stores its first event (a repeat writes nothing), so that
-- GET /events opens only the days that have events, newest first, as GET /orders does with books_days.
-- A day with events but no orders (a top-up on a quiet day) is here and not in books_days. Rows of days
-- past the events' 30 days are never read (a list starts 30 days back).
CREATE TABLE books_event_days (
  client_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  PRIMARY KEY (client_id, day)
) WITHOUT ROWID;
