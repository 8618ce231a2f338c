-- How long the client's books are kept (docs/books.md, "Retention"): one row once an operator sets it;
-- without one, everything is kept. The scheduled job drops the days older than it, a bounded number a
-- run, from the directory's day index (books_days_by_day): each shard of such a day deletes its rows, then
-- its directory rows go. Only days past the setting are read; nothing walks the days kept.
CREATE TABLE books_retention (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  days INTEGER NOT NULL CHECK (days >= 31),
  set_at INTEGER NOT NULL,
  set_by TEXT NOT NULL
);
