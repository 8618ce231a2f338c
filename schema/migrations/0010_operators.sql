-- Named operators (issue 25): each with one role and a token stored only as its SHA-256.
CREATE TABLE operators (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);

-- Console sessions, held on the server: the cookie carries the id (signed), the row says whether it lives.
-- One row per sign-in; last_seen_at moves at most once a minute; sign-out and revocation delete the row.
CREATE TABLE console_sessions (
  id TEXT PRIMARY KEY,
  operator_id TEXT NOT NULL REFERENCES operators (id),
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX console_sessions_operator ON console_sessions (operator_id);

-- The name of the operator who made the change, as it was then (null for the break-glass token and the system).
ALTER TABLE audit_log ADD COLUMN actor_name TEXT;
