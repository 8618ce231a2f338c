-- Dual control that no single credential gets round (docs/operator-api.md, Dual control).
--
-- operators: who made each one. `created_by` is the credential that made it (`operator:<id>`, or
-- `break-glass` for ADMIN_TOKEN whatever its label); `makers` its makers between spaces, nearest first: the
-- creator, then the creator's own makers when the creator was in its first day then
-- (src/operators/colleague-rules.ts). Operators made before this migration get their creator from the
-- audit log's `operator.create` row, and no chain beyond it.
ALTER TABLE operators ADD COLUMN created_by TEXT;
ALTER TABLE operators ADD COLUMN makers TEXT;
UPDATE operators SET created_by = (
  SELECT CASE WHEN a.actor = 'admin' OR a.actor LIKE 'admin:%' THEN 'break-glass' ELSE a.actor END
    FROM audit_log a WHERE a.action = 'operator.create' AND a.target = 'operator:' || operators.id
   ORDER BY a.id LIMIT 1
);
UPDATE operators SET makers = ' ' || created_by || ' ' WHERE created_by IS NOT NULL;
CREATE INDEX operators_created ON operators (created_at);

-- posting_requests, rebuilt to take more kinds and states (SQLite cannot change a CHECK in place):
-- - kind `restore`: a ledger restore above what its requester may move alone (its export in
--   posting_request_exports);
-- - status `posted`: a posting made alone, within its requester's window: the rows the window is summed
--   from, never listed as requests; `failed`: an approved request whose posting the wallet refused
--   (`failure` says why), or a posting made alone that the wallet refused;
-- - `note`: the client-facing note, shown in the client's ledger and statement (the `reason` never is);
-- - `answerable`: the credentials a posting made alone counts against, between spaces;
-- - `amount_minor`: its absolute amount in the currency's minor units, an integer, so that SQLite sums a
--   window exactly.
CREATE TABLE posting_requests_v2 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('top_up', 'adjustment', 'restore')),
  amount TEXT NOT NULL,
  reason TEXT NOT NULL,
  note TEXT,
  idempotency_key TEXT NOT NULL,
  requested_by TEXT NOT NULL,
  requested_by_name TEXT,
  requested_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'failed', 'posted')),
  decided_by TEXT,
  decided_by_name TEXT,
  decided_at INTEGER,
  entry_seq INTEGER,
  failure TEXT,
  answerable TEXT,
  amount_minor INTEGER,
  UNIQUE (client_id, currency, idempotency_key)
);
INSERT INTO posting_requests_v2 (id, client_id, currency, kind, amount, reason, idempotency_key, requested_by,
  requested_by_name, requested_at, expires_at, status, decided_by, decided_by_name, decided_at, entry_seq)
SELECT id, client_id, currency, kind, amount, reason, idempotency_key, requested_by, requested_by_name,
  requested_at, expires_at, status, decided_by, decided_by_name, decided_at, entry_seq FROM posting_requests;
DROP TABLE posting_requests;
ALTER TABLE posting_requests_v2 RENAME TO posting_requests;
CREATE INDEX posting_requests_open ON posting_requests (status, client_id, currency);
-- Only the postings made alone are summed by window: only they are in this index.
CREATE INDEX posting_requests_window ON posting_requests (currency, requested_at) WHERE status = 'posted';

-- A restore waiting for a second person keeps the export it will write, in parts small enough for a row.
CREATE TABLE posting_request_exports (
  request_id INTEGER NOT NULL,
  part INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (request_id, part)
) WITHOUT ROWID;

-- approval_limit_requests: raising or removing a currency's approval limit (or, in live, setting the
-- first) waits here for a second admin; lowering one is at once. `amount` is the limit asked for (NULL:
-- none), `previous` the limit when asked; a request still `pending` past `expires_at` is expired.
CREATE TABLE approval_limit_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  currency TEXT NOT NULL,
  amount TEXT,
  previous TEXT,
  requested_by TEXT NOT NULL,
  requested_by_name TEXT,
  requested_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_by TEXT,
  decided_by_name TEXT,
  decided_at INTEGER
);
CREATE INDEX approval_limit_requests_open ON approval_limit_requests (status, currency);
