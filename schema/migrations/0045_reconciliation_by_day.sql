-- The reconciliation by wallet and day (src/reconciliation/, docs/operator-api.md, Reconciliation): each
-- (client, currency, day) with activity is checked by comparing the summaries of its ledger, its books, its
-- codes and its audit rows; a day that agrees is sealed, one that does not is drilled order by order.

-- One row per wallet-day the reconciliation has met: what it last saw and what it decided.
--   state: 'open' (seen, not settled yet), 'sealed' (agreed; `seal` holds its summaries), 'mismatch'.
--   books_changes: the books' changes of the day (summed over its parts) as last checked: a publish that
--     moves it makes the day due again, so a late refund or row reopens this day only.
--   due_at: when the day next needs a check for its own sake (a day still settling), or NULL.
--   verify_at: when a sealed day is next re-verified, or NULL (docs/operator-api.md, "Sealed days").
--   seal: JSON of the summaries the seal agreed on (totals and hashes), compared at each re-verification.
CREATE TABLE reconciliation_days (
  client_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  day INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'sealed', 'mismatch')),
  books_changes INTEGER NOT NULL DEFAULT 0,
  first_seen_at INTEGER NOT NULL,
  checked_at INTEGER NOT NULL,
  due_at INTEGER,
  verify_at INTEGER,
  verified INTEGER NOT NULL DEFAULT 0,
  seal TEXT,
  PRIMARY KEY (client_id, currency, day)
) WITHOUT ROWID;
-- The days a pass must look at without a new publish: those still settling, and sealed days due their
-- re-verification. Partial: a sealed day waiting for neither has no entry.
CREATE INDEX reconciliation_days_due ON reconciliation_days (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX reconciliation_days_verify ON reconciliation_days (verify_at) WHERE verify_at IS NOT NULL;

-- A mismatch found by a day's check belongs to that day: the next check of the day replaces them all.
-- NULL for those found from a feed (an audit row, a code sold), replaced by their subject as before.
ALTER TABLE reconciliation_findings ADD COLUMN day_key TEXT;
CREATE INDEX reconciliation_findings_day ON reconciliation_findings (day_key) WHERE day_key IS NOT NULL;

-- The run by creation's leftovers go with it: nothing is left over by order any more, and no cursor is
-- kept per ledger (a day's summary reads the day's window of the ledger).
DROP TRIGGER IF EXISTS order_index_late_row;
DROP TABLE IF EXISTS reconciliation_deferred;
DROP TABLE IF EXISTS reconciliation_ledger_cursors;
DROP TABLE IF EXISTS reconciliation_wallets_left;
