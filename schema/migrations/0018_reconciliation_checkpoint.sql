-- The reconciliation follows activity (src/orders/reconciliation.ts): each run checks what changed since
-- the last run's checkpoint, and resumes there. docs/operator-api.md, Reconciliation, says what it checks.

-- Where the last run stopped in each feed: the index by modified_at, sold codes by sold_at, the audit log's
-- wallet postings by id, the registry's moves by moved_at. One row. `started_at` without a later
-- `finished_at` is a run that did not finish; `left_rising` counts the runs in a row whose count left to the
-- next run grew.
CREATE TABLE reconciliation_checkpoint (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  orders_at INTEGER NOT NULL DEFAULT 0,
  orders_id TEXT NOT NULL DEFAULT '',
  codes_at INTEGER NOT NULL DEFAULT 0,
  codes_id INTEGER NOT NULL DEFAULT 0,
  audit_id INTEGER NOT NULL DEFAULT 0,
  moves_at INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL DEFAULT 0,
  finished_at INTEGER NOT NULL DEFAULT 0,
  left_to_next INTEGER NOT NULL DEFAULT 0,
  left_rising INTEGER NOT NULL DEFAULT 0
);

-- How far the reconciliation has read each wallet object's ledger (by the object's name).
CREATE TABLE reconciliation_ledger_cursors (
  wallet TEXT PRIMARY KEY,
  after_seq INTEGER NOT NULL
) WITHOUT ROWID;

-- Orders a run could not check yet (still changing): every run reads them again, and one waiting longer
-- than the bound (an hour) is checked whatever it is doing.
CREATE TABLE reconciliation_deferred (
  order_id TEXT PRIMARY KEY,
  since INTEGER NOT NULL
) WITHOUT ROWID;

-- The mismatches still standing: a run that checks a subject (an order, a wallet, a code, an audit row)
-- again replaces that subject's rows, so one found once stays until a check finds it gone.
CREATE TABLE reconciliation_findings (
  subject TEXT NOT NULL,
  check_name TEXT NOT NULL,
  problem TEXT NOT NULL,
  order_id TEXT,
  client_id TEXT,
  look_at TEXT NOT NULL,
  found_at INTEGER NOT NULL,
  PRIMARY KEY (subject, check_name, problem)
) WITHOUT ROWID;

-- On-demand runs, by who asked, for their rate limit.
CREATE TABLE reconciliation_demands (
  actor TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (actor, at)
) WITHOUT ROWID;

-- The stored run's alert lines (a run that did not finish, a rising count left to the next run).
ALTER TABLE reconciliation_run ADD COLUMN alerts TEXT NOT NULL DEFAULT '[]';

-- The feeds' period queries.
CREATE INDEX order_index_changed ON order_index (modified_at, id);
CREATE INDEX codes_sold ON codes (sold_at, id) WHERE status = 'sold';
ALTER TABLE wallets ADD COLUMN moved_at INTEGER;
CREATE INDEX wallets_moved ON wallets (moved_at) WHERE moved_at IS NOT NULL;
