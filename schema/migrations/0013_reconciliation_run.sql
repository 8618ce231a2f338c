-- The last reconciliation run (src/orders/reconciliation.ts): when it ran, the period it checked, what it
-- counted and its mismatches, for the Needs attention list (GET /admin/attention, the console's home page).
-- One row: each run replaces the last in one batch, so the list never shows two runs mixed. Only the first
-- mismatches are kept (the list shows 50; every one is also a log line of its run), with their count.
CREATE TABLE reconciliation_run (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  ran_at INTEGER NOT NULL,
  created_from INTEGER NOT NULL,
  created_to INTEGER NOT NULL,
  checked TEXT NOT NULL,
  mismatch_count INTEGER NOT NULL,
  mismatches TEXT NOT NULL
);
