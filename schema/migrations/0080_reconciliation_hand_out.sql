-- The reconciliation's hand-out in pages (src/reconciliation/due-pages.ts, docs/operator-api.md,
-- Reconciliation, "The queue"): the last wallet-day of changed books a pass offered, as JSON
-- {"clientId","currency","day"} (empty before the first). The next pass reads the changed days after it,
-- then from the start up to it: a pass that cannot take every day due takes the next ones the pass after,
-- so no client's days wait behind another's for more than a lap. One column of the checkpoint's one row,
-- written with it: no row more a pass.
ALTER TABLE reconciliation_checkpoint ADD COLUMN changed_after TEXT NOT NULL DEFAULT '';
