-- Dual control of operator postings (docs/operator-api.md, Dual control).
--
-- approval_limits: a top-up or adjustment whose amount (its absolute value, for an adjustment) is above
-- the limit of the wallet's currency waits as a posting request. `amount` is a decimal string in that
-- currency (exact, as the ledger's amounts); no row: no limit (the sandbox may remove one; live may not).
CREATE TABLE approval_limits (
  currency TEXT PRIMARY KEY,
  amount TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- posting_requests: a posting above the limit, waiting for a different operator. Its idempotency key is
-- the posting's, fixed when it was asked for, so an approval retried after a lost reply posts once.
-- `status` is what was decided; a request still `pending` past `expires_at` is expired (computed on read:
-- nothing sweeps them). `decided_by` names the approver or the rejecter; `entry_seq` is set once the
-- approved posting is in the ledger (an approval cut off between its decision and its posting leaves it
-- null, and approving again finishes it).
CREATE TABLE posting_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('top_up', 'adjustment')),
  amount TEXT NOT NULL,
  reason TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  requested_by TEXT NOT NULL,
  requested_by_name TEXT,
  requested_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_by TEXT,
  decided_by_name TEXT,
  decided_at INTEGER,
  entry_seq INTEGER,
  UNIQUE (client_id, currency, idempotency_key)
);
CREATE INDEX posting_requests_open ON posting_requests (status, client_id, currency);
