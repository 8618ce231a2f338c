-- The operator's exports across clients (docs/books.md, "Exports across clients"): one row per job, which
-- walks the client's books through their directory (books_days) and writes its CSV to R2 (the EXPORTS
-- binding) in numbered chunks, `exports/<id>/<chunk>.csv`, one chunk a step. Written by src/exports/ alone.
--   filter: JSON {clientId?, state?, sku?, createdFrom?, createdTo?, reference?}, with createdTo at most
--     the job's own creation time, so that a job never chases orders made while it runs;
--   from_day, to_day: the UTC days it walks, newest first (to_day down to from_day);
--   cursor: JSON {day, clientId, part, after: {createdAt, id} | null}: the shard the next step starts in and
--     the last row written of it (null: from its newest row); null before the first step;
--   step: the steps done, which is the number of the next chunk; a step moves the cursor only from the
--     step it read (a conditional UPDATE), so two runs of one step move it once;
--   run, lease_until: the run that holds the next step, until when: a second run of a step finds it taken
--     and leaves it, so that no chunk is written by two runs (docs/books.md says why).
CREATE TABLE order_exports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  filter TEXT NOT NULL,
  from_day INTEGER NOT NULL,
  to_day INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'done')),
  cursor TEXT,
  step INTEGER NOT NULL DEFAULT 0,
  rows INTEGER NOT NULL DEFAULT 0,
  run TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  requested_by TEXT NOT NULL,
  requested_by_name TEXT,
  created_at INTEGER NOT NULL,
  stepped_at INTEGER NOT NULL,
  finished_at INTEGER
);
-- The jobs the cron hands on again when their step was lost: only the running ones are in it.
CREATE INDEX order_exports_running ON order_exports (stepped_at) WHERE state = 'running';
